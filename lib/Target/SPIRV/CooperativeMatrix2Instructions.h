//===- CooperativeMatrix2Instructions.h - NV coopmat2 in the binary -*- C++
//-*-===//

#ifndef SUBGROUPMATRIX_LIB_TARGET_SPIRV_COOPERATIVEMATRIX2INSTRUCTIONS_H
#define SUBGROUPMATRIX_LIB_TARGET_SPIRV_COOPERATIVEMATRIX2INSTRUCTIONS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir {
namespace subgroup_matrix {

/// Replaces, in a serialized module, each call of a cooperative matrix 2
/// stand-in by the SPV_NV_cooperative_matrix2 instruction it stands for,
/// removes the stand-ins and declares the capabilities and the extension
/// used. On a malformed binary or stand-in, fails with `error` set.
LogicalResult
writeCooperativeMatrix2Instructions(SmallVectorImpl<uint32_t> &binary,
                                    std::string &error);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_LIB_TARGET_SPIRV_COOPERATIVEMATRIX2INSTRUCTIONS_H
