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
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The opcodes and enumerants this step reads and writes.
namespace spv {
constexpr uint32_t OpName = 5;
constexpr uint32_t OpMemoryModel = 14;
constexpr uint32_t OpExtension = 10;
constexpr uint32_t OpCapability = 17;
constexpr uint32_t OpTypeFunction = 33;
constexpr uint32_t OpTypeArray = 28;
constexpr uint32_t OpTypeRuntimeArray = 29;
constexpr uint32_t OpTypeStruct = 30;
constexpr uint32_t OpTypePointer = 32;
constexpr uint32_t OpFunction = 54;
constexpr uint32_t OpFunctionParameter = 55;
constexpr uint32_t OpFunctionEnd = 56;
constexpr uint32_t OpFunctionCall = 57;
constexpr uint32_t OpVariable = 59;
constexpr uint32_t OpLoad = 61;
constexpr uint32_t OpAccessChain = 65;
constexpr uint32_t OpDecorate = 71;
constexpr uint32_t OpMemberDecorate = 72;
constexpr uint32_t OpCopyObject = 83;
constexpr uint32_t OpCompositeExtract = 81;
constexpr uint32_t OpLabel = 248;
constexpr uint32_t OpConvertSToF = 111;
constexpr uint32_t OpConvertUToF = 112;
constexpr uint32_t OpUConvert = 113;
constexpr uint32_t OpSConvert = 114;
constexpr uint32_t OpFConvert = 115;
constexpr uint32_t OpCooperativeMatrixConvertNV = 5293;
constexpr uint32_t OpCooperativeMatrixReduceNV = 5366;
constexpr uint32_t OpCooperativeMatrixLoadTensorNV = 5367;
constexpr uint32_t OpCooperativeMatrixStoreTensorNV = 5368;
constexpr uint32_t OpCooperativeMatrixPerElementOpNV = 5369;
constexpr uint32_t OpTypeTensorLayoutNV = 5370;
constexpr uint32_t OpTypeTensorViewNV = 5371;
constexpr uint32_t OpCreateTensorLayoutNV = 5372;
constexpr uint32_t OpTensorLayoutSetDimensionNV = 5373;
constexpr uint32_t OpTensorLayoutSliceNV = 5375;
constexpr uint32_t OpCreateTensorViewNV = 5377;
constexpr uint32_t OpTensorViewSetDimensionNV = 5378;
constexpr uint32_t OpTensorViewSetStrideNV = 5379;
constexpr uint32_t OpTensorViewSetClipNV = 5382;
/// Memory operands: as the KHR loads and stores have them, so that
/// barriers order these accesses too (Vulkan memory model).
constexpr uint32_t MemoryAccessNonPrivatePointer = 0x20;
constexpr uint32_t TensorAddressingTensorView = 0x1;
constexpr uint32_t TensorAddressingDecodeFunc = 0x2;
constexpr uint32_t TensorClampModeConstant = 1;
constexpr uint32_t StorageClassPhysicalStorageBuffer = 5349;
constexpr uint32_t AddressingModelPhysicalStorageBuffer64 = 5348;
constexpr uint32_t DecorationAliased = 20;
constexpr uint32_t PhysicalStorageBufferAddresses = 5347;
constexpr uint32_t CooperativeMatrixBlockLoadsNV = 5434;
constexpr uint32_t ReduceRow = 0x1;
constexpr uint32_t ReduceColumn = 0x2;
constexpr uint32_t Reduce2x2 = 0x4;
constexpr uint32_t CooperativeMatrixReductionsNV = 5430;
constexpr uint32_t CooperativeMatrixConversionsNV = 5431;
constexpr uint32_t CooperativeMatrixPerElementOperationsNV = 5432;
constexpr uint32_t CooperativeMatrixTensorAddressingNV = 5433;
constexpr uint32_t TensorAddressingNV = 5439;
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
  case CooperativeMatrix2Instruction::ReduceBlocks2x2:
    return spv::CooperativeMatrixReductionsNV;
  case CooperativeMatrix2Instruction::PerElement:
    return spv::CooperativeMatrixPerElementOperationsNV;
  case CooperativeMatrix2Instruction::LoadTensor:
  case CooperativeMatrix2Instruction::StoreTensor:
  case CooperativeMatrix2Instruction::DecodeLoadTensor:
    return spv::CooperativeMatrixTensorAddressingNV;
  case CooperativeMatrix2Instruction::ConvertUse:
  case CooperativeMatrix2Instruction::ConvertFloat:
  case CooperativeMatrix2Instruction::ConvertSignedToFloat:
  case CooperativeMatrix2Instruction::ConvertUnsignedToFloat:
  case CooperativeMatrix2Instruction::ConvertSigned:
  case CooperativeMatrix2Instruction::ConvertUnsigned:
    return spv::CooperativeMatrixConversionsNV;
  }
  llvm_unreachable("unknown cooperative matrix 2 instruction");
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
/// The types a tensor load or store declares beyond those of the module:
/// each made once, with ids from the module's bound, and written before its
/// first function.
class TensorTypes {
public:
  TensorTypes(SmallVectorImpl<uint32_t> &binary) : binary(binary) {}

