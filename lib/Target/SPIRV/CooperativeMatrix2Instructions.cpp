//===- CooperativeMatrix2Instructions.cpp - NV coopmat2 in the binary -----===//
//
// The last step of the SPV_NV_cooperative_matrix2 lowering: upstream's
// serializer has written a call of a stand-in function for each of the
// extension's instructions (`sm-use-nv-cooperative-matrix2`); here each call
// becomes the instruction, the stand-ins go, and the module declares the
// capabilities and the extension it now uses. Binaries without stand-ins are
// left as they are.
//
//===----------------------------------------------------------------------===//

#include "CooperativeMatrix2Instructions.h"
#include "BinaryInstructions.h"

#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/CooperativeMatrix2StandIns.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The opcodes and enumerants this step reads and writes.
namespace spv {
constexpr uint32_t OpName = 5;
constexpr uint32_t OpExtension = 10;
constexpr uint32_t OpCapability = 17;
constexpr uint32_t OpFunction = 54;
constexpr uint32_t OpFunctionEnd = 56;
constexpr uint32_t OpFunctionCall = 57;
constexpr uint32_t OpConvertSToF = 111;
constexpr uint32_t OpConvertUToF = 112;
constexpr uint32_t OpUConvert = 113;
constexpr uint32_t OpSConvert = 114;
constexpr uint32_t OpFConvert = 115;
constexpr uint32_t OpCooperativeMatrixConvertNV = 5293;
constexpr uint32_t OpCooperativeMatrixReduceNV = 5366;
constexpr uint32_t OpCooperativeMatrixPerElementOpNV = 5369;
constexpr uint32_t ReduceRow = 0x1;
constexpr uint32_t ReduceColumn = 0x2;
constexpr uint32_t CooperativeMatrixReductionsNV = 5430;
constexpr uint32_t CooperativeMatrixConversionsNV = 5431;
constexpr uint32_t CooperativeMatrixPerElementOperationsNV = 5432;
} // namespace spv

constexpr size_t headerWords = 5;

/// One instruction of a binary: where it starts and its opcode and length.
struct Instruction {
  size_t offset;
  uint32_t opcode;
  uint32_t length;
};

/// The capability an instruction needs.
uint32_t getCapability(CooperativeMatrix2Instruction instruction) {
  switch (instruction) {
  case CooperativeMatrix2Instruction::ReduceRows:
  case CooperativeMatrix2Instruction::ReduceColumns:
  case CooperativeMatrix2Instruction::ReduceAll:
    return spv::CooperativeMatrixReductionsNV;
  case CooperativeMatrix2Instruction::PerElement:
    return spv::CooperativeMatrixPerElementOperationsNV;
  default:
    return spv::CooperativeMatrixConversionsNV;
  }
}

/// The conversion opcode of a conversion stand-in.
uint32_t getConversionOpcode(CooperativeMatrix2Instruction instruction) {
  switch (instruction) {
  case CooperativeMatrix2Instruction::ConvertUse:
    return spv::OpCooperativeMatrixConvertNV;
  case CooperativeMatrix2Instruction::ConvertFloat:
    return spv::OpFConvert;
  case CooperativeMatrix2Instruction::ConvertSignedToFloat:
    return spv::OpConvertSToF;
  case CooperativeMatrix2Instruction::ConvertUnsignedToFloat:
    return spv::OpConvertUToF;
  case CooperativeMatrix2Instruction::ConvertSigned:
    return spv::OpSConvert;
  default:
    return spv::OpUConvert;
  }
}
} // namespace

