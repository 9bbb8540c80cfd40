//===- QuantizedMatmuls.cpp - zero points out of the product --------------===//
//
// Part of the sm-normalize-contractions stage: a quantized matrix product
// sums (a - za)(b - zb), which no matrix unit computes. Expanded, it is
// the product of the stored 8-bit values and corrections that depend on
// one operand each:
//
//   sum_k (a - za)(b - zb) = sum_k a b - zb sum_k a - za sum_k b + K za zb
//
// so the product runs on the matrix units, the row sums of A and the
// column sums of B are reductions of their own, and the corrections are
// an element-wise epilogue with broadcast operands, which the contraction
// kernel fuses.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// Builds the generics of one quantized product, before it.
class QuantizedMatmulRewriter {
public:
  QuantizedMatmulRewriter(RewriterBase &rewriter, linalg::LinalgOp op)
      : rewriter(rewriter), op(op), loc(op.getLoc()), context(op.getContext()),
        maps(op.getIndexingMapsArray()), iterators(op.getIteratorTypesArray()),
        sizes(op.getStaticLoopRanges()) {
    accumulator = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  }

  /// The quantized product's value, or failure (nothing built) where its
  /// zero points are not integers or K has no static size.
  FailureOr<Value> rewrite();

private:
  /// `value` (an element of A or B) sign-extended to the accumulator.
  Value extend(OpBuilder &builder, Location at, Value value) {
    if (value.getType() == accumulator)
      return value;
    return arith::ExtSIOp::create(builder, at, accumulator, value);
  }

  /// A zero-filled tensor of `shape`.
  Value zeros(ArrayRef<int64_t> shape) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, accumulator);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(accumulator, 0));
    return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  }

  /// `input` and `map`, or where `input` is a copy made by a generic (a
  /// quantized convolution's window), the copied tensor and the map that
  /// reads it: summing the source leaves the copy to the product alone,
  /// whose kernel gathers it as it stages tiles instead of storing it.
  std::pair<Value, AffineMap> lookThroughCopy(Value input, AffineMap map) {
    auto copy = input.getDefiningOp<linalg::GenericOp>();
    if (!copy || copy.getNumDpsInputs() != 1 ||
        copy.getNumLoops() != copy.getNumParallelLoops() ||
        !copy.getIndexingMapsArray().back().isIdentity() ||
        copy.getRegion().front().getTerminator()->getOperand(0) !=
            copy.getRegion().front().getArgument(0))
      return {input, map};
    return {copy.getDpsInputs()[0],
            copy.getIndexingMapsArray()[0].compose(map)};
  }

  /// The sums over K of the input read through `map`, one per element of
  /// C's dimensions that `map` also reads; and those dimensions'
  /// positions in C.
  std::pair<Value, SmallVector<unsigned>> sumOverK(Value input, AffineMap map);

  RewriterBase &rewriter;
  linalg::LinalgOp op;
  Location loc;
  MLIRContext *context;
  SmallVector<AffineMap> maps;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<int64_t> sizes;
  Type accumulator;
};
} // namespace

std::pair<Value, SmallVector<unsigned>>
QuantizedMatmulRewriter::sumOverK(Value input, AffineMap map) {
  // The sum's loops are those the input reads, renumbered.
  SmallVector<AffineExpr> renamed(map.getNumDims(),
                                  getAffineConstantExpr(0, context));
  SmallVector<utils::IteratorType> sumIterators;
  for (unsigned loop = 0; loop < map.getNumDims(); ++loop) {
    if (!map.isFunctionOfDim(loop))
      continue;
    renamed[loop] = getAffineDimExpr(sumIterators.size(), context);
    sumIterators.push_back(iterators[loop]);
  }
  unsigned numLoops = sumIterators.size();
  AffineMap mapC = maps.back();
  SmallVector<AffineExpr> kept;
  SmallVector<int64_t> shape;
  SmallVector<unsigned> positions;
  for (auto [position, expr] : llvm::enumerate(mapC.getResults())) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (!map.isFunctionOfDim(loop))
      continue;
    kept.push_back(renamed[loop]);
    shape.push_back(sizes[loop]);
    positions.push_back(position);
  }
  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> sumMaps = {
      map.replaceDimsAndSymbols(renamed, {}, numLoops, 0),
      AffineMap::get(numLoops, 0, kept, context)};
  // A loop that the input reads only inside a window (kh in oh + kh) has
  // its size from a shape-only operand, as linalg's pooling windows do.
  SmallVector<AffineExpr> windowDims;
  SmallVector<int64_t> windowShape;
  for (unsigned loop = 0; loop < map.getNumDims(); ++loop) {
    AffineExpr dim = renamed[loop];
    if (!isa<AffineDimExpr>(dim) ||
        llvm::any_of(sumMaps, [&](AffineMap sumMap) {
          return llvm::is_contained(sumMap.getResults(), dim);
        }))
      continue;
    windowDims.push_back(dim);
    windowShape.push_back(sizes[loop]);
  }
  if (!windowDims.empty()) {
    inputs.push_back(
        tensor::EmptyOp::create(rewriter, loc, windowShape, accumulator));
    sumMaps.insert(sumMaps.begin() + 1,
                   AffineMap::get(numLoops, 0, windowDims, context));
  }
  auto sum = linalg::GenericOp::create(
      rewriter, loc, TypeRange{RankedTensorType::get(shape, accumulator)},
      inputs, ValueRange{zeros(shape)}, sumMaps, sumIterators,
      [&](OpBuilder &nested, Location at, ValueRange args) {
        Value total = arith::AddIOp::create(nested, at, args.back(),
                                            extend(nested, at, args[0]));
        linalg::YieldOp::create(nested, at, total);
      });
  return {sum.getResult(0), positions};
}