  /// Reads the pointer, structure and array types of `words` (one
  /// instruction of the module).
  void note(uint32_t opcode, ArrayRef<uint32_t> words) {
    if (opcode == spv::OpTypePointer) {
      pointers[words[0]] = {words[1], words[2]};
      pointerIds[{words[1], words[2]}] = words[0];
    } else if (opcode == spv::OpTypeStruct && words.size() > 1) {
      firstMembers[words[0]] = words[1];
    } else if ((opcode == spv::OpTypeArray ||
                opcode == spv::OpTypeRuntimeArray) &&
               words.size() > 1) {
      elements[words[0]] = words[1];
    }
  }

  /// A pointer to the first element of the array that a variable of
  /// pointer type `pointer` holds (directly or as the first member of its
  /// block), as the access chain's result type and its indices; none for
  /// other types.
  std::optional<std::pair<uint32_t, unsigned>>
  getFirstElementPointer(uint32_t pointer) {
    std::optional<BufferElement> element = getBufferElement(pointer);
    if (!element)
      return std::nullopt;
    return std::make_pair(getPointer(element->storageClass, element->type),
                          element->depth);
  }

  /// The element type of the array that a variable of pointer type
  /// `pointer` holds, as getFirstElementPointer finds it.
  std::optional<uint32_t> getElementType(uint32_t pointer) {
    std::optional<BufferElement> element = getBufferElement(pointer);
    if (!element)
      return std::nullopt;
    return element->type;
  }

  /// OpTypePointer, the module's own where it has one.
  uint32_t getPointer(uint32_t storageClass, uint32_t pointee) {
    std::pair<uint32_t, uint32_t> key = {storageClass, pointee};
    auto existing = pointerIds.find(key);
    if (existing != pointerIds.end())
      return existing->second;
    uint32_t id = allocate();
    declare({spv::OpTypePointer, id, storageClass, pointee});
    pointerIds[key] = id;
    return id;
  }

  /// OpTypeArray of `length` (a constant's id) and OpTypeFunction, each
  /// declared once. The module has no function type of a decode
  /// function's signature: its first parameter is of a pointer type that
  /// this step declares.
  uint32_t getArray(uint32_t element, uint32_t length) {
    return getType(spv::OpTypeArray, {element, length});
  }
  uint32_t getFunction(ArrayRef<uint32_t> resultAndParameters) {
    return getType(spv::OpTypeFunction, resultAndParameters);
  }

  /// OpTypeTensorLayoutNV and OpTypeTensorViewNV, of constant operands.
  uint32_t getLayout(uint32_t dimensions, uint32_t clampMode) {
    return getType(spv::OpTypeTensorLayoutNV, {dimensions, clampMode});
  }
  uint32_t getView(ArrayRef<uint32_t> operands) {
    return getType(spv::OpTypeTensorViewNV, operands);
  }

