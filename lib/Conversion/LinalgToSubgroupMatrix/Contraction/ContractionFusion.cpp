//===- ContractionFusion.cpp - neighbours a contraction's kernel takes ----===//
//
// The element-wise ops around a contraction that its kernel takes over:
// extensions and element-wise producers of its inputs applied as it stages
// them (prologues), gathering producers (an im2col window, a padded copy,
// dequantization) computed element by element from the buffers they read,
// and element-wise consumers of its result applied to the accumulators
// before the one store (the epilogue). Contraction.cpp reads the
// contraction itself.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Whether `op` is element-wise: every loop parallel, the output written
/// through the identity.
static bool isElementwise(linalg::GenericOp op) {
  return op.getNumDpsInits() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op.getIndexingMapsArray().back().isIdentity();
}

bool mlir::subgroup_matrix::isUnaryElementwise(linalg::GenericOp op) {
  return op.getNumDpsInputs() == 1 && op.getNumDpsInits() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

bool mlir::subgroup_matrix::isPrivateTemporary(Value buffer,
                                               ArrayRef<Operation *> uses) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return isa<memref::DeallocOp>(user) || llvm::is_contained(uses, user);
  });
}

/// The linalg.generic that writes `buffer`, a temporary only it and
/// `reader` (later in the same block: the contraction, or a view of the
/// buffer that only the contraction reads) use: a producer the kernel could
/// take over.
static linalg::GenericOp getPrivateProducer(Value buffer,
                                            linalg::LinalgOp contraction,
                                            Operation *reader = nullptr) {
  if (!reader)
    reader = contraction;
  linalg::GenericOp producer;
  for (Operation *user : buffer.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (generic && generic.getNumDpsInits() == 1 &&
        generic.getDpsInits()[0] == buffer)
      producer = generic;
  }
  if (!producer || producer->getBlock() != contraction->getBlock() ||
      !producer->isBeforeInBlock(contraction) ||
      !isPrivateTemporary(buffer, {producer, reader}))
    return {};
  return producer;
}

/// The private producer of `buffer` when it is element-wise with one
/// input.
static linalg::GenericOp getFusableProducer(Value buffer,
                                            linalg::LinalgOp contraction) {
  linalg::GenericOp producer = getPrivateProducer(buffer, contraction);
  if (!producer || !isUnaryElementwise(producer))
    return {};
  return producer;
}

/// The writer of `buffer` that an extension of A or B is: a linalg.generic
/// that extends each element of one input, and what it reads.
static std::optional<std::pair<linalg::GenericOp, Type>>
matchExtension(Value buffer, linalg::LinalgOp contraction) {
  linalg::GenericOp producer = getFusableProducer(buffer, contraction);
  if (!producer)
    return std::nullopt;
  Block &body = producer.getRegion().front();
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation &extension = body.front();
  if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::ExtFOp>(extension) ||
      extension.getOperand(0) != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != extension.getResult(0))
    return std::nullopt;
  Type source = extension.getOperand(0).getType();
  Type component = getComponent(source, isa<arith::ExtUIOp>(extension));
  return std::make_pair(producer, component);
}

/// Whether the fusion decided for `contraction` (by the plan stage, or here
/// where it decided none) takes `candidate` in: ops of its group where
/// there is one, else ops of no group.
static bool isFusionDecided(const Contraction &contraction,
                            Operation *candidate) {
  return candidate->getAttr(SubgroupMatrixDialect::getFusionGroupAttrName()) ==
         contraction.fusionGroup;
}

