//===- UseCooperativeMatrix2.cpp - VK_NV_cooperative_matrix2 operations ---===//
//
// `sm-use-nv-cooperative-matrix2`: on a target whose device lists
// VK_NV_cooperative_matrix2 features, the reductions, maps and changes of
// kind that SPV_KHR_cooperative_matrix can only do through workgroup memory
// become that extension's instructions. MLIR's SPIR-V dialect has none of
// them, so each becomes a call of a stand-in function (named for the
// instruction, CooperativeMatrix2StandIns.h), which upstream's conversions
// carry into SPIR-V like any call, and the serializer replaces by the
// instruction. What the instruction calls back (a reduction's combining
// function, a map's per-element function) is an ordinary function of the
// module, built here from the op; the stand-in calls it, so that it is
// referenced and the serializer finds it. A decode load's decode function
// is one too: the body of the op, taking the element's position and the
// buffers it reads, which the serializer turns into the parameters that
// the extension passes.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/CooperativeMatrix2StandIns.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_USENVCOOPERATIVEMATRIX2PASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// Builds the stand-ins and callbacks of one gpu.module and replaces the ops
/// that use them.
class CooperativeMatrix2Builder {
public:
  CooperativeMatrix2Builder(gpu::GPUModuleOp kernels,
                            CooperativeMatrix2Feature features)
      : kernels(kernels), symbols(kernels), features(features),
        builder(kernels.getContext()) {}

  /// Replaces `op` if the target's features cover it; returns whether it
  /// did.
  bool tryReplace(ReduceOp op);
  bool tryReplace(MapOp op);
  bool tryReplace(ConvertOp op);
  bool tryReplace(LoadOp op);
  bool tryReplace(StoreOp op);
  bool tryReplace(DecodeLoadOp op);

private:
  /// The operands of a tensor load or store stand-in (TensorAccessOperand)
  /// for a bounded access of `matrix` through `memref`, built before
  /// `op`; none where the memref has no static strides.
  std::optional<SmallVector<Value>>
  buildTensorAccessOperands(Operation *op, Value memref, ValueRange indices,
                            Value stride, ValueRange bounds, bool colMajor,
                            Value matrix);
  bool has(CooperativeMatrix2Feature feature) const {
    return bitEnumContainsAll(features, feature);
  }
  /// A new private function of the module, empty but for its entry block.
  func::FuncOp createFunction(StringRef name, TypeRange inputs,
                              TypeRange results, Location loc);
  /// The stand-in for `instruction` taking `inputs` and returning `result`;
  /// its body calls `callback` (if any) with undefined arguments.
  func::FuncOp createStandIn(CooperativeMatrix2Instruction instruction,
                             TypeRange inputs, Type result,
                             func::FuncOp callback, Location loc);
  /// Replaces `op` by a call of `standIn` with `operands`.
  void replaceWithCall(Operation *op, func::FuncOp standIn,
                       ValueRange operands);

  gpu::GPUModuleOp kernels;
  SymbolTable symbols;
  CooperativeMatrix2Feature features;
  OpBuilder builder;
  unsigned count = 0;
};
} // namespace

func::FuncOp CooperativeMatrix2Builder::createFunction(StringRef name,
                                                       TypeRange inputs,
                                                       TypeRange results,
                                                       Location loc) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(kernels.getBody());
  auto function = func::FuncOp::create(
      builder, loc, name, builder.getFunctionType(inputs, results));
  function.setPrivate();
  function.addEntryBlock();
  // Renames on a clash with a symbol of the program.
  symbols.insert(function);
  return function;
}