  uint32_t allocate() { return binary[3]++; }
  ArrayRef<uint32_t> getDeclarations() const { return declarations; }

private:
  struct BufferElement {
    uint32_t storageClass, type;
    unsigned depth;
  };
  std::optional<BufferElement> getBufferElement(uint32_t pointer) {
    auto found = pointers.find(pointer);
    if (found == pointers.end())
      return std::nullopt;
    auto [storageClass, pointee] = found->second;
    unsigned depth = 1;
    if (auto member = firstMembers.find(pointee);
        member != firstMembers.end()) {
      pointee = member->second;
      ++depth;
    }
    auto element = elements.find(pointee);
    if (element == elements.end())
      return std::nullopt;
    return BufferElement{storageClass, element->second, depth};
  }

  uint32_t getType(uint32_t opcode, ArrayRef<uint32_t> operands) {
    SmallVector<uint32_t> key = {opcode};
    llvm::append_range(key, operands);
    for (auto &[declared, id] : types)
      if (declared == key)
        return id;
    uint32_t id = allocate();
    SmallVector<uint32_t> words = {opcode, id};
    llvm::append_range(words, operands);
    declare(words);
    types.push_back({key, id});
    return id;
  }
  void declare(SmallVector<uint32_t> words) {
    words[0] |= uint32_t(words.size()) << 16;
    llvm::append_range(declarations, words);
  }

  SmallVectorImpl<uint32_t> &binary;
  llvm::DenseMap<uint32_t, std::pair<uint32_t, uint32_t>> pointers;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> pointerIds;
  llvm::DenseMap<uint32_t, uint32_t> firstMembers, elements;
  SmallVector<std::pair<SmallVector<uint32_t>, uint32_t>> types;
  SmallVector<uint32_t> declarations;
};

/// Appends the instruction of `words` (opcode first, without its length) to
/// `out`.
void appendInstruction(SmallVectorImpl<uint32_t> &out,
                       SmallVector<uint32_t> words) {
  words[0] |= uint32_t(words.size()) << 16;
  out.append(words);
}

/// Writes an access chain to the first element of the array that
/// `buffer`, a variable of pointer type `bufferType`, holds (`zero`: the
/// constant 0) and returns it; none if the variable holds no array.
std::optional<uint32_t>
writeFirstElementPointer(TensorTypes &types, uint32_t bufferType,
                         uint32_t buffer, uint32_t zero,
                         SmallVectorImpl<uint32_t> &out) {
  std::optional<std::pair<uint32_t, unsigned>> element =
      types.getFirstElementPointer(bufferType);
  if (!element)
    return std::nullopt;
  uint32_t pointer = types.allocate();
  SmallVector<uint32_t> chain = {spv::OpAccessChain, element->first, pointer,
                                 buffer};
  chain.append(element->second, zero);
  appendInstruction(out, chain);
  return pointer;
}

