//===- Passes.h - subgroup_matrix passes ------------------------*- C++ -*-===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_PASSES_H
#define SUBGROUPMATRIX_TRANSFORMS_PASSES_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace subgroup_matrix {

#define GEN_PASS_DECL
#include "SubgroupMatrix/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "SubgroupMatrix/Transforms/Passes.h.inc"

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_PASSES_H