/// Takes over extensions of both inputs when what remains is a
/// multiplication of the narrower type into the same accumulator that
/// `target` does not widen back.
static void fuseExtensions(Contraction &contraction, TargetAttr target) {
  auto a = matchExtension(contraction.a.buffer, contraction.op);
  auto b = matchExtension(contraction.b.buffer, contraction.op);
  if (!a || !b || a->second != b->second ||
      !isFusionDecided(contraction, a->first) ||
      !isFusionDecided(contraction, b->first))
    return;
  Type component = a->second;
  Type result = contraction.resultComponent;
  if (auto integer = dyn_cast<IntegerType>(result))
    result =
        getComponent(getStorageType(result), component.isUnsignedInteger());
  if (!isValidAccumulatorType(component, result) ||
      chooseProductForm(component, result, target) == ProductForm::Widened)
    return;
  contraction.inputComponent = component;
  contraction.resultComponent = result;
  for (auto [input, producer] : {std::make_pair(&contraction.a, a->first),
                                 std::make_pair(&contraction.b, b->first)}) {
    contraction.deadAllocations.insert(input->buffer.getDefiningOp());
    input->buffer = producer.getDpsInputs()[0];
    contraction.fusedProducers.insert(producer);
  }
}

static bool hasScalarBody(linalg::GenericOp op, bool allowIndices = false);

bool mlir::subgroup_matrix::isMultiplyAccumulateBody(Block &body) {
  return linalg::detail::isContractionBody(
      body, [](Operation *multiply, Operation *add) {
        return (isa<arith::MulFOp>(multiply) && isa<arith::AddFOp>(add)) ||
               (isa<arith::MulIOp>(multiply) && isa<arith::AddIOp>(add));
      });
}

bool mlir::subgroup_matrix::isQuantizedMultiplyAccumulateBody(Block &body) {
  if (body.getNumArguments() != 5)
    return false;
  for (Operation &op : body.without_terminator())
    if (!isa<arith::ExtSIOp, arith::SubIOp, arith::MulIOp, arith::AddIOp>(op))
      return false;
  auto withoutExtension = [](Value value) {
    if (auto extension = value.getDefiningOp<arith::ExtSIOp>())
      return extension.getIn();
    return value;
  };
  // `value` - `zero`, of the arguments at those positions.
  auto isShifted = [&](Value difference, unsigned value, unsigned zero) {
    auto subtract = difference.getDefiningOp<arith::SubIOp>();
    return subtract &&
           withoutExtension(subtract.getLhs()) == body.getArgument(value) &&
           withoutExtension(subtract.getRhs()) == body.getArgument(zero);
  };
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value accumulator = body.getArgument(4);
  Value product = add.getLhs() == accumulator   ? add.getRhs()
                  : add.getRhs() == accumulator ? add.getLhs()
                                                : Value();
  auto multiply = product ? product.getDefiningOp<arith::MulIOp>() : nullptr;
  return multiply && ((isShifted(multiply.getLhs(), 0, 2) &&
                       isShifted(multiply.getRhs(), 1, 3)) ||
                      (isShifted(multiply.getLhs(), 1, 3) &&
                       isShifted(multiply.getRhs(), 0, 2)));
}

Value mlir::subgroup_matrix::emitIndex(OpBuilder &builder, Location loc,
                                       AffineExpr expr, ValueRange dims) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantIndexOp::create(builder, loc, constant.getValue());
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = emitIndex(builder, loc, binary.getLHS(), dims);
  Value rhs = emitIndex(builder, loc, binary.getRHS(), dims);
  switch (binary.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(builder, loc, lhs, rhs);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(builder, loc, lhs, rhs);
  // Indices and the constants they are divided by are never negative.
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(builder, loc, lhs, rhs);
  case AffineExprKind::Mod:
    return arith::RemUIOp::create(builder, loc, lhs, rhs);
  default:
    llvm_unreachable("not a computable index");
  }
}

