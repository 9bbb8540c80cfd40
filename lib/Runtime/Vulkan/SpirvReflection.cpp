//===- SpirvReflection.cpp - what a SPIR-V binary declares and needs ------===//

#include "SpirvReflection.h"

#include "Files.h"

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>

using namespace sm_runner;

namespace {

/// SPV_KHR_bfloat16 is newer than the SPIR-V headers Debian 13 ships; its
/// few numbers follow the SPIR-V registry.
constexpr uint32_t capabilityBFloat16Type = 5116;
constexpr uint32_t capabilityBFloat16DotProduct = 5117;
constexpr uint32_t capabilityBFloat16CooperativeMatrix = 5118;
constexpr uint32_t fpEncodingBFloat16 = 0;

/// One instruction: its opcode and the words after the first.
struct Instruction {
  spv::Op opcode;
  const uint32_t *operands;
  uint32_t count;

  std::string getString(uint32_t first) const {
    if (first >= count)
      return "";
    const char *text = reinterpret_cast<const char *>(operands + first);
    return std::string(text, strnlen(text, (count - first) * 4));
  }
  /// The index of the first operand after a literal string at `first`.
  uint32_t skipString(uint32_t first) const {
    return first + uint32_t(getString(first).size() / 4 + 1);
  }
};

/// Calls `visit` for every instruction after the header. Returns an error
/// message for an instruction whose length is zero or runs past the end.
template <typename Visitor>
std::string forEachInstruction(const std::vector<uint32_t> &words,
                               Visitor visit) {
  for (size_t i = 5; i < words.size();) {
    uint32_t length = words[i] >> 16;
    if (length == 0)
      return "the instruction at word " + std::to_string(i) + " has length 0";
    if (i + length > words.size())
      return "the instruction at word " + std::to_string(i) + " (" +
             spv::OpToString(spv::Op(words[i] & 0xFFFF)) + ", " +
             std::to_string(length) + " words) runs past the end, at word " +
             std::to_string(words.size()) + " (is the file truncated?)";
    visit(Instruction{spv::Op(words[i] & 0xFFFF), &words[i + 1], length - 1});
    i += length;
  }
  return "";
}

/// The declarations the reflection needs, gathered in one walk.
struct Declarations {
  std::map<uint32_t, Instruction> types;
  std::map<uint32_t, uint32_t> constants;
  std::map<uint32_t, uint32_t> valueTypes;
  std::map<uint32_t, uint32_t> bindings, descriptorSets;
  std::map<uint32_t, uint32_t> variables; // variable -> pointer type
  std::vector<Instruction> multiplies;
  std::vector<std::string> processed;

  explicit Declarations(const SpirvModule &module) {
    forEachInstruction(module.words, [&](const Instruction &instruction) {
      bool hasResult = false, hasResultType = false;
      spv::HasResultAndType(instruction.opcode, &hasResult, &hasResultType);
      switch (instruction.opcode) {
      case spv::OpTypeInt:
      case spv::OpTypeFloat:
      case spv::OpTypeStruct:
      case spv::OpTypeArray:
      case spv::OpTypeRuntimeArray:
      case spv::OpTypePointer:
      case spv::OpTypeCooperativeMatrixKHR:
        if (instruction.count > 0)
          types.emplace(instruction.operands[0], instruction);
        break;
      case spv::OpConstant:
        if (instruction.count > 2)
          constants[instruction.operands[1]] = instruction.operands[2];
        break;
      case spv::OpDecorate:
        if (instruction.count == 3 &&
            instruction.operands[1] == spv::DecorationBinding)
          bindings[instruction.operands[0]] = instruction.operands[2];
        if (instruction.count == 3 &&
            instruction.operands[1] == spv::DecorationDescriptorSet)
          descriptorSets[instruction.operands[0]] = instruction.operands[2];
        break;
      case spv::OpVariable:
        if (instruction.count > 2)
          variables[instruction.operands[1]] = instruction.operands[0];
        break;
      case spv::OpCooperativeMatrixMulAddKHR:
        multiplies.push_back(instruction);
        break;
      case spv::OpModuleProcessed:
        processed.push_back(instruction.getString(0));
        break;
      default:
        break;
      }
      if (hasResult && hasResultType && instruction.count > 1)
        valueTypes[instruction.operands[1]] = instruction.operands[0];
    });
  }

