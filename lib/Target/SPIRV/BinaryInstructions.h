//===- BinaryInstructions.h - words of a SPIR-V binary ----------*- C++ -*-===//
//
// What the steps that edit a serialized module (the runner notes, the
// cooperative matrix 2 instructions) share.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_LIB_TARGET_SPIRV_BINARYINSTRUCTIONS_H
#define SUBGROUPMATRIX_LIB_TARGET_SPIRV_BINARYINSTRUCTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace mlir {
namespace subgroup_matrix {

/// Appends an instruction of `opcode` whose one operand is a literal string
/// (UTF-8, NUL-terminated, padded to whole words), as OpExtension and
/// OpModuleProcessed are.
inline void appendStringInstruction(llvm::SmallVectorImpl<uint32_t> &out,
                                    uint32_t opcode, llvm::StringRef text) {
  size_t words = text.size() / 4 + 1;
  out.push_back(uint32_t(words + 1) << 16 | opcode);
  size_t first = out.size();
  out.resize(first + words, 0);
  std::memcpy(&out[first], text.data(), text.size());
}

/// The literal string that starts `words` (an instruction's operands from
/// the string on), as appendStringInstruction writes it.
inline std::string readStringOperand(llvm::ArrayRef<uint32_t> words) {
  std::string text(reinterpret_cast<const char *>(words.data()),
                   words.size() * sizeof(uint32_t));
  return text.substr(0, text.find('\0'));
}

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_LIB_TARGET_SPIRV_BINARYINSTRUCTIONS_H