/// Takes over the element-wise producer of A or B that keeps its element
/// type (a scale, an offset, a clamp): one input read through the identity,
/// a body of scalar arith/math ops, a temporary that only it and the
/// contraction use. Floats only: the kernel applies the body to elements
/// of f16 or f32 as it stages them.
static void fusePrologue(Contraction &contraction, ContractionInput &input) {
  Value buffer = input.buffer;
  linalg::GenericOp producer = getFusableProducer(buffer, contraction.op);
  if (!producer || !hasScalarBody(producer) ||
      !isFusionDecided(contraction, producer))
    return;
  Value source = producer.getDpsInputs()[0];
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  if (!sourceType || !sourceType.getLayout().isIdentity() ||
      sourceType.getElementType() != element ||
      !(element.isF16() || element.isF32()))
    return;
  input.prologue = producer;
  contraction.deadAllocations.insert(buffer.getDefiningOp());
  contraction.fusedProducers.insert(producer);
  input.buffer = source;
}

bool mlir::subgroup_matrix::isComputableIndex(AffineExpr expr) {
  if (isa<AffineDimExpr, AffineConstantExpr>(expr))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (binary.getKind() == AffineExprKind::Add)
    return isComputableIndex(binary.getLHS()) &&
           isComputableIndex(binary.getRHS());
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  return constant && constant.getValue() > 0 &&
         isComputableIndex(binary.getLHS());
}

/// The map from (row, column) of a matrix (or (batch, row, column) of
/// matrices) to the dimensions of the row-major `shape` it is the view
/// `groups` of.
static AffineMap getDelinearizationMap(ArrayRef<int64_t> shape,
                                       ArrayRef<ReassociationIndices> groups,
                                       MLIRContext *context) {
  SmallVector<AffineExpr> dims;
  for (auto [position, group] : llvm::enumerate(groups)) {
    AffineExpr linear = getAffineDimExpr(position, context);
    int64_t stride = 1;
    for (int64_t dim : group)
      stride *= shape[dim];
    for (auto [index, dim] : llvm::enumerate(group)) {
      stride /= shape[dim];
      AffineExpr expr = linear.floorDiv(stride);
      // The outermost dimension of a group needs no wrapping.
      dims.push_back(index == 0 ? expr : expr % shape[dim]);
    }
  }
  return AffineMap::get(groups.size(), 0, dims, context);
}

namespace {
/// A padded copy of a buffer, as a bufferized `tensor.pad` writes it: a
/// temporary filled with a constant, the source copied into a window of it.
struct PaddedCopy {
  Value buffer, source;
  SmallVector<int64_t> low;
  GatherPadding padding;
  /// The fill and the copy, which the kernel replaces.
  SmallVector<Operation *> writers;
};
} // namespace

/// The constant every element of `buffer` is set to by `writer`: a
/// linalg.fill, or the linalg.map / generic without inputs that a
/// bufferized tensor.pad writes (its indices unused).
static TypedAttr getConstantWritten(Operation *writer, Value buffer) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(writer);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInits()[0] != buffer)
    return {};
  Value written;
  if (auto fill = dyn_cast<linalg::FillOp>(writer)) {
    written = fill.getDpsInputs()[0];
  } else if (linalgOp.getNumDpsInputs() == 0 &&
             linalgOp->getNumRegions() == 1) {
    Block &body = linalgOp->getRegion(0).front();
    written = body.getTerminator()->getOperand(0);
    if (written.getParentBlock() == &body)
      return {};
  }
  TypedAttr value;
  if (!written || !matchPattern(written, m_Constant(&value)))
    return {};
  return value;
}