  const Instruction *getType(uint32_t id, spv::Op opcode) const {
    auto found = types.find(id);
    if (found == types.end() || found->second.opcode != opcode)
      return nullptr;
    return &found->second;
  }

  /// The element of a scalar type: its kind and width; Opaque otherwise.
  KernelParameter getScalar(uint32_t id) const {
    KernelParameter parameter;
    if (const Instruction *type = getType(id, spv::OpTypeFloat)) {
      bool bfloat = type->count > 2 && type->operands[2] == fpEncodingBFloat16;
      parameter.kind =
          bfloat ? KernelParameter::Kind::BFloat : KernelParameter::Kind::Float;
      parameter.bitWidth = type->count > 1 ? type->operands[1] : 0;
    } else if (const Instruction *type = getType(id, spv::OpTypeInt)) {
      parameter.kind = KernelParameter::Kind::Integer;
      parameter.bitWidth = type->count > 1 ? type->operands[1] : 0;
    }
    return parameter;
  }

  /// A storage buffer's argument: a Block holding an array (a buffer) or one
  /// scalar member.
  KernelParameter getParameter(uint32_t variable) const {
    KernelParameter opaque;
    auto found = variables.find(variable);
    if (found == variables.end())
      return opaque;
    const Instruction *pointer = getType(found->second, spv::OpTypePointer);
    if (!pointer || pointer->count < 3)
      return opaque;
    const Instruction *block = getType(pointer->operands[2], spv::OpTypeStruct);
    if (!block || block->count != 2)
      return opaque;
    uint32_t member = block->operands[1];
    for (spv::Op array : {spv::OpTypeRuntimeArray, spv::OpTypeArray})
      if (const Instruction *type = getType(member, array))
        return type->count > 1 ? getScalar(type->operands[1]) : opaque;
    KernelParameter scalar = getScalar(member);
    scalar.isScalar = scalar.kind != KernelParameter::Kind::Opaque;
    return scalar;
  }

  /// The cooperative matrix type of value `id`, if it has one.
  const Instruction *getMatrixType(uint32_t id) const {
    auto found = valueTypes.find(id);
    if (found == valueTypes.end())
      return nullptr;
    const Instruction *type =
        getType(found->second, spv::OpTypeCooperativeMatrixKHR);
    return type && type->count > 5 ? type : nullptr;
  }

  std::optional<uint32_t> getConstant(uint32_t id) const {
    auto found = constants.find(id);
    if (found == constants.end())
      return std::nullopt;
    return found->second;
  }

  /// The VkComponentTypeKHR name of a matrix's component type.
  std::string getComponentName(const Instruction &matrix, bool isSigned) const {
    KernelParameter component = getScalar(matrix.operands[1]);
    std::string width = std::to_string(component.bitWidth);
    switch (component.kind) {
    case KernelParameter::Kind::BFloat:
      return "bf16";
    case KernelParameter::Kind::Float:
      return "f" + width;
    case KernelParameter::Kind::Integer:
      return (isSigned ? "si" : "ui") + width;
    case KernelParameter::Kind::Opaque:
      break;
    }
    return "?";
  }
};

} // namespace

bool CooperativeMatrixMultiply::operator==(
    const CooperativeMatrixMultiply &other) const {
  return m == other.m && n == other.n && k == other.k && a == other.a &&
         b == other.b && c == other.c && result == other.result &&
         saturating == other.saturating;
}

std::string CooperativeMatrixMultiply::describe() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
         " " + a + " x " + b + " + " + c + " -> " + result +
         (saturating ? " (saturating)" : "");
}

std::string sm_runner::getCapabilityName(uint32_t capability) {
  switch (capability) {
  case capabilityBFloat16Type:
    return "BFloat16TypeKHR";
  case capabilityBFloat16DotProduct:
    return "BFloat16DotProductKHR";
  case capabilityBFloat16CooperativeMatrix:
    return "BFloat16CooperativeMatrixKHR";
  default:
    break;
  }
  const char *name = spv::CapabilityToString(spv::Capability(capability));
  if (!name || std::strcmp(name, "Unknown") == 0)
    return "capability " + std::to_string(capability);
  return name;
}