LogicalResult mlir::subgroup_matrix::writeCooperativeMatrix2Instructions(
    SmallVectorImpl<uint32_t> &binary, std::string &error) {
  if (binary.size() < headerWords)
    return success();
  SmallVector<Instruction> instructions;
  for (size_t offset = headerWords; offset < binary.size();) {
    uint32_t length = binary[offset] >> 16;
    if (length == 0 || offset + length > binary.size()) {
      error = "malformed SPIR-V binary at word " + std::to_string(offset);
      return failure();
    }
    instructions.push_back({offset, binary[offset] & 0xFFFF, length});
    offset += length;
  }
  auto operands = [&](const Instruction &instruction) {
    return ArrayRef<uint32_t>(binary).slice(instruction.offset + 1,
                                            instruction.length - 1);
  };

  // The stand-ins, by the names upstream's serializer gives functions.
  llvm::DenseMap<uint32_t, CooperativeMatrix2Instruction> standIns;
  for (const Instruction &instruction : instructions)
    if (instruction.opcode == spv::OpName)
      if (std::optional<CooperativeMatrix2Instruction> standIn =
              getCooperativeMatrix2StandIn(
                  readStringOperand(operands(instruction).drop_front())))
        standIns[operands(instruction)[0]] = *standIn;
  if (standIns.empty())
    return success();

  // Each stand-in's body, and the callback it calls.
  llvm::DenseMap<uint32_t, uint32_t> callbacks;
  llvm::DenseSet<size_t> dropped;
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (instructions[i].opcode != spv::OpFunction ||
        !standIns.count(operands(instructions[i])[1]))
      continue;
    uint32_t function = operands(instructions[i])[1];
    for (; i < instructions.size(); ++i) {
      dropped.insert(i);
      if (instructions[i].opcode == spv::OpFunctionCall)
        callbacks[function] = operands(instructions[i])[2];
      if (instructions[i].opcode == spv::OpFunctionEnd)
        break;
    }
  }

  llvm::SetVector<uint32_t> capabilities;
  SmallVector<uint32_t> out(binary.begin(), binary.begin() + headerWords);
  size_t lastCapability = 0, lastExtension = 0;
  bool hasExtension = false;
  for (auto [index, instruction] : llvm::enumerate(instructions)) {
    if (dropped.contains(index))
      continue;
    ArrayRef<uint32_t> words = operands(instruction);
    if (instruction.opcode == spv::OpName && standIns.count(words[0]))
      continue;
    if (instruction.opcode == spv::OpCapability)
      lastCapability = out.size() + instruction.length;
    if (instruction.opcode == spv::OpExtension) {
      lastExtension = out.size() + instruction.length;
      hasExtension |= readStringOperand(words) == "SPV_NV_cooperative_matrix2";
    }
    auto standIn = instruction.opcode == spv::OpFunctionCall
                       ? standIns.find(words[2])
                       : standIns.end();
    if (standIn == standIns.end()) {
      out.append(binary.begin() + instruction.offset,
                 binary.begin() + instruction.offset + instruction.length);
      continue;
    }
    // OpFunctionCall: result type, result, function, arguments.
    CooperativeMatrix2Instruction kind = standIn->second;
    uint32_t resultType = words[0], result = words[1];
    ArrayRef<uint32_t> arguments = words.drop_front(3);
    if (arguments.empty()) {
      error = "a call of a cooperative matrix 2 stand-in has no matrix";
      return failure();
    }
    capabilities.insert(getCapability(kind));
    SmallVector<uint32_t> replacement;
    auto callback = [&]() -> std::optional<uint32_t> {
      auto found = callbacks.find(words[2]);
      if (found == callbacks.end())
        return std::nullopt;
      return found->second;
    };
    switch (kind) {
    case CooperativeMatrix2Instruction::ReduceRows:
    case CooperativeMatrix2Instruction::ReduceColumns:
    case CooperativeMatrix2Instruction::ReduceAll: {
      uint32_t mask = kind == CooperativeMatrix2Instruction::ReduceRows
                          ? spv::ReduceRow
                      : kind == CooperativeMatrix2Instruction::ReduceColumns
                          ? spv::ReduceColumn
                          : spv::ReduceRow | spv::ReduceColumn;
      std::optional<uint32_t> combine = callback();
      if (!combine) {
        error = "a reduction stand-in calls no combining function";
        return failure();
      }
      replacement = {spv::OpCooperativeMatrixReduceNV,
                     resultType,
                     result,
                     arguments[0],
                     mask,
                     *combine};
      break;
    }
    case CooperativeMatrix2Instruction::PerElement: {
      std::optional<uint32_t> function = callback();
      if (!function) {
        error = "a per-element stand-in calls no function";
        return failure();
      }
      replacement = {spv::OpCooperativeMatrixPerElementOpNV, resultType, result,
                     arguments[0], *function};
      llvm::append_range(replacement, arguments.drop_front());
      break;
    }
    default:
      replacement = {getConversionOpcode(kind), resultType, result,
                     arguments[0]};
      break;
    }
    replacement[0] |= uint32_t(replacement.size()) << 16;
    out.append(replacement);
  }

  // Capabilities end the first section, the extension follows them.
  SmallVector<uint32_t> declarations;
  for (uint32_t capability : capabilities) {
    bool declared = false;
    for (const Instruction &instruction : instructions)
      declared |= instruction.opcode == spv::OpCapability &&
                  operands(instruction)[0] == capability;
    if (!declared)
      declarations.append({2u << 16 | spv::OpCapability, capability});
  }
  size_t capabilityEnd = lastCapability ? lastCapability : headerWords;
  out.insert(out.begin() + capabilityEnd, declarations.begin(),
             declarations.end());
  if (!hasExtension) {
    SmallVector<uint32_t> extension;
    appendStringInstruction(extension, spv::OpExtension,
                            "SPV_NV_cooperative_matrix2");
    size_t extensionEnd = std::max(lastExtension, lastCapability);
    extensionEnd =
        (extensionEnd ? extensionEnd : headerWords) + declarations.size();
    out.insert(out.begin() + extensionEnd, extension.begin(), extension.end());
  }
  binary.assign(out.begin(), out.end());
  return success();
}
