//===- DotProductKernel.h - products with few rows --------------*- C++ -*-===//
//
// The kernel family for products with a few rows (a decode step: a token,
// or a handful, times a weight), which are bound by reading the weight
// once: each subgroup streams columns of B in the order memory holds them,
// dequantizes in registers, multiplies in f32 and adds across its
// invocations at the end. Subgroup matrices (KernelEmitter.h) take over from
// the target's crossover up.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_DOTPRODUCTKERNEL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_DOTPRODUCTKERNEL_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/DotProductPlan.h"

namespace mlir {
namespace subgroup_matrix {

/// Builds the dot-product kernel `name` of `problem` (its output the buffer
/// the kernel writes) with `moduleBuilder`, as `plan` lays it out; its
/// arguments are ordered as a tiled product's (KernelEmitter.h).
FailureOr<ContractionKernel> emitDotProductKernel(OpBuilder &moduleBuilder,
                                                  StringRef name,
                                                  const Contraction &problem,
                                                  TargetAttr target,
                                                  const DotProductPlan &plan);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_DOTPRODUCTKERNEL_H
