//===- InitAll.h - register everything of the project -----------*- C++ -*-===//

#ifndef SUBGROUPMATRIX_INITALL_H
#define SUBGROUPMATRIX_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace subgroup_matrix {

/// Adds the subgroup_matrix dialect to `registry`.
void registerSubgroupMatrixDialect(DialectRegistry &registry);

/// Registers every pass and pipeline of the project with the global pass
/// registry.
void registerSubgroupMatrixPassesAndPipelines();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_INITALL_H