func::FuncOp CooperativeMatrix2Builder::createStandIn(
    CooperativeMatrix2Instruction instruction, TypeRange inputs, Type result,
    func::FuncOp callback, Location loc) {
  std::string name = (getCooperativeMatrix2StandInPrefix() +
                      stringifyCooperativeMatrix2Instruction(instruction) +
                      "__" + Twine(count++))
                         .str();
  func::FuncOp standIn = createFunction(
      name, inputs, result ? TypeRange(result) : TypeRange(), loc);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&standIn.front());
  if (callback) {
    SmallVector<Value> arguments;
    for (Type type : callback.getArgumentTypes())
      arguments.push_back(ub::PoisonOp::create(builder, loc, type));
    func::CallOp::create(builder, loc, callback, arguments);
  }
  if (!result) {
    func::ReturnOp::create(builder, loc);
    return standIn;
  }
  Value undefined = ub::PoisonOp::create(builder, loc, result);
  func::ReturnOp::create(builder, loc, undefined);
  return standIn;
}

void CooperativeMatrix2Builder::replaceWithCall(Operation *op,
                                                func::FuncOp standIn,
                                                ValueRange operands) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  auto call = func::CallOp::create(builder, op->getLoc(), standIn, operands);
  op->replaceAllUsesWith(call);
  op->erase();
}

bool CooperativeMatrix2Builder::tryReplace(ReduceOp op) {
  // The instruction reduces accumulators only.
  if (!has(CooperativeMatrix2Feature::Reductions) ||
      op.getMatrixType().getKind() != MatrixKind::Result)
    return false;
  Location loc = op.getLoc();
  Type component = op.getMatrixType().getElementType();
  Type storage = getStorageType(component);
  func::FuncOp combine = createFunction("sm_nv_coopmat2_combine",
                                        {storage, storage}, storage, loc);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&combine.front());
    Value combined =
        op.buildCombine(builder, loc, component, combine.getArgument(0),
                        combine.getArgument(1));
    func::ReturnOp::create(builder, loc, combined);
  }
  CooperativeMatrix2Instruction instruction =
      CooperativeMatrix2Instruction::ReduceAll;
  switch (op.getDimensions()) {
  case ReductionDimensions::Rows:
    instruction = CooperativeMatrix2Instruction::ReduceRows;
    break;
  case ReductionDimensions::Columns:
    instruction = CooperativeMatrix2Instruction::ReduceColumns;
    break;
  case ReductionDimensions::All:
    instruction = CooperativeMatrix2Instruction::ReduceAll;
    break;
  case ReductionDimensions::Blocks2x2:
    instruction = CooperativeMatrix2Instruction::ReduceBlocks2x2;
    break;
  }
  func::FuncOp standIn = createStandIn(instruction, op.getMatrix().getType(),
                                       op.getResult().getType(), combine, loc);
  replaceWithCall(op, standIn, op.getMatrix());
  return true;
}

