//===- MultiplyPatterns.cpp - mma, multiply and scalar ops ----------------===//
//
// `mma` and `multiply` as calls of the Intel builtin (one per 8-row chunk
// and subgroup-wide column tile) or, emulated, as multiply-adds with operands
// from other invocations; scalar ops element by element.
//
//===----------------------------------------------------------------------===//

#include "InvocationBuilder.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::per_invocation;

//===----------------------------------------------------------------------===//
// Builtin names
//===----------------------------------------------------------------------===//

/// Itanium mangling of a builtin argument type, with the substitutions that
/// repeated vector types take.
static std::string mangleType(Type type,
                              SmallVectorImpl<std::string> &substitutable) {
  auto scalar = [](Type element) -> std::string {
    if (element.isF32())
      return "f";
    if (element.isF16())
      return "Dh";
    switch (element.getIntOrFloatBitWidth()) {
    case 8:
      return "c";
    case 16:
      return "s";
    case 64:
      return "l";
    default:
      return "i";
    }
  };
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return scalar(type);
  std::string text = "Dv" + std::to_string(vector.getNumElements()) + "_" +
                     scalar(vector.getElementType());
  for (auto [index, seen] : llvm::enumerate(substitutable))
    if (seen == text)
      return index == 0 ? "S_" : "S" + std::to_string(index - 1) + "_";
  substitutable.push_back(text);
  return text;
}

std::string mlir::subgroup_matrix::getIntelMultiplyBuiltinName(Type a, Type b,
                                                               Type c) {
  SmallVector<std::string> substitutable;
  std::string name = "__spirv_SubgroupMatrixMultiplyAccumulateINTEL";
  std::string mangled = "_Z" + std::to_string(name.size()) + name + "i";
  mangled += mangleType(a, substitutable);
  mangled += mangleType(b, substitutable);
  mangled += mangleType(c, substitutable);
  return mangled + "i";
}

uint32_t mlir::subgroup_matrix::getIntelMultiplyOperands(Type component) {
  if (component.isF16())
    return 0x400 | 0x800; // MatrixA/BPackedFloat16INTEL
  if (component.isBF16())
    return 0x1000 | 0x2000; // MatrixA/BPackedBFloat16INTEL
  if (component.isF32())
    return 0x100 | 0x200; // MatrixA/BTF32INTEL
  auto integer = cast<IntegerType>(component);
  uint32_t operands = 0x10 | 0x20; // MatrixA/BPackedInt8INTEL
  if (integer.isSigned())
    operands |= 0x1 | 0x2; // MatrixA/BSignedComponentsINTEL
  return operands;
}

namespace {
/// Lowers `mma` (with an accumulator) and `multiply` (with zeros).
template <typename OpTy> struct MultiplyLowering : IntelPattern<OpTy> {
  using IntelPattern<OpTy>::IntelPattern;
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto layouts = this->getProductLayouts(op);
    if (failed(layouts))
      return failure();
    const InvocationLayout *left = &layouts->left, *right = &layouts->right,
                           *result = &layouts->result;
    Value accumulator;
    if constexpr (std::is_same_v<OpTy, MmaOp>)
      accumulator = adaptor.getAcc().front();
    else
      accumulator = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(result->getVectorType()));

    auto module = op->template getParentOfType<gpu::GPUModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not in a gpu.module");
    Type component = left->component;
    Value k = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                           getIntelK(component));
    Value operands =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                     getIntelMultiplyOperands(component));
    unsigned rightPerTile = right->packedCount / right->tiles;
    Value output = accumulator;
    for (unsigned chunk = 0; chunk < left->chunks; ++chunk) {
      Value a = slice(rewriter, loc, adaptor.getLeft().front(),
                      chunk * left->leftPerChunk, left->leftPerChunk);
      for (unsigned tile = 0; tile < right->tiles; ++tile) {
        Value bTile = slice(rewriter, loc, adaptor.getRight().front(),
                            tile * rightPerTile, rightPerTile);
        unsigned offset = tile * result->rows + chunk * result->chunkRows;
        Value c = slice(rewriter, loc, accumulator, offset, result->chunkRows);
        std::string name = getIntelMultiplyBuiltinName(
            a.getType(), bTile.getType(), c.getType());
        auto function =
            getOrDeclareBuiltin(rewriter, module, name,
                                {k.getType(), a.getType(), bTile.getType(),
                                 c.getType(), operands.getType()},
                                c.getType());
        Value d = func::CallOp::create(rewriter, loc, function,
                                       ValueRange{k, a, bTile, c, operands})
                      .getResult(0);
        output = insert(rewriter, loc, d, output, offset);
      }
    }
    rewriter.replaceOp(op, output);
    return success();
  }
};