bool sm_runner::readSpirvModule(const std::string &path, SpirvModule &module,
                                std::string &error) {
  std::vector<char> bytes;
  if (!readWholeFile(path, bytes, error))
    return false;
  size_t size = bytes.size();
  auto malformed = [&](const std::string &why) {
    error = "'" + path + "' is not a well-formed SPIR-V binary: " + why;
    return false;
  };
  if (size < 20)
    return malformed("it has " + std::to_string(size) +
                     " bytes, fewer than a header's 20");
  if (size % 4)
    return malformed("its size, " + std::to_string(size) +
                     " bytes, is not a whole number of words");
  std::vector<uint32_t> words(size / 4);
  std::memcpy(words.data(), bytes.data(), size);
  return parseSpirvModule(std::move(words), "'" + path + "'", module, error);
}

bool sm_runner::parseSpirvModule(std::vector<uint32_t> words,
                                 const std::string &name, SpirvModule &module,
                                 std::string &error) {
  auto malformed = [&](const std::string &why) {
    error = name + " is not a well-formed SPIR-V binary: " + why;
    return false;
  };
  if (words.size() < 5)
    return malformed("it has " + std::to_string(words.size() * 4) +
                     " bytes, fewer than a header's 20");
  module.words = std::move(words);
  if (module.words[0] != spv::MagicNumber)
    return malformed("bad magic number");
  uint32_t bound = module.words[3];
  std::string structure =
      forEachInstruction(module.words, [&](const Instruction &instruction) {
        bool hasResult = false, hasResultType = false;
        spv::HasResultAndType(instruction.opcode, &hasResult, &hasResultType);
        uint32_t resultIndex = hasResultType ? 1 : 0;
        if (hasResult && instruction.count > resultIndex &&
            instruction.operands[resultIndex] >= bound && error.empty())
          error = std::string("an ") + spv::OpToString(instruction.opcode) +
                  " defines id " +
                  std::to_string(instruction.operands[resultIndex]) +
                  ", beyond the header's bound " + std::to_string(bound);
        switch (instruction.opcode) {
        case spv::OpCapability:
          if (instruction.count == 1)
            module.capabilities.push_back(instruction.operands[0]);
          break;
        case spv::OpExtension:
          module.extensions.push_back(instruction.getString(0));
          break;
        case spv::OpEntryPoint:
          if (instruction.count > 2)
            module.entryPoints.push_back(instruction.getString(2));
          break;
        default:
          break;
        }
      });
  if (!structure.empty())
    return malformed(structure);
  if (!error.empty())
    return malformed(error);
  // A binary cut between instructions is well formed word by word: it shows
  // as a function left open or an entry point whose function is missing.
  size_t openFunctions = 0;
  std::vector<uint32_t> functions, entryFunctions;
  forEachInstruction(module.words, [&](const Instruction &instruction) {
    if (instruction.opcode == spv::OpFunction && instruction.count > 1) {
      ++openFunctions;
      functions.push_back(instruction.operands[1]);
    }
    if (instruction.opcode == spv::OpFunctionEnd && openFunctions)
      --openFunctions;
    if (instruction.opcode == spv::OpEntryPoint && instruction.count > 1)
      entryFunctions.push_back(instruction.operands[1]);
  });
  if (openFunctions)
    return malformed("it ends inside a function (is the file truncated?)");
  for (uint32_t function : entryFunctions)
    if (std::find(functions.begin(), functions.end(), function) ==
        functions.end())
      return malformed("an entry point names function %" +
                       std::to_string(function) +
                       ", which the binary does not define (is the file "
                       "truncated?)");

  Declarations declarations(module);
  for (const Instruction &multiply : declarations.multiplies) {
    if (multiply.count < 5)
      return malformed("an OpCooperativeMatrixMulAddKHR has too few operands");
    const Instruction *a = declarations.getMatrixType(multiply.operands[2]);
    const Instruction *b = declarations.getMatrixType(multiply.operands[3]);
    const Instruction *c = declarations.getMatrixType(multiply.operands[4]);
    const Instruction *result = declarations.getType(
        multiply.operands[0], spv::OpTypeCooperativeMatrixKHR);
    if (!a || !b || !c || !result || result->count < 6)
      return malformed("an OpCooperativeMatrixMulAddKHR's operands are not "
                       "cooperative matrices");
    std::optional<uint32_t> m = declarations.getConstant(a->operands[3]);
    std::optional<uint32_t> k = declarations.getConstant(a->operands[4]);
    std::optional<uint32_t> n = declarations.getConstant(b->operands[4]);
    if (!m || !n || !k)
      continue; // Sizes from specialization constants: the driver decides.
    uint32_t flags = multiply.count > 5 ? multiply.operands[5] : 0;
    CooperativeMatrixMultiply config;
    config.m = *m, config.n = *n, config.k = *k;
    config.a = declarations.getComponentName(
        *a,
        flags & spv::CooperativeMatrixOperandsMatrixASignedComponentsKHRMask);
    config.b = declarations.getComponentName(
        *b,
        flags & spv::CooperativeMatrixOperandsMatrixBSignedComponentsKHRMask);
    config.c = declarations.getComponentName(
        *c,
        flags & spv::CooperativeMatrixOperandsMatrixCSignedComponentsKHRMask);
    config.result = declarations.getComponentName(
        *result,
        flags &
            spv::CooperativeMatrixOperandsMatrixResultSignedComponentsKHRMask);
    config.saturating =
        flags & spv::CooperativeMatrixOperandsSaturatingAccumulationKHRMask;
    if (std::find(module.multiplies.begin(), module.multiplies.end(), config) ==
        module.multiplies.end())
      module.multiplies.push_back(config);
  }
  const std::string sizePrefix = "subgroup_matrix.subgroup_size ";
  for (const std::string &text : declarations.processed)
    if (text.compare(0, sizePrefix.size(), sizePrefix) == 0)
      module.subgroupSize =
          uint32_t(std::strtoul(text.c_str() + sizePrefix.size(), nullptr, 10));
  return true;
}