/// `buffer` as the padded copy of another one, when it is a temporary that
/// only `reader` (later in the same block) reads.
static std::optional<PaddedCopy> matchPaddedCopy(Value buffer,
                                                 Operation *reader) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!buffer.getDefiningOp<memref::AllocOp>() || !type.hasStaticShape())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp window;
  PaddedCopy padded;
  for (Operation *user : buffer.getUsers()) {
    if (user == reader || isa<memref::DeallocOp>(user))
      continue;
    if (auto value = getConstantWritten(user, buffer)) {
      if (fill)
        return std::nullopt;
      fill = user;
      padded.padding.value = value;
    } else if (auto subview = dyn_cast<memref::SubViewOp>(user);
               subview && !window) {
      window = subview;
    } else {
      return std::nullopt;
    }
  }
  if (!fill || !window || !window->hasOneUse() || !window.hasUnitStride() ||
      llvm::any_of(window.getStaticOffsets(), ShapedType::isDynamic))
    return std::nullopt;
  auto copy = dyn_cast<memref::CopyOp>(*window->getUsers().begin());
  if (!copy || copy.getTarget() != window.getResult())
    return std::nullopt;
  auto sourceType = dyn_cast<MemRefType>(copy.getSource().getType());
  if (!sourceType || !sourceType.getLayout().isIdentity() ||
      sourceType.getShape() != window.getType().getShape())
    return std::nullopt;
  // The fill, then the copy over it, then the read.
  if (fill->getBlock() != reader->getBlock() ||
      copy->getBlock() != reader->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(reader))
    return std::nullopt;
  padded.buffer = buffer;
  padded.source = copy.getSource();
  padded.low = llvm::to_vector(window.getStaticOffsets());
  for (auto [low, size, paddedSize] :
       llvm::zip(padded.low, sourceType.getShape(), type.getShape()))
    padded.padding.checked.push_back(low != 0 || size != paddedSize);
  padded.writers = {fill, copy};
  return padded;
}

/// Takes over the producer of A or B that the kernel can run per element
/// as it stages the tile, reading the producer's inputs itself through
/// their indexing maps: a dequantization (an 8-bit weight, or 4-bit values
/// packed two to a byte, times a scale per column or per group of K, maybe
/// minus a zero point), a cast of the activations, or the gathered window
/// of a convolution (written with more dimensions than the matrix, of
/// which the contraction reads a collapsed view). Loads stay in the stored
/// types, so the kernel moves the weight's bytes, not f16.
static void fuseGatheringPrologue(Contraction &contraction,
                                  ContractionInput &input) {
  // The kernel indexes a batched input by its batch (a group of a grouped
  // convolution), but not by the step of a batch summed over.
  if (input.batched && contraction.reducesBatch)
    return;
  Value buffer = input.buffer;
  auto bufferType = cast<MemRefType>(buffer.getType());
  if (input.batched &&
      (bufferType.getRank() != 3 || !bufferType.hasStaticShape()))
    return;
  // The maps of the producer are restated on the matrix's (row, column).
  Value written = buffer;
  auto view = buffer.getDefiningOp<memref::CollapseShapeOp>();
  if (view) {
    written = view.getSrc();
    if (!view->hasOneUse() || !bufferType.hasStaticShape())
      return;
  }
  linalg::GenericOp producer =
      getPrivateProducer(written, contraction.op, view);
  if (!producer || !isFusionDecided(contraction, producer) ||
      producer.getNumDpsInputs() == 0 ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      !producer.getIndexingMapsArray().back().isIdentity() ||
      !hasScalarBody(producer, /*allowIndices=*/!view && !input.batched))
    return;
  AffineMap toProducerLoops =
      view ? getDelinearizationMap(
                 cast<MemRefType>(written.getType()).getShape(),
                 view.getReassociationIndices(), producer.getContext())
           : AffineMap::getMultiDimIdentityMap(bufferType.getRank(),
                                               producer.getContext());
  if (toProducerLoops.getNumResults() != producer.getNumLoops())
    return;
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands = producer.getDpsInputs();
  SmallVector<std::optional<GatherPadding>> padding;
  SmallVector<PaddedCopy> paddedCopies;
  for (auto [operand, producerMap] :
       llvm::zip(operands, producer.getIndexingMapsArray())) {
    AffineMap map = producerMap.compose(toProducerLoops);
    // A padded input is read where it came from, out of its window.
    padding.emplace_back();
    if (std::optional<PaddedCopy> padded = matchPaddedCopy(operand, producer)) {
      SmallVector<AffineExpr> shifted;
      for (auto [expr, low] : llvm::zip(map.getResults(), padded->low))
        shifted.push_back(expr - low);
      map = AffineMap::get(map.getNumDims(), 0, shifted, map.getContext());
      operand = padded->source;
      padding.back() = padded->padding;
      paddedCopies.push_back(*padded);
    }
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getLayout().isIdentity() || map.getNumSymbols() ||
        type.getRank() != map.getNumResults() ||
        (type.getMemorySpace() &&
         !isa<gpu::AddressSpaceAttr>(type.getMemorySpace())) ||
        !llvm::all_of(map.getResults(), isComputableIndex))
      return;
    // The kernel flattens every input with its static strides; an input
    // indexed like the tile may have the contraction's dynamic sizes.
    bool likeTile =
        map.isIdentity() && type.getShape() == bufferType.getShape();
    if (!type.hasStaticShape() && !likeTile)
      return;
    maps.push_back(map);
  }
  // A producer that only moves and narrows one wider input (an attention's
  // f32 context transposed back from heads and rounded to f16) is cheaper as
  // a kernel of its own: a gathered tile is loaded element by element, in
  // the wide type, once per tile of the other operand, where the staged
  // copies of the narrow result are vectors.
  if (operands.size() == 1 && !maps[0].isIdentity() &&
      getElementTypeOrSelf(operands[0].getType()).getIntOrFloatBitWidth() >
          bufferType.getElementTypeBitWidth())
    return;
  // The host reads dynamic sizes off the first input, which must then
  // have the tile's shape.
  Value first = operands[0];
  if (!bufferType.hasStaticShape() &&
      (!maps[0].isIdentity() ||
       cast<MemRefType>(first.getType()).getShape() != bufferType.getShape()))
    return;
  input.prologue = producer;
  input.gathers = true;
  input.gatherMaps = std::move(maps);
  input.gatherPadding = std::move(padding);
  input.buffer = first;
  input.prologueOperands = llvm::to_vector(llvm::drop_begin(operands));
  if (view)
    contraction.deadAllocations.insert(view);
  contraction.deadAllocations.insert(written.getDefiningOp());
  contraction.fusedProducers.insert(producer);
  for (const PaddedCopy &padded : paddedCopies) {
    contraction.fusedProducers.insert_range(padded.writers);
    contraction.deadAllocations.insert(padded.buffer.getDefiningOp());
  }
}

