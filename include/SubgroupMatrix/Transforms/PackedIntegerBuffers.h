//===- PackedIntegerBuffers.h - i2/i4 buffers read as bytes -----*- C++ -*-===//
//
// Buffers of 2- and 4-bit integers hold several elements to a byte, the
// first in the lowest bits (how the runtime packs them, and how MLIR's
// SPIR-V lowering addresses them in 32-bit words). The host-compiled paths
// (Metal source, the Intel kernels' LLVM IR) have no such type: there the
// kernels read those buffers as bytes and take each element out of its
// byte.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_PACKEDINTEGERBUFFERS_H
#define SUBGROUPMATRIX_TRANSFORMS_PACKEDINTEGERBUFFERS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// Rewrites every 1-D kernel argument of `module` holding i2 or i4 elements
/// into the buffer of bytes that packs them, and each `memref.load` of an
/// element into the load of its byte and the shifts that take the element
/// out: where the element is converted (`arith.extsi`, `extui`, `sitofp`,
/// `uitofp`), the conversion reads it as an i8 of the same value. Reports,
/// and fails on, a packed buffer that a kernel writes, views or reads
/// otherwise, and a loaded element used but by a conversion.
///
/// The signatures of the kernels change while the launches that name them
/// do not: this runs on the copy of the kernels that a translation lowers.
LogicalResult readPackedIntegersAsBytes(gpu::GPUModuleOp module);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_PACKEDINTEGERBUFFERS_H