std::vector<std::string>
sm_runner::findLaunchOptions(const SpirvModule &module,
                             const std::string &entry) {
  const std::string prefix = "subgroup_matrix.launch " + entry + " ";
  std::vector<std::string> options;
  forEachInstruction(module.words, [&](const Instruction &instruction) {
    if (instruction.opcode != spv::OpModuleProcessed || !options.empty())
      return;
    std::string text = instruction.getString(0);
    if (text.compare(0, prefix.size(), prefix) != 0)
      return;
    size_t start = prefix.size();
    while (start < text.size()) {
      size_t end = text.find(' ', start);
      if (end == std::string::npos)
        end = text.size();
      if (end > start)
        options.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  });
  return options;
}

std::vector<KernelParameter>
sm_runner::getEntryParameters(const SpirvModule &module,
                              const std::string &entry) {
  bool interfaceListsGlobals =
      module.words.size() > 1 && module.words[1] >= 0x00010400;
  std::vector<uint32_t> interface;
  forEachInstruction(module.words, [&](const Instruction &instruction) {
    if (instruction.opcode != spv::OpEntryPoint || instruction.count < 3 ||
        instruction.getString(2) != entry)
      return;
    for (uint32_t i = instruction.skipString(2); i < instruction.count; ++i)
      interface.push_back(instruction.operands[i]);
  });
  Declarations declarations(module);
  std::map<uint32_t, uint32_t> variableOfBinding;
  for (auto [variable, binding] : declarations.bindings) {
    auto set = declarations.descriptorSets.find(variable);
    if (set != declarations.descriptorSets.end() && set->second != 0)
      continue;
    if (!interfaceListsGlobals || std::find(interface.begin(), interface.end(),
                                            variable) != interface.end())
      variableOfBinding[binding] = variable;
  }
  std::vector<KernelParameter> parameters;
  if (variableOfBinding.empty())
    return parameters;
  parameters.resize(variableOfBinding.rbegin()->first + 1);
  for (auto [binding, variable] : variableOfBinding)
    parameters[binding] = declarations.getParameter(variable);
  return parameters;
}