/// Scalar ops work element by element on the invocation's slice: unpack,
/// apply the component-typed operation, pack again.
template <typename OpTy> struct ScalarOpLowering : IntelPattern<OpTy> {
  using IntelPattern<OpTy>::IntelPattern;
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<InvocationLayout> layout = this->getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    InvocationBuilder b(rewriter, loc, this->emulated);
    Type component = layout->component;
    Value scalar = scalarToComponent(rewriter, loc, adaptor.getScalar().front(),
                                     component);
    bool isFloat = isa<FloatType>(component);
    // 16-bit floats compute in f32 and round once, which is exact for one
    // operation.
    Type f32 = rewriter.getF32Type();
    if (isFloat && !component.isF32())
      scalar = arith::ExtFOp::create(rewriter, loc, f32, scalar);
    SmallVector<Value> packedElements;
    SmallVector<Value> slots = getSlots(rewriter, loc, adaptor.getMatrix());
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      Value packed = slots[p];
      SmallVector<Value> elements;
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        Value element = b.unpack(*layout, packed, s);
        if (isFloat && !component.isF32())
          element = arith::ExtFOp::create(rewriter, loc, f32, element);
        Value computed = compute(rewriter, loc, isFloat, element, scalar);
        if (isFloat && !component.isF32())
          computed =
              arith::TruncFOp::create(rewriter, loc, component, computed);
        elements.push_back(computed);
      }
      packedElements.push_back(b.pack(*layout, elements));
    }
    replaceWithSlots(rewriter, op, *layout, packedElements);
    return success();
  }

  static Value compute(OpBuilder &builder, Location loc, bool isFloat, Value a,
                       Value b) {
    if constexpr (std::is_same_v<OpTy, ScalarAddOp>)
      return isFloat ? arith::AddFOp::create(builder, loc, a, b).getResult()
                     : arith::AddIOp::create(builder, loc, a, b).getResult();
    if constexpr (std::is_same_v<OpTy, ScalarSubOp>)
      return isFloat ? arith::SubFOp::create(builder, loc, a, b).getResult()
                     : arith::SubIOp::create(builder, loc, a, b).getResult();
    if constexpr (std::is_same_v<OpTy, ScalarMulOp>)
      return isFloat ? arith::MulFOp::create(builder, loc, a, b).getResult()
                     : arith::MulIOp::create(builder, loc, a, b).getResult();
    return arith::DivFOp::create(builder, loc, a, b);
  }
};

/// Where an emulated multiplication reads an operand's elements: element
/// (row, column) is at `start + row * rowStride + column * columnStride` in
/// `memory`, as 32-bit words of the compute type (`words`, the exchange
/// scratch) or in the component's storage type (read in place).
struct OperandInMemory {
  Value memory, start, rowStride, columnStride;
  bool words = false;

  explicit operator bool() const { return bool(memory); }
};