FailureOr<Value> QuantizedMatmulRewriter::rewrite() {
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value zeroA = op.getDpsInputs()[2], zeroB = op.getDpsInputs()[3];
  auto fitsAccumulator = [&](Value zero) {
    return isa<IntegerType>(zero.getType()) && isa<IntegerType>(accumulator) &&
           zero.getType().getIntOrFloatBitWidth() <=
               accumulator.getIntOrFloatBitWidth();
  };
  if (!op.hasPureTensorSemantics() || !fitsAccumulator(zeroA) ||
      !fitsAccumulator(zeroB))
    return failure();
  int64_t k = 1;
  for (auto [size, iterator] : llvm::zip(sizes, iterators))
    if (iterator == utils::IteratorType::reduction) {
      if (ShapedType::isDynamic(size))
        return failure();
      k *= size;
    }
  // A zero point known to be 0 needs no correction; any other (a constant,
  // a function argument) is read by the corrections' body.
  auto isZero = [](Value value) { return matchPattern(value, m_Zero()); };
  bool correctsA = !isZero(zeroB), correctsB = !isZero(zeroA);
  rewriter.setInsertionPoint(op);
  // The sums first, so that the corrections can run in the product's
  // kernel: -zb * rowsum(A), -za * colsum(B).
  Value c = op.getDpsInits()[0];
  auto cType = cast<RankedTensorType>(c.getType());
  unsigned rank = cType.getRank();
  SmallVector<Value> sums;
  SmallVector<AffineMap> sumMaps;
  SmallVector<Value> zeroPoints;
  for (auto [input, map, zero, corrects] :
       {std::make_tuple(a, maps[0], zeroB, correctsA),
        std::make_tuple(b, maps[1], zeroA, correctsB)}) {
    if (!corrects)
      continue;
    auto [summed, summedMap] = lookThroughCopy(input, map);
    auto [sum, positions] = sumOverK(summed, summedMap);
    SmallVector<AffineExpr> dims;
    for (unsigned position : positions)
      dims.push_back(getAffineDimExpr(position, context));
    sums.push_back(sum);
    sumMaps.push_back(AffineMap::get(rank, 0, dims, context));
    zeroPoints.push_back(zero);
  }
  // The product of the stored values, into C.
  Value product =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{c.getType()}, ValueRange{a, b},
          ValueRange{c}, ArrayRef<AffineMap>{maps[0], maps[1], maps.back()},
          iterators,
          [&](OpBuilder &nested, Location at, ValueRange args) {
            Value term =
                arith::MulIOp::create(nested, at, extend(nested, at, args[0]),
                                      extend(nested, at, args[1]));
            Value total = arith::AddIOp::create(nested, at, args[2], term);
            linalg::YieldOp::create(nested, at, total);
          })
          .getResult(0);
  if (!correctsA && !correctsB)
    return product;

  // The corrections, element-wise over C's dimensions.
  SmallVector<Value> inputs = {product};
  llvm::append_range(inputs, sums);
  SmallVector<AffineMap> epilogueMaps = {
      AffineMap::getMultiDimIdentityMap(rank, context)};
  llvm::append_range(epilogueMaps, sumMaps);
  epilogueMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, context));
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, cType.getShape(), accumulator);
  auto corrected = linalg::GenericOp::create(
      rewriter, loc, TypeRange{cType}, inputs, ValueRange{empty}, epilogueMaps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nested, Location at, ValueRange args) {
        Value value = args[0];
        for (auto [index, zero] : llvm::enumerate(zeroPoints))
          value = arith::SubIOp::create(
              nested, at, value,
              arith::MulIOp::create(nested, at, extend(nested, at, zero),
                                    args[index + 1]));
        // + K za zb.
        if (correctsA && correctsB) {
          Value count = arith::ConstantOp::create(
              nested, at, nested.getIntegerAttr(accumulator, k));
          Value both = arith::MulIOp::create(
              nested, at, extend(nested, at, zeroA), extend(nested, at, zeroB));
          value = arith::AddIOp::create(
              nested, at, value,
              arith::MulIOp::create(nested, at, count, both));
        }
        linalg::YieldOp::create(nested, at, value);
      });
  return corrected.getResult(0);
}

void mlir::subgroup_matrix::rewriteQuantizedMatmuls(ModuleOp module) {
  SmallVector<linalg::LinalgOp> products;
  module.walk([&](linalg::LinalgOp op) {
    if (op->getParentOfType<gpu::GPUModuleOp>())
      return;
    // Generics with the same body and zero points: a quantized
    // convolution's contraction, or what an importer writes.
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    bool isQuantizedGeneric =
        generic && generic.getNumDpsInputs() == 4 &&
        generic.getNumDpsInits() == 1 &&
        isQuantizedMultiplyAccumulateBody(generic.getRegion().front()) &&
        llvm::all_of(ArrayRef(generic.getIndexingMapsArray()).slice(2, 2),
                     [](AffineMap map) { return map.getNumResults() == 0; }) &&
        succeeded(linalg::inferContractionDims(
            {generic.getIndexingMapsArray()[0],
             generic.getIndexingMapsArray()[1],
             generic.getIndexingMapsArray().back()}));
    if (isQuantizedGeneric ||
        isa<linalg::QuantizedMatmulOp, linalg::QuantizedBatchMatmulOp>(
            op.getOperation()))
      products.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : products) {
    FailureOr<Value> value = QuantizedMatmulRewriter(rewriter, op).rewrite();
    // Others stay, for the kernel stages to report in their own spelling.
    if (succeeded(value))
      rewriter.replaceOp(op, *value);
  }
}
