//===- Passes.h - subgroup_matrix conversion passes -------------*- C++ -*-===//

#ifndef SUBGROUPMATRIX_CONVERSION_PASSES_H
#define SUBGROUPMATRIX_CONVERSION_PASSES_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace subgroup_matrix {

#define GEN_PASS_DECL
#include "SubgroupMatrix/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "SubgroupMatrix/Conversion/Passes.h.inc"

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_PASSES_H