/// How an epilogue input indexed by `map` reads, for a result of `rank`
/// dimensions (the first the batch when there are three).
static std::optional<EpilogueOperand> classifyEpilogueInput(AffineMap map,
                                                            int64_t rank) {
  // A scalar, which sm-bufferize-program made a one-element buffer.
  if (map.getNumResults() == 1)
    if (auto constant = dyn_cast<AffineConstantExpr>(map.getResult(0));
        constant && constant.getValue() == 0) {
      EpilogueOperand operand;
      operand.broadcast = EpilogueBroadcast::Everywhere;
      return operand;
    }
  std::optional<SmallVector<unsigned>> operandDims = getIndexingLoops(map);
  if (!operandDims)
    return std::nullopt;
  EpilogueOperand operand;
  ArrayRef<unsigned> rest = *operandDims;
  if (rank == 3 && !rest.empty() && rest.front() == 0) {
    operand.batched = true;
    rest = rest.drop_front();
  }
  unsigned row = rank - 2, column = rank - 1;
  if (rest.size() == 2 && rest[0] == row && rest[1] == column)
    operand.broadcast = EpilogueBroadcast::None;
  else if (rest.size() == 1 && rest[0] == column)
    operand.broadcast = EpilogueBroadcast::AlongRows;
  else if (rest.size() == 1 && rest[0] == row)
    operand.broadcast = EpilogueBroadcast::AlongColumns;
  else
    return std::nullopt;
  return operand;
}

