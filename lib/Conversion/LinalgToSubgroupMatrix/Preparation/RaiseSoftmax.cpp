//===- RaiseSoftmax.cpp - sm-raise-softmax --------------------------------===//
//
// sm-raise-softmax: front-ends write softmax out (torch-mlir's
// decomposition, JAX's jax.nn.softmax, ONNX and IREE imports): a maximum
// along one dimension, exp of the difference, a sum, a division. The
// attention kernel and the row kernels take linalg.softmax; this stage
// recognizes the written-out form on tensors, before dispatch formation
// merges its pieces into other ops, and replaces it by the named op.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_RAISESOFTMAXPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// One written-out softmax: p = exp(x - max(x)) / sum(exp(x - max(x))),
/// along `dimension`.
struct WrittenOutSoftmax {
  Value input;
  unsigned dimension;
  linalg::GenericOp maximum, exponential, sum, division;
  /// The difference from the maximum where a step of its own computes it
  /// (torch-mlir's decomposition), before `exponential`; null where the
  /// exponential's step subtracts.
  linalg::GenericOp difference;
  /// The sum's reciprocal where `division` multiplies by it (TOSA's
  /// decomposition: tosa.reciprocal, tosa.mul); null where it divides.
  linalg::GenericOp reciprocal;
};
} // namespace

/// The single op of `body` besides its terminator that yields, and whose
/// operands are the block's arguments `a` and `b` in either order.
template <typename OpTy> static bool yieldsOf(Block &body, Value a, Value b) {
  if (body.getOperations().size() != 2)
    return false;
  auto op = dyn_cast<OpTy>(body.front());
  if (!op || body.getTerminator()->getOperand(0) != op->getResult(0))
    return false;
  return (op->getOperand(0) == a && op->getOperand(1) == b) ||
         (op->getOperand(0) == b && op->getOperand(1) == a);
}

/// The map a reduction along `dimension` of a rank-`rank` tensor writes its
/// result through (and a step that broadcasts it back reads it through):
/// every loop but `dimension`, or, as torch-mlir writes keepdim, every loop
/// with a zero in place of `dimension`.
static bool isRowMap(AffineMap map, unsigned rank, unsigned dimension) {
  if (map.getNumDims() != rank)
    return false;
  SmallVector<AffineExpr> dropped, kept;
  for (unsigned d = 0; d < rank; ++d) {
    AffineExpr loop = getAffineDimExpr(d, map.getContext());
    kept.push_back(d == dimension ? getAffineConstantExpr(0, map.getContext())
                                  : loop);
    if (d != dimension)
      dropped.push_back(loop);
  }
  return map.getResults() == ArrayRef(dropped) ||
         map.getResults() == ArrayRef(kept);
}

/// The value `init` is filled with, if it is a linalg.fill of a constant.
static std::optional<APFloat> getFillValue(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return std::nullopt;
  return value.getValue();
}

/// If `op` reduces one dimension of its one input into its one output with
/// `Combine`, starting from a fill, the dimension.
template <typename... Combine>
static std::optional<unsigned> getRowReduction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  unsigned rank = op.getNumLoops();
  if (!op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity())
    return std::nullopt;
  unsigned dimension = 0;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction)
      dimension = d;
  if (!isRowMap(op.getMatchingIndexingMap(op.getDpsInitOperand(0)), rank,
                dimension))
    return std::nullopt;
  Block &body = op.getRegion().front();
  if (!(yieldsOf<Combine>(body, body.getArgument(0), body.getArgument(1)) ||
        ...))
    return std::nullopt;
  return dimension;
}

/// Whether `op` is an element-wise step over the whole of `rows`'s input
/// shape that reads `full` through the identity and `row` through a row map
/// (isRowMap), in either order; returns the block arguments of the two.
static std::optional<std::pair<Value, Value>>
readsFullAndRow(linalg::GenericOp op, Value full, Value row,
                unsigned dimension) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  Block &body = op.getRegion().front();
  Value fullArgument, rowArgument;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    Value argument = body.getArgument(input->getOperandNumber());
    if (input->get() == full && map.isIdentity())
      fullArgument = argument;
    else if (input->get() == row && isRowMap(map, op.getNumLoops(), dimension))
      rowArgument = argument;
  }
  if (!fullArgument || !rowArgument)
    return std::nullopt;
  return std::make_pair(fullArgument, rowArgument);
}