bool CooperativeMatrix2Builder::tryReplace(MapOp op) {
  // Maps the matrices can compute in registers stay there.
  if (!has(CooperativeMatrix2Feature::PerElementOperations) ||
      !needsWorkgroupMemory(op, MatrixRegisterOps::ComponentWise))
    return false;
  // What the body uses from outside reaches the callback as arguments.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getBody(), captured);
  if (!llvm::all_of(captured, [](Value value) {
        return value.getType().isIntOrIndexOrFloat();
      }))
    return false;
  Location loc = op.getLoc();
  // Every matrix the instruction passes has the type of its result.
  ValueRange inputs = op.getInputs();
  if (!llvm::all_equal(inputs.getTypes()))
    return false;
  Type resultType = op.getType();
  Value yielded = op.getYieldedValue();
  // A map that computes in its inputs' type and narrows or widens at the
  // end (f32 math into f16) applies in the inputs' type, and the
  // conversion follows as an op of its own, which rounds the same way.
  Operation *finalConversion = nullptr;
  if (!inputs.empty() && inputs[0].getType() != resultType) {
    Type inputStorage =
        getStorageType(cast<SubgroupMatrixTypeInterface>(inputs[0].getType())
                           .getElementType());
    Operation *producer = yielded.getDefiningOp();
    auto truncate = dyn_cast_or_null<arith::TruncFOp>(producer);
    bool plainTruncate = truncate && !truncate.getRoundingmodeAttr() &&
                         (!truncate.getFastmathAttr() ||
                          truncate.getFastmath() == arith::FastMathFlags::none);
    if (!(plainTruncate || isa_and_nonnull<arith::ExtFOp>(producer)) ||
        producer->getParentOp() != op ||
        producer->getOperand(0).getType() != inputStorage)
      return false;
    finalConversion = producer;
    yielded = producer->getOperand(0);
    resultType = inputs[0].getType();
  }
  Type resultStorage = getStorageType(
      cast<SubgroupMatrixTypeInterface>(resultType).getElementType());
  // The instruction's matrix is the first input, or a matrix of zeros
  // (whose element the function ignores) for a map of no inputs.
  Value carrier;
  if (inputs.empty() &&
      !isa<Float16Type, BFloat16Type, Float32Type>(resultStorage) &&
      !resultStorage.isInteger(32))
    return false; // No splat of that type.
  if (!inputs.empty()) {
    carrier = inputs[0];
  } else {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    Value zero = arith::ConstantOp::create(builder, loc,
                                           builder.getZeroAttr(resultStorage));
    carrier = SplatOp::create(builder, loc, resultType, zero);
  }
  bool firstIsCarrier = !inputs.empty();
  ValueRange others = inputs.drop_front(firstIsCarrier ? 1 : 0);

  SmallVector<Type> parameters = {builder.getIndexType(),
                                  builder.getIndexType(), resultStorage};
  for (Value input : others)
    parameters.push_back(getStorageType(
        cast<SubgroupMatrixTypeInterface>(input.getType()).getElementType()));
  for (Value value : captured)
    parameters.push_back(value.getType());
  func::FuncOp perElement =
      createFunction("sm_nv_coopmat2_element", parameters, resultStorage, loc);
  {
    Block &entry = perElement.front();
    IRMapping mapping;
    mapping.map(op.getRow(), entry.getArgument(0));
    mapping.map(op.getColumn(), entry.getArgument(1));
    unsigned next = 2;
    if (firstIsCarrier)
      mapping.map(op.getInputElement(0), entry.getArgument(next));
    ++next;
    for (unsigned i = firstIsCarrier ? 1 : 0; i < inputs.size(); ++i)
      mapping.map(op.getInputElement(i), entry.getArgument(next++));
    for (Value value : captured)
      mapping.map(value, entry.getArgument(next++));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&entry);
    for (Operation &inner : op.getBodyBlock().without_terminator())
      if (&inner != finalConversion)
        builder.clone(inner, mapping);
    func::ReturnOp::create(builder, loc, mapping.lookupOrDefault(yielded));
  }
  SmallVector<Value> operands = {carrier};
  llvm::append_range(operands, others);
  llvm::append_range(operands, captured);
  func::FuncOp standIn = createStandIn(
      CooperativeMatrix2Instruction::PerElement,
      ValueRange(operands).getTypes(), resultType, perElement, loc);
  if (!finalConversion) {
    replaceWithCall(op, standIn, operands);
    return true;
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  auto call = func::CallOp::create(builder, loc, standIn, operands);
  Value converted =
      ConvertOp::create(builder, loc, op.getType(), call.getResult(0));
  op.replaceAllUsesWith(converted);
  op.erase();
  return true;
}