/// Whether a body computes with scalars only (what a map body may hold),
/// and with `allowIndices` the loop indices.
static bool hasScalarBody(linalg::GenericOp op, bool allowIndices) {
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArguments().back();
  if (!out.use_empty())
    return false;
  // A scalar from outside that is not a constant (a function argument) is
  // an argument of an element-wise kernel, not of a product's.
  Value yielded = body.getTerminator()->getOperand(0);
  if (yielded.getParentBlock() != &body && !matchPattern(yielded, m_Constant()))
    return false;
  return llvm::all_of(body.without_terminator(), [&](Operation &inner) {
    // Values from outside can only be constants, which the kernel copies.
    bool capturesOnlyConstants =
        llvm::all_of(inner.getOperands(), [&](Value operand) {
          return operand.getParentBlock() == &body ||
                 matchPattern(operand, m_Constant());
        });
    if (allowIndices && isa<linalg::IndexOp>(inner))
      return true;
    return isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) &&
           inner.getNumRegions() == 0 && isPure(&inner) &&
           capturesOnlyConstants;
  });
}

/// Whether `buffer` holds its final value where `writer` runs, for
/// `consumer` (later in the block) to read it there instead: defined
/// before `writer`, and neither written nor viewed in between.
/// Moves the view ops that make `buffer` (a collapse_shape of a row sum
/// written before the product, made where its reader was) before `writer`
/// where what they view is defined there: a view reads no memory, so it
/// may be made earlier, and the product's kernel can then take it.
static void hoistViewsBefore(Value buffer, Operation *writer) {
  Operation *view = buffer.getDefiningOp();
  if (!view || !isa<ViewLikeOpInterface>(view) || !isPure(view) ||
      view->getBlock() != writer->getBlock() || view->isBeforeInBlock(writer))
    return;
  for (Value operand : view->getOperands())
    hoistViewsBefore(operand, writer);
  bool operandsReady = llvm::all_of(view->getOperands(), [&](Value operand) {
    Operation *definition = operand.getDefiningOp();
    return !definition || (definition->getBlock() == writer->getBlock() &&
                           definition->isBeforeInBlock(writer));
  });
  if (operandsReady)
    view->moveBefore(writer);
}

static bool isReadyBefore(Value buffer, Operation *writer,
                          Operation *consumer) {
  Operation *definition = buffer.getDefiningOp();
  if (definition && (definition->getBlock() != writer->getBlock() ||
                     !definition->isBeforeInBlock(writer)))
    return false;
  return llvm::none_of(buffer.getUsers(), [&](Operation *user) {
    bool between = user->getBlock() == writer->getBlock() &&
                   writer->isBeforeInBlock(user) &&
                   user->isBeforeInBlock(consumer);
    if (!between)
      return false;
    // A linalg op that only reads it is harmless; anything else (a write,
    // a copy, a view that may be written) is not.
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    return !linalgOp || llvm::is_contained(linalgOp.getDpsInits(), buffer);
  });
}