/// Whether `op` is 1 / x element by element on its one input.
static bool isReciprocal(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  // The body divides one by its input; the one may be a constant inside.
  Block &body = op.getRegion().front();
  auto divide =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::DivFOp>();
  return divide && divide->getBlock() == &body &&
         divide.getRhs() == body.getArgument(0) &&
         matchPattern(divide.getLhs(), m_OneFloat()) &&
         llvm::all_of(body.without_terminator(), [&](Operation &inner) {
           return &inner == divide || isa<arith::ConstantOp>(inner);
         });
}

/// Reads each input of `op` that is a tensor.expand_shape adding only
/// size-1 dimensions to a reduction's result (TOSA's keepdim), read at
/// zero there, from the reduction's result directly, with those results
/// of its map dropped: the row map of a reduction (isRowMap).
static void readReductionsThroughUnitExpansions(linalg::GenericOp op,
                                                RewriterBase &rewriter) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  SmallVector<std::pair<OpOperand *, Value>> replaced;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    auto reduction =
        expand ? expand.getSrc().getDefiningOp<linalg::GenericOp>() : nullptr;
    if (!reduction || reduction.getNumReductionLoops() == 0 ||
        !expand.getResultType().hasStaticShape())
      continue;
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    AffineMap map = maps[input->getOperandNumber()];
    SmallVector<AffineExpr> kept;
    bool unitOnly = true;
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      // The group's one dimension of the source's size, the rest added
      // size-1 dimensions read at zero.
      std::optional<int64_t> source = getOnlyLongDimension(shape, group);
      if (!source) {
        unitOnly = false;
        break;
      }
      for (int64_t dim : group) {
        if (dim == *source) {
          kept.push_back(map.getResult(dim));
          continue;
        }
        auto constant = dyn_cast<AffineConstantExpr>(map.getResult(dim));
        if (!constant || constant.getValue() != 0)
          unitOnly = false;
      }
    }
    if (!unitOnly)
      continue;
    maps[input->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
    replaced.push_back({input, expand.getSrc()});
    changed = true;
  }
  if (!changed)
    return;
  rewriter.modifyOpInPlace(op, [&] {
    for (auto [input, source] : replaced)
      input->set(source);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  for (auto [input, source] : replaced)
    for (Operation *user : llvm::make_early_inc_range(source.getUsers()))
      if (isa<tensor::ExpandShapeOp>(user) && user->use_empty())
        rewriter.eraseOp(user);
}

/// The only user of `value`, if it has one.
static Operation *getOnlyUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  return *value.getUsers().begin();
}