/// The instructions of a tensor load or store in place of the call of its
/// stand-in (operands TensorAccessOperand, the buffer's pointer type
/// `bufferType`): a one-dimensional layout over the whole buffer from
/// element [0, 0], a view whose dimensions, strides and permutation turn
/// (row, column) into `stride * major + minor`, its clip the bounds.
LogicalResult writeTensorAccess(CooperativeMatrix2Instruction kind,
                                uint32_t resultType, uint32_t result,
                                ArrayRef<uint32_t> arguments,
                                uint32_t bufferType, TensorTypes &types,
                                SmallVectorImpl<uint32_t> &out,
                                std::string &error) {
  if (arguments.size() != TensorAccessOperandCount) {
    error = "a tensor access stand-in has " + std::to_string(arguments.size()) +
            " operands, not " + std::to_string(TensorAccessOperandCount);
    return failure();
  }
  auto operand = [&](TensorAccessOperand which) { return arguments[which]; };
  auto emit = [&](SmallVector<uint32_t> words) {
    appendInstruction(out, std::move(words));
  };
  uint32_t zero = operand(TensorAccessZero), one = operand(TensorAccessOne),
           extent = operand(TensorAccessExtent);
  std::optional<uint32_t> pointer = writeFirstElementPointer(
      types, bufferType, operand(TensorAccessBuffer), zero, out);
  if (!pointer) {
    error = "a tensor access stand-in's buffer is not a variable holding an "
            "array";
    return failure();
  }
  // Clamp mode Undefined: no element is outside the layout.
  uint32_t layoutType = types.getLayout(one, zero);
  uint32_t viewType = types.getView(
      {operand(TensorAccessTwo), operand(TensorAccessTrue),
       operand(TensorAccessPermutation0), operand(TensorAccessPermutation1)});
  uint32_t created = types.allocate(), dimensioned = types.allocate(),
           layout = types.allocate();
  emit({spv::OpCreateTensorLayoutNV, layoutType, created});
  emit({spv::OpTensorLayoutSetDimensionNV, layoutType, dimensioned, created,
        extent});
  emit({spv::OpTensorLayoutSliceNV, layoutType, layout, dimensioned,
        operand(TensorAccessOffset), extent});
  uint32_t view0 = types.allocate(), view1 = types.allocate(),
           view2 = types.allocate(), view = types.allocate();
  emit({spv::OpCreateTensorViewNV, viewType, view0});
  emit({spv::OpTensorViewSetDimensionNV, viewType, view1, view0,
        operand(TensorAccessViewDimension0),
        operand(TensorAccessViewDimension1)});
  emit({spv::OpTensorViewSetStrideNV, viewType, view2, view1,
        operand(TensorAccessStride), one});
  emit({spv::OpTensorViewSetClipNV, viewType, view, view2, zero,
        operand(TensorAccessClipRows), zero, operand(TensorAccessClipColumns)});
  if (kind == CooperativeMatrix2Instruction::LoadTensor)
    emit({spv::OpCooperativeMatrixLoadTensorNV, resultType, result, *pointer,
          operand(TensorAccessMatrix), layout,
          spv::MemoryAccessNonPrivatePointer, spv::TensorAddressingTensorView,
          view});
  else
    emit({spv::OpCooperativeMatrixStoreTensorNV, *pointer,
          operand(TensorAccessMatrix), layout,
          spv::MemoryAccessNonPrivatePointer, spv::TensorAddressingTensorView,
          view});
  return success();
}
/// The instructions of a decode load in place of the call of its stand-in
/// (operands DecodeAccessOperand, the buffer's pointer type `bufferType`):
/// a two-dimensional layout of the decoded tensor's rows and columns whose
/// elements outside it are zeros, sliced to the matrix, and the load with
/// `decodeFunction`.
LogicalResult writeDecodeLoad(uint32_t resultType, uint32_t result,
                              ArrayRef<uint32_t> arguments, uint32_t bufferType,
                              uint32_t decodeFunction, TensorTypes &types,
                              SmallVectorImpl<uint32_t> &out,
                              std::string &error) {
  if (arguments.size() < DecodeAccessOperandCount) {
    error = "a decode load stand-in has " + std::to_string(arguments.size()) +
            " operands, fewer than " + std::to_string(DecodeAccessOperandCount);
    return failure();
  }
  auto operand = [&](DecodeAccessOperand which) { return arguments[which]; };
  auto emit = [&](SmallVector<uint32_t> words) {
    appendInstruction(out, std::move(words));
  };
  std::optional<uint32_t> pointer =
      writeFirstElementPointer(types, bufferType, operand(DecodeAccessBuffer),
                               operand(DecodeAccessZero), out);
  if (!pointer) {
    error = "a decode load stand-in's buffer is not a variable holding an "
            "array";
    return failure();
  }
  // Clamp mode Constant: the elements outside the tensor are the clamp
  // value, zero, and are not decoded.
  uint32_t layoutType =
      types.getLayout(operand(DecodeAccessTwo), operand(DecodeAccessOne));
  uint32_t created = types.allocate(), dimensioned = types.allocate(),
           layout = types.allocate();
  emit({spv::OpCreateTensorLayoutNV, layoutType, created});
  emit({spv::OpTensorLayoutSetDimensionNV, layoutType, dimensioned, created,
        operand(DecodeAccessRows), operand(DecodeAccessColumns)});
  emit({spv::OpTensorLayoutSliceNV, layoutType, layout, dimensioned,
        operand(DecodeAccessRow), operand(DecodeAccessMatrixRows),
        operand(DecodeAccessColumn), operand(DecodeAccessMatrixColumns)});
  emit({spv::OpCooperativeMatrixLoadTensorNV, resultType, result, *pointer,
        operand(DecodeAccessMatrix), layout, spv::MemoryAccessNonPrivatePointer,
        spv::TensorAddressingDecodeFunc, decodeFunction});
  return success();
}