/// Adds the element-wise consumer of the current output, if it can run in
/// the kernel.
static bool fuseNextConsumer(Contraction &contraction, Operation *writer) {
  Value current = contraction.output;
  auto type = cast<MemRefType>(current.getType());
  int64_t rank = type.getRank();
  linalg::GenericOp consumer;
  for (Operation *user : current.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (generic && llvm::is_contained(generic.getDpsInputs(), current))
      consumer = generic;
  }
  if (!consumer || !isFusionDecided(contraction, consumer) ||
      !isElementwise(consumer) || consumer.getNumLoops() != unsigned(rank) ||
      !hasScalarBody(consumer) || consumer->getBlock() != writer->getBlock() ||
      !writer->isBeforeInBlock(consumer))
    return false;
  SmallVector<Operation *> uses = {writer, consumer};
  if (contraction.fill)
    uses.push_back(contraction.fill);
  // A consumer that writes the buffer it reads (a front-end's outs reusing
  // the product's tensor.empty) makes the kernel's output that buffer:
  // fused when nothing reads the product in between.
  bool inPlace = consumer.getDpsInits()[0] == current;
  if (inPlace) {
    if (llvm::any_of(current.getUsers(), [&](Operation *user) {
          return !llvm::is_contained(uses, user) &&
                 (user->getBlock() != consumer->getBlock() ||
                  !consumer->isBeforeInBlock(user));
        }))
      return false;
  } else if (!isPrivateTemporary(current, uses)) {
    return false;
  }
  // The kernel indexes them with the contraction's sizes, whatever their
  // types spell.
  auto shapedLikeResult = [&](MemRefType memref) {
    return memref && memref.getLayout().isIdentity();
  };
  auto output = dyn_cast<MemRefType>(consumer.getDpsInits()[0].getType());
  if (!shapedLikeResult(output))
    return false;

  EpilogueStep step;
  step.op = consumer;
  bool readsResult = false;
  SmallVector<EpilogueOperand> added;
  for (auto [index, input] : llvm::enumerate(consumer.getDpsInputs())) {
    AffineMap map = consumer.getIndexingMapsArray()[index];
    if (input == current) {
      if (!map.isIdentity() || readsResult)
        return false;
      readsResult = true;
      step.resultInput = index;
      step.operandOf.push_back(-1);
      continue;
    }
    auto inputType = dyn_cast<MemRefType>(input.getType());
    std::optional<EpilogueOperand> operand = classifyEpilogueInput(map, rank);
    if (operand)
      hoistViewsBefore(input, contraction.op);
    if (!shapedLikeResult(inputType) || !operand ||
        !isReadyBefore(input, writer, consumer))
      return false;
    operand->buffer = input;
    step.operandOf.push_back(contraction.epilogueOperands.size() +
                             added.size());
    added.push_back(*operand);
  }
  if (!readsResult)
    return false;
  llvm::append_range(contraction.epilogueOperands, added);
  contraction.epilogue.push_back(step);
  // The product's temporary dies with the fused ops, unless the kernel
  // reads it as C (a product accumulating into the buffer, with no fill).
  if (!inPlace && !(contraction.accumulates() && current == contraction.c)) {
    contraction.epilogue.back().inputAllocation = current.getDefiningOp();
    contraction.deadAllocations.insert(current.getDefiningOp());
  }
  contraction.output = consumer.getDpsInits()[0];
  return true;
}

void mlir::subgroup_matrix::fuseElementwiseNeighbours(Contraction &contraction,
                                                      TargetAttr target) {
  fuseExtensions(contraction, target);
  if (contraction.fusedProducers.empty()) {
    for (ContractionInput *input : {&contraction.a, &contraction.b}) {
      fusePrologue(contraction, *input);
      if (!input->prologue)
        fuseGatheringPrologue(contraction, *input);
    }
  }
  Operation *writer = contraction.op;
  while (fuseNextConsumer(contraction, writer))
    writer = contraction.epilogue.back().op;
}

void mlir::subgroup_matrix::recordFusion(const Contraction &contraction,
                                         IntegerAttr group) {
  StringRef name = SubgroupMatrixDialect::getFusionGroupAttrName();
  contraction.op->setAttr(name, group);
  for (Operation *producer : contraction.fusedProducers)
    producer->setAttr(name, group);
  for (const EpilogueStep &step : contraction.epilogue)
    step.op->setAttr(name, group);
}

void mlir::subgroup_matrix::unfuseEpilogue(Contraction &contraction) {
  for (const EpilogueStep &step : contraction.epilogue)
    contraction.deadAllocations.remove(step.inputAllocation);
  contraction.epilogue.clear();
  contraction.epilogueOperands.clear();
  contraction.output = contraction.c;
}