/// Reads a written-out softmax whose maximum is `maximum`, if it is one.
static std::optional<WrittenOutSoftmax>
matchWrittenOutSoftmax(linalg::GenericOp maximum) {
  std::optional<unsigned> dimension =
      getRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(maximum);
  if (!dimension)
    return std::nullopt;
  Value input = maximum.getDpsInputOperand(0)->get();
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || !isa<FloatType>(inputType.getElementType()))
    return std::nullopt;
  // The maximum starts from -inf or the lowest finite value; either leaves
  // every finite row's maximum as it is.
  std::optional<APFloat> start =
      getFillValue(maximum.getDpsInitOperand(0)->get());
  if (!start || !start->isNegative() ||
      !(start->isInfinity() ||
        *start == APFloat::getLargest(start->getSemantics(), true)))
    return std::nullopt;

  // exp(x - max), x read as the maximum reads it: one step, or the
  // difference and then the exponential.
  auto shift =
      dyn_cast_or_null<linalg::GenericOp>(getOnlyUser(maximum->getResult(0)));
  if (!shift)
    return std::nullopt;
  std::optional<std::pair<Value, Value>> operands =
      readsFullAndRow(shift, input, maximum->getResult(0), *dimension);
  if (!operands)
    return std::nullopt;
  Block &shiftBody = shift.getRegion().front();
  auto subtract = dyn_cast<arith::SubFOp>(shiftBody.front());
  if (!subtract || subtract.getLhs() != operands->first ||
      subtract.getRhs() != operands->second ||
      shift->getResult(0).getType() != inputType)
    return std::nullopt;
  linalg::GenericOp exponential = shift, difference;
  Operation *afterSubtract = subtract->getNextNode();
  Value exponentOf = subtract.getResult();
  if (isa<linalg::YieldOp>(afterSubtract) &&
      afterSubtract->getOperand(0) == subtract.getResult()) {
    // The difference is a tensor of its own, read once by exp.
    difference = shift;
    exponential =
        dyn_cast_or_null<linalg::GenericOp>(getOnlyUser(shift->getResult(0)));
    if (!exponential || exponential.getNumDpsInputs() != 1 ||
        exponential.getNumDpsInits() != 1 ||
        exponential.getNumLoops() != exponential.getNumParallelLoops() ||
        !llvm::all_of(exponential.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return std::nullopt;
    afterSubtract = &exponential.getRegion().front().front();
    exponentOf = exponential.getRegion().front().getArgument(0);
  }
  auto exp = dyn_cast<math::ExpOp>(afterSubtract);
  if (!exp || exp.getOperand() != exponentOf ||
      exp->getNextNode() != exp->getBlock()->getTerminator() ||
      exp->getBlock()->getTerminator()->getOperand(0) != exp.getResult())
    return std::nullopt;
  Value exponentials = exponential->getResult(0);
  if (exponentials.getType() != inputType)
    return std::nullopt;

  // Their sum (from zero) and the division, the only two users.
  linalg::GenericOp sum, division;
  for (Operation *user : exponentials.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic)
      return std::nullopt;
    if (!sum && getRowReduction<arith::AddFOp>(generic) == *dimension)
      sum = generic;
    else
      division = generic;
  }
  if (!sum || !division ||
      std::distance(exponentials.getUses().begin(),
                    exponentials.getUses().end()) != 2)
    return std::nullopt;
  std::optional<APFloat> zero = getFillValue(sum.getDpsInitOperand(0)->get());
  if (!zero || !zero->isPosZero())
    return std::nullopt;
  // The division reads the sum, or its reciprocal 1 / sum (of the sum with
  // its row kept as a size-1 dimension, as TOSA keeps it).
  Value denominator = sum->getResult(0);
  linalg::GenericOp reciprocal;
  if (getOnlyUser(denominator) != division) {
    Operation *user = getOnlyUser(denominator);
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(user))
      user = getOnlyUser(expand.getResult());
    reciprocal = dyn_cast_or_null<linalg::GenericOp>(user);
    if (!reciprocal || !isReciprocal(reciprocal) ||
        getOnlyUser(reciprocal->getResult(0)) != division)
      return std::nullopt;
    denominator = reciprocal->getResult(0);
  }
  std::optional<std::pair<Value, Value>> quotient =
      readsFullAndRow(division, exponentials, denominator, *dimension);
  if (!quotient)
    return std::nullopt;
  // The body divides (or multiplies by the reciprocal) first; what follows
  // (a narrowing to f16, say) reads only the quotient.
  Block &divisionBody = division.getRegion().front();
  if (reciprocal) {
    auto multiply = dyn_cast<arith::MulFOp>(divisionBody.front());
    if (!multiply || !((multiply.getLhs() == quotient->first &&
                        multiply.getRhs() == quotient->second) ||
                       (multiply.getLhs() == quotient->second &&
                        multiply.getRhs() == quotient->first)))
      return std::nullopt;
  } else {
    auto divide = dyn_cast<arith::DivFOp>(divisionBody.front());
    if (!divide || divide.getLhs() != quotient->first ||
        divide.getRhs() != quotient->second)
      return std::nullopt;
  }
  for (Operation &inner : llvm::drop_begin(divisionBody.without_terminator()))
    for (Value operand : inner.getOperands())
      if (operand == quotient->first || operand == quotient->second)
        return std::nullopt;
  if (!quotient->first.hasOneUse() || !quotient->second.hasOneUse())
    return std::nullopt;
  return WrittenOutSoftmax{input, *dimension, maximum,    exponential,
                           sum,   division,   difference, reciprocal};
}