bool CooperativeMatrix2Builder::tryReplace(ConvertOp op) {
  // The extension turns accumulators into A and B matrices, with or without
  // a change of component type; other changes of kind stay as they were.
  SubgroupMatrixTypeInterface from = op.getSourceType(),
                              to = op.getResultType();
  if (!has(CooperativeMatrix2Feature::Conversions) ||
      from.getKind() != MatrixKind::Result ||
      to.getKind() == MatrixKind::Result)
    return false;
  Type fromComponent = from.getElementType(), toComponent = to.getElementType();
  Type fromStorage = getStorageType(fromComponent),
       toStorage = getStorageType(toComponent);
  CooperativeMatrix2Instruction instruction;
  Value source = op.getSource();
  if (fromStorage == toStorage) {
    instruction = CooperativeMatrix2Instruction::ConvertUse;
  } else if (isa<FloatType>(fromStorage) && isa<FloatType>(toStorage)) {
    instruction = CooperativeMatrix2Instruction::ConvertFloat;
    // f16 and bf16 convert through f32 (one OpFConvert between them would
    // round once where the op's meaning rounds once too, but no device here
    // has been seen to take it): the components change on the accumulator,
    // as every path does that, and the extension changes only the use.
    if (!fromStorage.isF32() && !toStorage.isF32()) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(op);
      source = ConvertOp::create(
          builder, op.getLoc(),
          getMatrixType(MatrixKind::Result, from.getRows(), from.getColumns(),
                        toComponent, from.getScope()),
          source);
      instruction = CooperativeMatrix2Instruction::ConvertUse;
    }
  } else if (isa<FloatType>(toStorage)) {
    instruction = fromComponent.isUnsignedInteger()
                      ? CooperativeMatrix2Instruction::ConvertUnsignedToFloat
                      : CooperativeMatrix2Instruction::ConvertSignedToFloat;
  } else if (isa<IntegerType>(fromStorage) && isa<IntegerType>(toStorage)) {
    instruction = fromComponent.isUnsignedInteger()
                      ? CooperativeMatrix2Instruction::ConvertUnsigned
                      : CooperativeMatrix2Instruction::ConvertSigned;
  } else {
    return false;
  }
  func::FuncOp standIn = createStandIn(instruction, source.getType(),
                                       op.getType(), nullptr, op.getLoc());
  replaceWithCall(op, standIn, source);
  return true;
}

std::optional<SmallVector<Value>>
CooperativeMatrix2Builder::buildTensorAccessOperands(
    Operation *op, Value memref, ValueRange indices, Value stride,
    ValueRange bounds, bool colMajor, Value matrix) {
  // The layout addresses the buffer from its first element: element
  // [0, 0]'s linear offset, from the memref's static strides.
  auto memrefType = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  if (failed(memrefType.getStridesAndOffset(strides, staticOffset)) ||
      staticOffset != 0 || llvm::is_contained(strides, ShapedType::kDynamic))
    return std::nullopt;
  // A kernel's buffers are whole variables; anything else (a view, a
  // function's argument) keeps the workgroup-memory form.
  Operation *definition = memref.getDefiningOp();
  auto argument = dyn_cast<BlockArgument>(memref);
  bool kernelArgument =
      argument && isa<gpu::GPUFuncOp>(argument.getOwner()->getParentOp()) &&
      cast<gpu::GPUFuncOp>(argument.getOwner()->getParentOp()).isKernel();
  if (!kernelArgument &&
      !isa_and_nonnull<memref::AllocOp, memref::GetGlobalOp>(definition))
    return std::nullopt;

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  Location loc = op->getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value offset = constant(0);
  for (auto [index, memrefStride] : llvm::zip(indices, strides))
    offset = arith::AddIOp::create(
        builder, loc, offset,
        arith::MulIOp::create(builder, loc, index, constant(memrefStride)));
  auto type = cast<SubgroupMatrixTypeInterface>(matrix.getType());
  // The clip: the bounds, within the matrix.
  auto clip = [&](Value bound, int64_t extent) -> Value {
    Value positive = arith::MaxSIOp::create(builder, loc, bound, constant(0));
    return arith::MinSIOp::create(builder, loc, positive, constant(extent));
  };
  Value clipRows = clip(bounds[0], type.getRows());
  Value clipColumns = clip(bounds[1], type.getColumns());
  // The view maps the clipped matrix's row-major index back to (row,
  // column), or to (column, row) through the permutation, and the view's
  // strides to `stride * major + minor`.
  SmallVector<Value> operands(TensorAccessOperandCount);
  operands[TensorAccessBuffer] = memref;
  operands[TensorAccessMatrix] = matrix;
  operands[TensorAccessOffset] = offset;
  operands[TensorAccessStride] = stride;
  operands[TensorAccessViewDimension0] = colMajor ? clipColumns : clipRows;
  operands[TensorAccessViewDimension1] = colMajor ? clipRows : clipColumns;
  operands[TensorAccessClipRows] = clipRows;
  operands[TensorAccessClipColumns] = clipColumns;
  operands[TensorAccessPermutation0] = constant(colMajor ? 1 : 0);
  operands[TensorAccessPermutation1] = constant(colMajor ? 0 : 1);
  operands[TensorAccessZero] = constant(0);
  operands[TensorAccessOne] = constant(1);
  operands[TensorAccessTwo] = constant(2);
  operands[TensorAccessTrue] =
      arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1);
  // Large enough that no element is outside the layout: the view's clip
  // does the bounding.
  operands[TensorAccessExtent] = constant(std::numeric_limits<int32_t>::max());
  return operands;
}