/// A decode load's callback, as `sm-use-nv-cooperative-matrix2` built it:
/// a function of the element's row and column, the buffers it reads and the
/// kernel's scalar arguments it uses. The extension calls it with a
/// pointer, the element's block coordinates and its coordinates within the
/// block (blocks of one element here), so its parameters become those, the
/// row and column the block coordinates, each buffer the variable the
/// load's call passed, and each scalar a load of it from its own variable,
/// as the kernel loads it.
struct DecodeFunction {
  /// What gives one of the callback's parameters after the position its
  /// value: a buffer's variable, or the access chain (without its result)
  /// and the load by which the kernel reads a scalar argument.
  struct Captured {
    uint32_t variable = 0;
    SmallVector<uint32_t> chain, load;
  };
  SmallVector<Captured> captured;
  /// The pointer type of the buffer the load points into.
  uint32_t bufferType = 0;
  /// The constant 2, the length of the coordinate arrays.
  uint32_t two = 0;
};

/// Rewrites the callbacks of decode loads as the instructions of the
/// binary are copied: the function's type and parameters, then a prologue
/// that gives the old parameters their values.
class DecodeFunctionRewriter {
public:
  DecodeFunctionRewriter(llvm::DenseMap<uint32_t, DecodeFunction> functions,
                         TensorTypes &types)
      : functions(std::move(functions)), types(types) {}

  bool empty() const { return functions.empty(); }
  /// The new pointer parameters, which the module decorates Aliased.
  ArrayRef<uint32_t> getPointerParameters() const { return pointers; }