/// Replaces the written-out softmax by linalg.softmax, followed by what the
/// division's body does after dividing, if anything.
static void raise(WrittenOutSoftmax softmax, RewriterBase &rewriter) {
  linalg::GenericOp division = softmax.division;
  Location loc = division.getLoc();
  rewriter.setInsertionPoint(division);
  auto type = cast<RankedTensorType>(softmax.input.getType());
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, softmax.input);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
  auto named = linalg::SoftmaxOp::create(rewriter, loc, type, softmax.input,
                                         init, softmax.dimension);
  Value probabilities = named.getResult()[0];

  Block &body = division.getRegion().front();
  Value quotient = body.front().getResult(0);
  Value result;
  if (body.getTerminator()->getOperand(0) == quotient &&
      division->getResult(0).getType() == type) {
    result = probabilities;
  } else {
    // The rest of the body, element by element on the probabilities.
    Value output = division.getDpsInitOperand(0)->get();
    unsigned rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    auto rest = linalg::GenericOp::create(
        rewriter, loc, division->getResult(0).getType(), probabilities, output,
        ArrayRef<AffineMap>{identity, identity},
        division.getIteratorTypesArray(),
        [&](OpBuilder &b, Location nestedLoc, ValueRange arguments) {
          IRMapping mapping;
          mapping.map(quotient, arguments[0]);
          mapping.map(body.getArguments().back(), arguments[1]);
          for (Operation &inner : llvm::drop_begin(body))
            b.clone(inner, mapping);
        });
    result = rest->getResult(0);
  }
  Value maximumStart = softmax.maximum.getDpsInitOperand(0)->get();
  Value sumStart = softmax.sum.getDpsInitOperand(0)->get();
  rewriter.replaceOp(division, result);
  if (softmax.reciprocal) {
    Operation *keptRow = softmax.reciprocal.getDpsInputOperand(0)
                             ->get()
                             .getDefiningOp<tensor::ExpandShapeOp>();
    rewriter.eraseOp(softmax.reciprocal);
    if (keptRow)
      rewriter.eraseOp(keptRow);
  }
  rewriter.eraseOp(softmax.sum);
  rewriter.eraseOp(softmax.exponential);
  if (softmax.difference)
    rewriter.eraseOp(softmax.difference);
  rewriter.eraseOp(softmax.maximum);
  // The fills the reductions started from, unless something else reads
  // them.
  for (Value start : {maximumStart, sumStart})
    if (Operation *fill = start.getDefiningOp(); fill && fill->use_empty())
      rewriter.eraseOp(fill);
}

namespace {
struct RaiseSoftmaxPass
    : public subgroup_matrix::impl::RaiseSoftmaxPassBase<RaiseSoftmaxPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // TOSA's reductions are linalg.reduce, their keepdim an expand_shape:
    // the same reductions as generics, read through row maps.
    SmallVector<linalg::ReduceOp> reductions;
    getOperation().walk([&](linalg::ReduceOp op) {
      if (op.hasPureTensorSemantics() && op.getNumDpsInputs() == 1 &&
          op.getNumDpsInits() == 1 && op.getDimensions().size() == 1 &&
          isa<FloatType>(getElementTypeOrSelf(op.getDpsInits()[0])))
        reductions.push_back(op);
    });
    for (linalg::ReduceOp op : reductions) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() &&
          op.getNumLoops() == op.getNumParallelLoops())
        readReductionsThroughUnitExpansions(op, rewriter);
    });
    SmallVector<WrittenOutSoftmax> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<WrittenOutSoftmax> softmax = matchWrittenOutSoftmax(op))
        found.push_back(*softmax);
    });
    for (WrittenOutSoftmax &softmax : found)
      raise(softmax, rewriter);
  }
};
} // namespace