bool CooperativeMatrix2Builder::tryReplace(LoadOp op) {
  if (!op.isBounded() || !has(CooperativeMatrix2Feature::TensorAddressing))
    return false;
  // The elements the view clips keep the values of this matrix: zeros.
  Type scalar = getScalarType(op.getMatrixType().getElementType());
  Value zeros;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    Value zero = arith::ConstantOp::create(builder, op.getLoc(),
                                           builder.getZeroAttr(scalar));
    zeros = SplatOp::create(builder, op.getLoc(), op.getType(), zero);
  }
  std::optional<SmallVector<Value>> operands = buildTensorAccessOperands(
      op, op.getSource(), op.getIndices(), op.getStride(), op.getBounds(),
      op.getColMajor(), zeros);
  if (!operands) {
    zeros.getDefiningOp()->erase();
    return false;
  }
  func::FuncOp standIn = createStandIn(
      CooperativeMatrix2Instruction::LoadTensor,
      ValueRange(*operands).getTypes(), op.getType(), nullptr, op.getLoc());
  replaceWithCall(op, standIn, *operands);
  return true;
}

bool CooperativeMatrix2Builder::tryReplace(StoreOp op) {
  if (!op.isBounded() || !has(CooperativeMatrix2Feature::TensorAddressing))
    return false;
  std::optional<SmallVector<Value>> operands = buildTensorAccessOperands(
      op, op.getTarget(), op.getIndices(), op.getStride(), op.getBounds(),
      op.getColMajor(), op.getValue());
  if (!operands)
    return false;
  func::FuncOp standIn = createStandIn(
      CooperativeMatrix2Instruction::StoreTensor,
      ValueRange(*operands).getTypes(), Type(), nullptr, op.getLoc());
  replaceWithCall(op, standIn, *operands);
  return true;
}

/// Whether `value` is an argument of a kernel: a buffer, or a scalar, each
/// a variable of its own in SPIR-V, which a decode function can read as the
/// kernel does.
static bool isKernelArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return false;
  auto kernel = dyn_cast<gpu::GPUFuncOp>(argument.getOwner()->getParentOp());
  return kernel && kernel.isKernel() &&
         argument.getOwner() == &kernel.getBody().front();
}