  /// Handles `words` (an instruction of `opcode`) if it belongs to a
  /// decode function's head: returns whether it was, and appended what
  /// replaces it to `out`.
  FailureOr<bool> rewrite(uint32_t opcode, ArrayRef<uint32_t> instruction,
                          SmallVectorImpl<uint32_t> &out, std::string &error) {
    ArrayRef<uint32_t> words = instruction.drop_front();
    if (opcode == spv::OpFunction && functions.count(words[1])) {
      current = &functions[words[1]];
      head.assign(instruction.begin(), instruction.end());
      parameters.clear();
      return true;
    }
    if (!current)
      return false;
    if (opcode == spv::OpFunctionParameter && prologue.empty()) {
      parameters.push_back({words[0], words[1]});
      return true;
    }
    if (opcode == spv::OpLabel && prologue.empty()) {
      if (failed(writeHead(out, error)))
        return failure();
      out.append(instruction.begin(), instruction.end());
      return true;
    }
    // The prologue follows the entry block's variables.
    if (opcode == spv::OpVariable)
      return false;
    out.append(prologue);
    prologue.clear();
    current = nullptr;
    return false;
  }

private:
  LogicalResult writeHead(SmallVectorImpl<uint32_t> &out, std::string &error) {
    if (parameters.size() != 2 + current->captured.size()) {
      error = "a decode function has " + std::to_string(parameters.size()) +
              " parameters, not the position and " +
              std::to_string(current->captured.size()) + " captured values";
      return failure();
    }
    std::optional<uint32_t> element = types.getElementType(current->bufferType);
    if (!element) {
      error = "a decode load's buffer is not a variable holding an array";
      return failure();
    }
    uint32_t pointerType =
        types.getPointer(spv::StorageClassPhysicalStorageBuffer, *element);
    // The coordinates are 32-bit integers, of the position's type.
    uint32_t coordinateType = parameters[0].first;
    uint32_t coordinates = types.getArray(coordinateType, current->two);
    // OpFunction: result type, result, control, function type.
    uint32_t functionType =
        types.getFunction({head[1], pointerType, coordinates, coordinates});
    head[4] = functionType;
    out.append(head);
    uint32_t pointer = types.allocate(), blockCoordinates = types.allocate(),
             coordinatesInBlock = types.allocate();
    pointers.push_back(pointer);
    auto emit = appendInstruction;
    emit(out, {spv::OpFunctionParameter, pointerType, pointer});
    emit(out, {spv::OpFunctionParameter, coordinates, blockCoordinates});
    emit(out, {spv::OpFunctionParameter, coordinates, coordinatesInBlock});
    for (unsigned i = 0; i < 2; ++i)
      emit(prologue, {spv::OpCompositeExtract, parameters[i].first,
                      parameters[i].second, blockCoordinates, i});
    for (auto [parameter, captured] :
         llvm::zip(ArrayRef(parameters).drop_front(2), current->captured)) {
      auto [type, id] = parameter;
      if (captured.variable) {
        emit(prologue, {spv::OpCopyObject, type, id, captured.variable});
        continue;
      }
      // OpAccessChain: result type, result, base, indices; OpLoad: result
      // type, result, pointer, memory operands.
      if (captured.load[0] != type) {
        error = "a decode function's scalar parameter is not of the type "
                "the kernel loads";
        return failure();
      }
      uint32_t pointer = types.allocate();
      SmallVector<uint32_t> chain = {spv::OpAccessChain, captured.chain[0],
                                     pointer};
      chain.append(captured.chain.begin() + 1, captured.chain.end());
      emit(prologue, chain);
      SmallVector<uint32_t> load = {spv::OpLoad, type, id, pointer};
      load.append(captured.load.begin() + 3, captured.load.end());
      emit(prologue, load);
    }
    return success();
  }