/// Lowers `mma` and `multiply` of the emulated form: every invocation sums,
/// for each of its result slots, the K products of its row of the left and
/// its column of the right matrix, in f32 (floats) or 32-bit integers, and
/// rounds once. Operand elements held by other invocations are read from
/// the workgroup memory the operand was loaded from (operands in the
/// exchange's `readInPlace`), or come by shuffle (each distinct fetch once
/// per op; the emulated layout keeps the right matrix's column local and
/// broadcasts each left element) or, with an exchange scratch buffer,
/// through workgroup memory.
template <typename OpTy> struct EmulatedMultiplyLowering : IntelPattern<OpTy> {
  EmulatedMultiplyLowering(const TypeConverter &converter, MLIRContext *context,
                           unsigned subgroupSize,
                           const EmulatedOperandExchange &exchange)
      : IntelPattern<OpTy>(converter, context, subgroupSize,
                           /*emulated=*/true),
        exchange(exchange) {}
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  EmulatedOperandExchange exchange;

  /// Writes `slots` (widened to `computeType`) into this subgroup's scratch
  /// at `offset`, row-major, and returns the address of element (0, 0).
  Value writeToScratch(InvocationBuilder &b, const InvocationLayout &layout,
                       ArrayRef<Value> slots, Value subgroupBase,
                       int64_t offset,
                       llvm::function_ref<Value(Value)> toWord) const {
    OpBuilder &builder = b.builder;
    Location loc = b.loc;
    Value start =
        arith::AddIOp::create(builder, loc, subgroupBase, b.index(offset));
    for (unsigned p = 0; p < layout.packedCount; ++p) {
      auto [row, column, valid] = b.locate(layout, p, 0);
      Value address = arith::AddIOp::create(
          builder, loc, start,
          arith::AddIOp::create(
              builder, loc,
              arith::MulIOp::create(builder, loc, row, b.index(layout.columns)),
              column));
      Value word = toWord(slots[p]);
      if (!valid) {
        memref::StoreOp::create(builder, loc, word, exchange.scratch, address);
        continue;
      }
      auto guard = scf::IfOp::create(builder, loc, valid,
                                     /*withElseRegion=*/false);
      OpBuilder::InsertionGuard insertion(builder);
      builder.setInsertionPoint(guard.thenBlock()->getTerminator());
      memref::StoreOp::create(builder, loc, word, exchange.scratch, address);
    }
    return start;
  }

  /// The memory `operand` (read in place) was loaded from.
  static OperandInMemory getLoadedMemory(InvocationBuilder &b,
                                         OpOperand &operand) {
    auto load = operand.get().template getDefiningOp<LoadOp>();
    FailureOr<std::pair<Value, Value>> flat =
        flatten(load, b.builder, load.getSource(), load.getIndices());
    if (failed(flat))
      return {};
    Value stride = load.getStride(), one = b.index(1);
    OperandInMemory memory{flat->first, flat->second, stride, one};
    if (load.getColMajor())
      std::swap(memory.rowStride, memory.columnStride);
    return memory;
  }

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto layouts = this->getProductLayouts(op);
    if (failed(layouts))
      return failure();
    const InvocationLayout *left = &layouts->left, *right = &layouts->right,
                           *result = &layouts->result;
    InvocationBuilder b(rewriter, loc, /*scalarOnly=*/true);
    SmallVector<Value> leftSlots = getSlots(rewriter, loc, adaptor.getLeft());
    SmallVector<Value> rightSlots = getSlots(rewriter, loc, adaptor.getRight());
    SmallVector<Value> accumulators;
    if constexpr (std::is_same_v<OpTy, MmaOp>)
      accumulators = getSlots(rewriter, loc, adaptor.getAcc());
    auto leftHolders = getHolders(*left), rightHolders = getHolders(*right);

    Type resultComponent = result->component;
    bool isFloat = isa<FloatType>(resultComponent);
    Type computeType =
        isFloat ? Type(rewriter.getF32Type()) : Type(rewriter.getI32Type());
    auto widen = [&](Value value, Type component) -> Value {
      if (component.isBF16())
        return bfloat16ToF32(rewriter, loc, value);
      if (value.getType() == computeType)
        return value;
      if (isFloat)
        return arith::ExtFOp::create(rewriter, loc, computeType, value);
      if (cast<IntegerType>(component).isSigned())
        return arith::ExtSIOp::create(rewriter, loc, computeType, value);
      return arith::ExtUIOp::create(rewriter, loc, computeType, value);
    };
    // One fetch per operand and per distinct set of sources.
    std::map<std::pair<bool, std::vector<unsigned>>, Value> fetched;
    auto fetch = [&](bool fromLeft, ArrayRef<ElementSource> sources) {
      std::vector<unsigned> key;
      for (const ElementSource &source : sources)
        key.insert(key.end(), {source.lane, source.packed, source.sub});
      Value &value = fetched[{fromLeft, key}];
      if (!value) {
        const InvocationLayout &layout = fromLeft ? *left : *right;
        value = widen(gatherElement(b, fromLeft ? leftSlots : rightSlots,
                                    layout, sources),
                      layout.component);
      }
      return value;
    };

    OpOperand &leftOperand = op->getOpOperand(0);
    OpOperand &rightOperand = op->getOpOperand(1);
    bool leftInPlace = exchange.readInPlace.contains(&leftOperand);
    bool rightInPlace = exchange.readInPlace.contains(&rightOperand);
    OperandInMemory leftMemory, rightMemory;
    if (leftInPlace)
      leftMemory = getLoadedMemory(b, leftOperand);
    if (rightInPlace)
      rightMemory = getLoadedMemory(b, rightOperand);
    if ((leftInPlace && !leftMemory) || (rightInPlace && !rightMemory))
      return failure();

    unsigned lanes = result->subgroupSize, depth = left->columns;
    // Through workgroup memory: the operands go there as 32-bit words of the
    // compute type, between barriers (the first keeps the previous
    // multiplication's reads before these writes).
    auto toWord = [&](Value slot, Type component) -> Value {
      Value wide = widen(slot, component);
      return isFloat ? arith::BitcastOp::create(rewriter, loc,
                                                rewriter.getI32Type(), wide)
                           .getResult()
                     : wide;
    };
    bool exchangeLeft = !leftInPlace;
    bool exchangeRight = exchangesRight(*right, rightInPlace);
    if (exchange.scratch && (exchangeLeft || exchangeRight)) {
      Value subgroupBase = arith::MulIOp::create(
          rewriter, loc, gpu::SubgroupIdOp::create(rewriter, loc, nullptr),
          b.index(exchange.wordsPerSubgroup));
      SubgroupBarrierOp::create(rewriter, loc);
      int64_t offset = 0;
      if (exchangeLeft) {
        leftMemory = {exchange.scratch,
                      writeToScratch(b, *left, leftSlots, subgroupBase, 0,
                                     [&](Value slot) {
                                       return toWord(slot, left->component);
                                     }),
                      b.index(depth), b.index(1), /*words=*/true};
        offset = int64_t(left->rows) * left->columns;
      }
      if (exchangeRight)
        rightMemory = {exchange.scratch,
                       writeToScratch(b, *right, rightSlots, subgroupBase,
                                      offset,
                                      [&](Value slot) {
                                        return toWord(slot, right->component);
                                      }),
                       b.index(right->columns), b.index(1), /*words=*/true};
      SubgroupBarrierOp::create(rewriter, loc);
    }
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulIOp::create(rewriter, loc, x, y);
    };
    auto add = [&](Value x, Value y) -> Value {
      return arith::AddIOp::create(rewriter, loc, x, y);
    };
    auto read = [&](const OperandInMemory &memory, Value address,
                    Type component) -> Value {
      Value element =
          memref::LoadOp::create(rewriter, loc, memory.memory, address);
      if (!memory.words) {
        // bf16 is held as its bits.
        if (component.isBF16() && element.getType() != component)
          element = arith::BitcastOp::create(rewriter, loc, component, element);
        return widen(element, component);
      }
      return isFloat
                 ? arith::BitcastOp::create(rewriter, loc, computeType, element)
                       .getResult()
                 : element;
    };
    // Slots in the same row (column) read the same left (right) elements
    // from memory: one read each, keyed by the lanes' rows (columns) and k.
    std::map<std::tuple<bool, std::vector<unsigned>, unsigned>, Value> reads;
    auto readOnce = [&](bool fromLeft, ArrayRef<unsigned> lines, unsigned k,
                        llvm::function_ref<Value()> emitRead) {
      Value &value = reads[{fromLeft, std::vector<unsigned>(lines), k}];
      if (!value)
        value = emitRead();
      return value;
    };
    SmallVector<Value> outputs;
    for (unsigned p = 0; p < result->packedCount; ++p) {
      SmallVector<InvocationLayout::Position> positions;
      SmallVector<unsigned> rows, columns;
      for (unsigned lane = 0; lane < lanes; ++lane) {
        positions.push_back(result->getPosition(lane, p, 0));
        rows.push_back(positions.back().row);
        columns.push_back(positions.back().column);
      }
      // In memory: where this slot's row of the left operand starts, and its
      // column of the right one.
      Value leftRow, rightColumn;
      if (leftMemory || rightMemory) {
        auto [row, column, valid] = b.locate(*result, p, 0);
        if (leftMemory)
          leftRow = add(leftMemory.start, mul(row, leftMemory.rowStride));
        if (rightMemory)
          rightColumn =
              add(rightMemory.start, mul(column, rightMemory.columnStride));
      }
      Value total = accumulators.empty()
                        ? arith::ConstantOp::create(
                              rewriter, loc, rewriter.getZeroAttr(computeType))
                              .getResult()
                        : widen(accumulators[p], resultComponent);
      for (unsigned k = 0; k < depth; ++k) {
        // Padding slots (rows past the matrix) compute anything; their
        // lanes read their own first slot.
        SmallVector<ElementSource> leftSources, rightSources;
        for (auto [lane, position] : llvm::enumerate(positions)) {
          if (!position.valid) {
            leftSources.push_back({unsigned(lane), 0, 0});
            rightSources.push_back({unsigned(lane), 0, 0});
            continue;
          }
          leftSources.push_back(leftHolders.lookup({position.row, k}));
          rightSources.push_back(rightHolders.lookup({k, position.column}));
        }
        Value x =
            leftRow ? readOnce(true, rows, k,
                               [&] {
                                 return read(
                                     leftMemory,
                                     add(leftRow, mul(b.index(k),
                                                      leftMemory.columnStride)),
                                     left->component);
                               })
                    : fetch(true, leftSources);
        Value y = rightColumn
                      ? readOnce(false, columns, k,
                                 [&] {
                                   return read(rightMemory,
                                               add(rightColumn,
                                                   mul(b.index(k),
                                                       rightMemory.rowStride)),
                                               right->component);
                                 })
                      : fetch(false, rightSources);
        Value product;
        if (isFloat)
          product = arith::MulFOp::create(rewriter, loc, x, y);
        else
          product = arith::MulIOp::create(rewriter, loc, x, y);
        total = isFloat ? arith::AddFOp::create(rewriter, loc, total, product)
                              .getResult()
                        : arith::AddIOp::create(rewriter, loc, total, product)
                              .getResult();
      }
      if (resultComponent.isBF16())
        total = f32ToBFloat16(rewriter, loc, total);
      else if (isFloat && !resultComponent.isF32())
        total = arith::TruncFOp::create(rewriter, loc, resultComponent, total);
      outputs.push_back(total);
    }
    replaceWithSlots(rewriter, op, *result, outputs);
    return success();
  }
};

} // namespace

void mlir::subgroup_matrix::per_invocation::populateMultiplyPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, bool emulated) {
  patterns.add<MultiplyLowering<MmaOp>, MultiplyLowering<MultiplyOp>>(
      converter, patterns.getContext(), subgroupSize, emulated);
}

void mlir::subgroup_matrix::per_invocation::populateScalarOpPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, bool emulated) {
  patterns.add<ScalarOpLowering<ScalarAddOp>, ScalarOpLowering<ScalarSubOp>,
               ScalarOpLowering<ScalarMulOp>, ScalarOpLowering<ScalarDivOp>>(
      converter, patterns.getContext(), subgroupSize, emulated);
}

void mlir::subgroup_matrix::per_invocation::populateEmulatedMultiplyPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, const EmulatedOperandExchange &exchange) {
  patterns.add<EmulatedMultiplyLowering<MmaOp>,
               EmulatedMultiplyLowering<MultiplyOp>>(
      converter, patterns.getContext(), subgroupSize, exchange);
}