bool CooperativeMatrix2Builder::tryReplace(DecodeLoadOp op) {
  if (!has(CooperativeMatrix2Feature::TensorAddressing |
           CooperativeMatrix2Feature::BlockLoads))
    return false;
  // The decode function sees only the element's position: what else the
  // body uses must be a constant, cloned into it, or an argument of the
  // kernel (a buffer or a scalar), which the binary step hands it.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getBody(), captured);
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value value : captured) {
    if (isKernelArgument(value))
      arguments.push_back(value);
    else if (Operation *constant = value.getDefiningOp<arith::ConstantOp>())
      constants.push_back(constant);
    else
      return false;
  }
  // The load passes the decode function a pointer into a buffer; it is
  // the first one the body reads (and the function does not use it).
  auto firstBuffer = llvm::find_if(
      arguments, [](Value value) { return isa<MemRefType>(value.getType()); });
  if (firstBuffer == arguments.end())
    return false;
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  Type storage = getStorageType(type.getElementType());
  SmallVector<Type> parameters = {builder.getIndexType(),
                                  builder.getIndexType()};
  llvm::append_range(parameters, ValueRange(arguments).getTypes());
  func::FuncOp decode = createFunction(
      getCooperativeMatrix2DecodeFunctionPrefix(), parameters, storage, loc);
  {
    Block &entry = decode.front();
    IRMapping mapping;
    mapping.map(op.getTensorRow(), entry.getArgument(0));
    mapping.map(op.getTensorColumn(), entry.getArgument(1));
    for (auto [value, parameter] :
         llvm::zip(arguments, entry.getArguments().drop_front(2)))
      mapping.map(value, parameter);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&entry);
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (Operation &inner : op.getBodyBlock().without_terminator())
      builder.clone(inner, mapping);
    func::ReturnOp::create(builder, loc,
                           mapping.lookupOrDefault(op.getYieldedValue()));
  }

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value zero = arith::ConstantOp::create(
      builder, loc, builder.getZeroAttr(getScalarType(type.getElementType())));
  SmallVector<Value> operands(DecodeAccessOperandCount);
  operands[DecodeAccessBuffer] = *firstBuffer;
  operands[DecodeAccessMatrix] =
      SplatOp::create(builder, loc, op.getType(), zero);
  operands[DecodeAccessRow] = op.getRow();
  operands[DecodeAccessColumn] = op.getColumn();
  operands[DecodeAccessRows] = op.getRows();
  operands[DecodeAccessColumns] = op.getColumns();
  operands[DecodeAccessMatrixRows] = index(type.getRows());
  operands[DecodeAccessMatrixColumns] = index(type.getColumns());
  operands[DecodeAccessZero] = index(0);
  operands[DecodeAccessOne] = index(1);
  operands[DecodeAccessTwo] = index(2);
  llvm::append_range(operands, arguments);
  func::FuncOp standIn = createStandIn(
      CooperativeMatrix2Instruction::DecodeLoadTensor,
      ValueRange(operands).getTypes(), op.getType(), nullptr, loc);
  {
    // The stand-in calls the decode function with its own arguments (a
    // buffer has no undefined value).
    OpBuilder::InsertionGuard bodyGuard(builder);
    builder.setInsertionPointToStart(&standIn.front());
    SmallVector<Value> callArguments = {
        ub::PoisonOp::create(builder, loc, builder.getIndexType()),
        ub::PoisonOp::create(builder, loc, builder.getIndexType())};
    llvm::append_range(callArguments, standIn.getArguments().drop_front(
                                          DecodeAccessOperandCount));
    func::CallOp::create(builder, loc, decode, callArguments);
  }
  replaceWithCall(op, standIn, operands);
  return true;
}

namespace {
struct UseNVCooperativeMatrix2Pass
    : public subgroup_matrix::impl::UseNVCooperativeMatrix2PassBase<
          UseNVCooperativeMatrix2Pass> {
  using UseNVCooperativeMatrix2PassBase::UseNVCooperativeMatrix2PassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      TargetAttr target = getLoweringTargetOrError(kernels, TargetAttr());
      if (!target)
        return signalPassFailure();
      CooperativeMatrix2Feature features = target.getCoopmat2Features();
      if (features == CooperativeMatrix2Feature::None || target.getEmulated())
        continue;
      CooperativeMatrix2Builder builder(kernels, features);
      SmallVector<Operation *> candidates;
      kernels.walk([&](Operation *op) {
        if (isa<ReduceOp, MapOp, ConvertOp, LoadOp, StoreOp, DecodeLoadOp>(op))
          candidates.push_back(op);
      });
      for (Operation *op : candidates)
        TypeSwitch<Operation *>(op)
            .Case<ReduceOp, MapOp, ConvertOp, LoadOp, StoreOp, DecodeLoadOp>(
                [&](auto typed) { builder.tryReplace(typed); });
    }
  }
};
} // namespace