  llvm::DenseMap<uint32_t, DecodeFunction> functions;
  TensorTypes &types;
  /// The function being rewritten, its OpFunction and its old parameters
  /// (type, id); the prologue waiting for the entry block's variables.
  DecodeFunction *current = nullptr;
  SmallVector<uint32_t> head;
  SmallVector<std::pair<uint32_t, uint32_t>> parameters;
  SmallVector<uint32_t> prologue;
  SmallVector<uint32_t> pointers;
};
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

  // Each stand-in's body, the callback it calls and the type of its first
  // parameter.
  llvm::DenseMap<uint32_t, uint32_t> callbacks, firstParameterTypes;
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
      if (instructions[i].opcode == spv::OpFunctionParameter)
        firstParameterTypes.try_emplace(function, operands(instructions[i])[0]);
      if (instructions[i].opcode == spv::OpFunctionEnd)
        break;
    }
  }

  // The decode functions, from the calls of the decode loads' stand-ins,
  // and the instructions that define the values those calls pass.
  llvm::DenseMap<uint32_t, const Instruction *> definitions;
  for (const Instruction &instruction : instructions)
    if (instruction.opcode == spv::OpVariable ||
        instruction.opcode == spv::OpLoad ||
        instruction.opcode == spv::OpAccessChain)
      definitions[operands(instruction)[1]] = &instruction;
  llvm::DenseMap<uint32_t, DecodeFunction> decodeFunctions;
  for (const Instruction &instruction : instructions) {
    if (instruction.opcode != spv::OpFunctionCall)
      continue;
    ArrayRef<uint32_t> words = operands(instruction);
    auto standIn = standIns.find(words[2]);
    if (standIn == standIns.end() ||
        standIn->second != CooperativeMatrix2Instruction::DecodeLoadTensor)
      continue;
    ArrayRef<uint32_t> arguments = words.drop_front(3);
    auto callback = callbacks.find(words[2]);
    if (callback == callbacks.end() ||
        arguments.size() < DecodeAccessOperandCount) {
      error = "a decode load stand-in calls no decode function or has too "
              "few operands";
      return failure();
    }
    DecodeFunction &function = decodeFunctions[callback->second];
    for (uint32_t argument : arguments.drop_front(DecodeAccessOperandCount)) {
      DecodeFunction::Captured captured;
      auto definition = definitions.find(argument);
      const Instruction *defining =
          definition == definitions.end() ? nullptr : definition->second;
      if (defining && defining->opcode == spv::OpVariable) {
        captured.variable = argument;
      } else {
        // A scalar argument of the kernel: a load through an access chain
        // into its variable.
        const Instruction *chain =
            defining && defining->opcode == spv::OpLoad
                ? definitions.lookup(operands(*defining)[2])
                : nullptr;
        const Instruction *variable =
            chain && chain->opcode == spv::OpAccessChain
                ? definitions.lookup(operands(*chain)[2])
                : nullptr;
        if (!variable || variable->opcode != spv::OpVariable) {
          error = "a decode load's captured value is neither a variable nor "
                  "a load of one";
          return failure();
        }
        ArrayRef<uint32_t> chainWords = operands(*chain);
        captured.chain.push_back(chainWords[0]);
        captured.chain.append(chainWords.begin() + 2, chainWords.end());
        captured.load.assign(operands(*defining).begin(),
                             operands(*defining).end());
      }
      function.captured.push_back(std::move(captured));
    }
    function.bufferType = firstParameterTypes.lookup(words[2]);
    function.two = arguments[DecodeAccessTwo];
  }

  llvm::SetVector<uint32_t> capabilities;
  TensorTypes tensorTypes(binary);
  DecodeFunctionRewriter decodeRewriter(std::move(decodeFunctions),
                                        tensorTypes);
  std::optional<size_t> memoryModel, lastAnnotation;
  SmallVector<uint32_t> out(binary.begin(), binary.begin() + headerWords);
  size_t lastCapability = 0, lastExtension = 0;
  std::optional<size_t> firstFunction;
  llvm::StringSet<> declaredExtensions;
  for (auto [index, instruction] : llvm::enumerate(instructions)) {
    if (instruction.opcode == spv::OpFunction && !firstFunction)
      firstFunction = out.size();
    if (dropped.contains(index))
      continue;
    ArrayRef<uint32_t> words = operands(instruction);
    tensorTypes.note(instruction.opcode, words);
    if (instruction.opcode == spv::OpName && standIns.count(words[0]))
      continue;
    if (instruction.opcode == spv::OpMemoryModel)
      memoryModel = out.size();
    if (instruction.opcode == spv::OpDecorate ||
        instruction.opcode == spv::OpMemberDecorate)
      lastAnnotation = out.size() + instruction.length;
    FailureOr<bool> rewritten =
        decodeRewriter.rewrite(instruction.opcode,
                               ArrayRef<uint32_t>(binary).slice(
                                   instruction.offset, instruction.length),
                               out, error);
    if (failed(rewritten))
      return failure();
    if (*rewritten)
      continue;
    if (instruction.opcode == spv::OpCapability)
      lastCapability = out.size() + instruction.length;
    if (instruction.opcode == spv::OpExtension) {
      lastExtension = out.size() + instruction.length;
      declaredExtensions.insert(readStringOperand(words));
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
    if (kind == CooperativeMatrix2Instruction::DecodeLoadTensor) {
      capabilities.insert(spv::TensorAddressingNV);
      capabilities.insert(spv::CooperativeMatrixBlockLoadsNV);
      capabilities.insert(spv::PhysicalStorageBufferAddresses);
      if (failed(writeDecodeLoad(resultType, result, arguments,
                                 firstParameterTypes.lookup(words[2]),
                                 callbacks.lookup(words[2]), tensorTypes, out,
                                 error)))
        return failure();
      continue;
    }
    if (kind == CooperativeMatrix2Instruction::LoadTensor ||
        kind == CooperativeMatrix2Instruction::StoreTensor) {
      capabilities.insert(spv::TensorAddressingNV);
      if (failed(writeTensorAccess(kind, resultType, result, arguments,
                                   firstParameterTypes.lookup(words[2]),
                                   tensorTypes, out, error)))
        return failure();
      continue;
    }
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
    case CooperativeMatrix2Instruction::ReduceAll:
    case CooperativeMatrix2Instruction::ReduceBlocks2x2: {
      uint32_t mask = kind == CooperativeMatrix2Instruction::ReduceRows
                          ? spv::ReduceRow
                      : kind == CooperativeMatrix2Instruction::ReduceColumns
                          ? spv::ReduceColumn
                      : kind == CooperativeMatrix2Instruction::ReduceBlocks2x2
                          ? spv::Reduce2x2
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

  // A decode function's first parameter is a physical storage buffer
  // pointer, which the addressing model allows and a decoration qualifies.
  if (!decodeRewriter.getPointerParameters().empty()) {
    if (!memoryModel || !lastAnnotation) {
      error = "a module with decode loads has no memory model or no "
              "decorations";
      return failure();
    }
    out[*memoryModel + 1] = spv::AddressingModelPhysicalStorageBuffer64;
  }

  // The types of tensor layouts and views (and pointers) go before the
  // first function, after every constant they use.
  if (!tensorTypes.getDeclarations().empty()) {
    if (!firstFunction) {
      error = "a module with tensor accesses has no function";
      return failure();
    }
    out.insert(out.begin() + *firstFunction,
               tensorTypes.getDeclarations().begin(),
               tensorTypes.getDeclarations().end());
  }
  // The decorations follow the module's own, before its types.
  SmallVector<uint32_t> decorations;
  for (uint32_t pointer : decodeRewriter.getPointerParameters())
    decorations.append(
        {3u << 16 | spv::OpDecorate, pointer, spv::DecorationAliased});
  if (!decorations.empty())
    out.insert(out.begin() + *lastAnnotation, decorations.begin(),
               decorations.end());
  // The module's bound counts the ids the tensor accesses added.
  out[3] = binary[3];

  // Capabilities end the first section, the extensions follow them.
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
  SmallVector<uint32_t> extensions;
  // Physical storage buffers are core from SPIR-V 1.5.
  bool physicalStorageBufferExtension =
      capabilities.contains(spv::PhysicalStorageBufferAddresses) &&
      binary[1] < 0x00010500;
  for (StringRef name :
       {StringRef("SPV_NV_cooperative_matrix2"),
        StringRef(capabilities.contains(spv::TensorAddressingNV)
                      ? "SPV_NV_tensor_addressing"
                      : ""),
        StringRef(physicalStorageBufferExtension
                      ? "SPV_KHR_physical_storage_buffer"
                      : "")})
    if (!name.empty() && !declaredExtensions.contains(name))
      appendStringInstruction(extensions, spv::OpExtension, name);
  size_t extensionEnd = std::max(lastExtension, lastCapability);
  extensionEnd =
      (extensionEnd ? extensionEnd : headerWords) + declarations.size();
  out.insert(out.begin() + extensionEnd, extensions.begin(), extensions.end());
  binary.assign(out.begin(), out.end());
  return success();
}
