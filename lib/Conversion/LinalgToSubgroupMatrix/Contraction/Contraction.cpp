//===- Contraction.cpp - what a linalg contraction computes ---------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"

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

std::string mlir::subgroup_matrix::describeUnknownLayout(Value buffer) {
  auto cast = buffer.getDefiningOp<memref::CastOp>();
  if (cast && isa<UnrankedMemRefType>(cast.getSource().getType()))
    return " (it is a cast of an unranked buffer, whose layout nothing "
           "knows: pass ranked tensors or memrefs)";
  return "";
}

Type mlir::subgroup_matrix::getComponent(Type storage, bool isUnsigned) {
  if (isa<FloatType>(storage))
    return storage;
  if (auto integer = dyn_cast<IntegerType>(storage))
    return IntegerType::get(storage.getContext(), integer.getWidth(),
                            isUnsigned ? IntegerType::Unsigned
                                       : IntegerType::Signed);
  return {};
}

Type Contraction::getOutputComponent() const {
  if (epilogue.empty())
    return resultComponent;
  return getComponent(cast<MemRefType>(output.getType()).getElementType(),
                      resultComponent.isUnsignedInteger());
}

/// The batch, M, N and K loops of a contraction. Upstream's inference calls
/// a loop that one input lacks an M or N loop; a second such loop that
/// leads C is taken as a batch over which that input is shared (a 1x1 NCHW
/// convolution's filter). A second K loop that leads both inputs is a batch
/// that the contraction sums over (linalg.batch_reduce_matmul).
static FailureOr<linalg::ContractionDimensions>
inferMatrixDimensions(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return failure();
  // The loop that leads a map of three results.
  auto leadingLoop = [](AffineMap map) -> std::optional<unsigned> {
    if (map.getNumResults() != 3)
      return std::nullopt;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(0)))
      return dim.getPosition();
    return std::nullopt;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (std::optional<unsigned> leading = leadingLoop(maps[2]);
      leading && dims->batch.empty()) {
    for (SmallVector<unsigned, 2> *free : {&dims->m, &dims->n}) {
      if (free->size() != 2)
        continue;
      auto it = llvm::find(*free, *leading);
      if (it == free->end())
        continue;
      dims->batch.push_back(*it);
      free->erase(it);
    }
  }
  std::optional<unsigned> leadingA = leadingLoop(maps[0]),
                          leadingB = leadingLoop(maps[1]);
  if (dims->batch.empty() && dims->k.size() == 2 && leadingA &&
      leadingA == leadingB) {
    auto it = llvm::find(dims->k, *leadingA);
    if (it != dims->k.end()) {
      dims->batch.push_back(*it);
      dims->k.erase(it);
    }
  }
  return dims;
}

/// The loops of a contraction whose operands a kernel indexes as they are:
/// at most one batch (in all three operands, or summed over, or in C and
/// one input) and one M, N and K loop, each input [m, k] or [k, m] (resp.
/// [k, n] or [n, k]) and C [m, n], each after the batch where it has one.
struct MatrixLayout {
  linalg::ContractionDimensions dims;
  bool batched = false, reducesBatch = false;
  bool aBatched = false, aTransposed = false;
  bool bBatched = false, bTransposed = false;
};

std::optional<SmallVector<unsigned>>
mlir::subgroup_matrix::getIndexingLoops(AffineMap map) {
  SmallVector<unsigned> loops;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    loops.push_back(dim.getPosition());
  }
  return loops;
}

/// Whether the body extends its integers as unsigned.
static bool hasUnsignedBody(linalg::LinalgOp op) {
  bool isUnsigned = false;
  op->walk([&](Operation *inner) {
    isUnsigned |= isa<arith::ExtUIOp, arith::UIToFPOp>(inner);
  });
  return isUnsigned;
}

/// Reads `op`'s matrix layout; otherwise says why it has none in `why`.
static FailureOr<MatrixLayout> matchMatrixLayout(linalg::LinalgOp op,
                                                 std::string &why) {
  auto fail = [&](StringRef message) {
    why = message.str();
    return failure();
  };
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return fail("needs two inputs and one output");
  if (!linalg::isaContractionOpInterface(op))
    return fail("its body is not a sum of products");
  FailureOr<linalg::ContractionDimensions> dims = inferMatrixDimensions(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return fail("it is not one matrix product (at most one batch "
                "dimension, one M, one N and one K)");
  MatrixLayout layout;
  layout.dims = *dims;
  layout.batched = !dims->batch.empty();
  unsigned bd = layout.batched ? dims->batch[0] : ~0u, md = dims->m[0],
           nd = dims->n[0], kd = dims->k[0];
  auto matchOperand = [&](AffineMap map, unsigned rowDim, unsigned columnDim,
                          bool &batched, bool &transposed) {
    std::optional<SmallVector<unsigned>> found = getIndexingLoops(map);
    if (!found)
      return false;
    ArrayRef<unsigned> operandDims = *found;
    batched =
        layout.batched && !operandDims.empty() && operandDims.front() == bd;
    if (batched)
      operandDims = operandDims.drop_front();
    if (operandDims.size() != 2)
      return false;
    if (operandDims[0] == rowDim && operandDims[1] == columnDim)
      return true;
    transposed = true;
    return operandDims[0] == columnDim && operandDims[1] == rowDim;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<SmallVector<unsigned>> cDims = getIndexingLoops(maps[2]);
  SmallVector<unsigned> expectedC = {md, nd};
  layout.reducesBatch =
      layout.batched && cDims && !llvm::is_contained(*cDims, bd);
  if (layout.batched && !layout.reducesBatch)
    expectedC.insert(expectedC.begin(), bd);
  if (!cDims || *cDims != expectedC)
    return fail("C must be indexed [m, n] (after the batch)");
  if (!matchOperand(maps[0], md, kd, layout.aBatched, layout.aTransposed))
    return fail("A must be indexed [m, k] or [k, m] (after the batch)");
  if (!matchOperand(maps[1], kd, nd, layout.bBatched, layout.bTransposed))
    return fail("B must be indexed [k, n] or [n, k] (after the batch)");
  // Products that no matrix unit computes (f64, i64, i8 into i8) are
  // reductions like any other: the element-wise kernels sum them exactly,
  // wrapping where the program's integers do. (f16/bf16 into f16/bf16
  // accumulate in f32 by the precision policy; A and B of different types
  // are the contraction kernel's to report.)
  auto elementType = [](Value value) { return getElementTypeOrSelf(value); };
  Type input = elementType(op.getDpsInputs()[0]);
  Type output = elementType(op.getDpsInits()[0]);
  auto isNarrowFloat = [](Type type) {
    return isa<Float16Type, BFloat16Type>(type);
  };
  if (input == elementType(op.getDpsInputs()[1]) &&
      !(isNarrowFloat(input) && isNarrowFloat(output))) {
    bool isUnsigned = hasUnsignedBody(op);
    Type inputComponent = getComponent(input, isUnsigned);
    Type resultComponent = getComponent(output, isUnsigned);
    if (!inputComponent || !resultComponent ||
        !isValidAccumulatorType(inputComponent, resultComponent))
      return fail(llvm::formatv("'{0}' inputs accumulated into '{1}' is not a "
                                "subgroup-matrix multiplication",
                                input, output)
                      .str());
  }
  return layout;
}

bool mlir::subgroup_matrix::isMatrixContraction(linalg::LinalgOp op) {
  std::string why;
  return succeeded(matchMatrixLayout(op, why));
}

std::string
mlir::subgroup_matrix::whyNotMatrixContraction(linalg::LinalgOp op) {
  std::string why;
  (void)matchMatrixLayout(op, why);
  return why;
}

/// The buffer that `buffer` is a view of (itself when it is no view).
static Value getViewedBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

linalg::FillOp mlir::subgroup_matrix::getFillBefore(Operation *op, Value c) {
  Value viewed = getViewedBuffer(c);
  // An op that also reads the filled buffer through another operand needs
  // the fill done before it (bufferization writes in place over an input
  // that is dead after the op, as a fused SiLU over its tensor of ones).
  if (llvm::count_if(op->getOperands(), [&](Value operand) {
        return isa<BaseMemRefType>(operand.getType()) &&
               getViewedBuffer(operand) == viewed;
      }) > 1)
    return {};
  for (Operation *previous = op->getPrevNode(); previous;
       previous = previous->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(previous);
    if (fill && fill.getNumDpsInits() == 1 && fill.getDpsInits()[0] == c)
      return fill;
    if (isMemoryEffectFree(previous))
      continue;
    // What a region does is not in the operands, except for linalg ops'.
    if (previous->getNumRegions() && !isa<linalg::LinalgOp>(previous))
      return {};
    if (llvm::any_of(previous->getOperands(), [&](Value operand) {
          return isa<BaseMemRefType>(operand.getType()) &&
                 getViewedBuffer(operand) == viewed;
        }))
      return {};
  }
  return {};
}

FailureOr<Contraction>
mlir::subgroup_matrix::matchContraction(linalg::LinalgOp op) {
  auto fail = [&](const Twine &message) {
    return op->emitOpError() << "cannot be tiled into a kernel: " << message,
           failure();
  };
  std::string why;
  FailureOr<MatrixLayout> layout = matchMatrixLayout(op, why);
  if (failed(layout))
    return fail(why);

  Contraction contraction;
  contraction.op = op;
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  contraction.c = contraction.output = op.getDpsInits()[0];
  SmallVector<MemRefType> types;
  for (Value operand : {a, b, contraction.c}) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return fail("it works on tensors, and sm-tile-matmul needs memrefs "
                  "(bufferize first, or use sm-linalg-to-gpu)");
    if (!type.getLayout().isIdentity())
      return fail(llvm::formatv("'{0}' is not a contiguous row-major memref{1}",
                                type, describeUnknownLayout(operand)));
    if (type.getMemorySpace() &&
        !isa<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return fail(llvm::formatv("'{0}' is not in GPU global memory", type));
    types.push_back(type);
  }
  const linalg::ContractionDimensions &dims = layout->dims;
  bool batched = layout->batched;
  contraction.reducesBatch = layout->reducesBatch;
  contraction.a.batched = layout->aBatched;
  contraction.a.transposed = layout->aTransposed;
  contraction.b.batched = layout->bBatched;
  contraction.b.transposed = layout->bTransposed;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned bd = batched ? dims.batch[0] : ~0u, md = dims.m[0], nd = dims.n[0],
           kd = dims.k[0];
  contraction.a.buffer = a;
  contraction.b.buffer = b;

  // A loop's size is static when any operand spells it (linalg requires the
  // operands to agree); otherwise the kernel takes it at run time.
  SmallVector<int64_t> ranges(op.getNumLoops(), ShapedType::kDynamic);
  for (auto [map, type] : llvm::zip(maps, types))
    for (auto [position, expr] : llvm::enumerate(map.getResults()))
      if (!type.isDynamicDim(position))
        ranges[cast<AffineDimExpr>(expr).getPosition()] =
            type.getDimSize(position);
  if (batched) {
    contraction.batch = ranges[bd];
    if (ShapedType::isDynamic(contraction.batch))
      return fail("the batch size is dynamic (M, N and K may be, since the "
                  "kernel takes them as arguments, but the batch is the "
                  "launch's grid depth)");
  }
  contraction.m = ranges[md];
  contraction.n = ranges[nd];
  contraction.k = ranges[kd];

  Type input = types[0].getElementType();
  Type output = types[2].getElementType();
  if (types[1].getElementType() != input)
    return fail(llvm::formatv("A ('{0}') and B ('{1}') have different element "
                              "types",
                              input, types[1].getElementType()));
  bool isUnsigned = hasUnsignedBody(op);
  if (isUnsigned && isa<IntegerType>(input)) {
    bool alsoSigned = false;
    op->walk([&](Operation *inner) {
      alsoSigned |= isa<arith::ExtSIOp, arith::SIToFPOp>(inner);
    });
    if (alsoSigned)
      return fail("its body extends one input as signed and the other as "
                  "unsigned, and a matrix multiplication takes both of one "
                  "signedness");
  }
  contraction.inputComponent = getComponent(input, isUnsigned);
  contraction.resultComponent = getComponent(output, isUnsigned);
  if (!contraction.inputComponent || !contraction.resultComponent ||
      !isValidAccumulatorType(contraction.inputComponent,
                              contraction.resultComponent))
    return fail(llvm::formatv(
        "'{0}' inputs accumulated into '{1}' is not a subgroup-matrix "
        "multiplication (f16 -> f16|f32, bf16 -> f32, f32 -> f32, i8 -> i32)",
        input, output));

  // A constant fill of C before the contraction is folded in.
  if (linalg::FillOp fill = getFillBefore(op, contraction.c)) {
    Attribute value;
    if (matchPattern(fill.getDpsInputs()[0], m_Constant(&value))) {
      contraction.fill = fill;
      contraction.fillValue = cast<TypedAttr>(value);
    }
  }
  return contraction;
}

AffineMap mlir::subgroup_matrix::applyStaticView(AffineMap map,
                                                 ArrayRef<int64_t> offsets,
                                                 ArrayRef<int64_t> strides) {
  SmallVector<AffineExpr> exprs;
  for (auto [expr, offset, stride] :
       llvm::zip(map.getResults(), offsets, strides))
    exprs.push_back(expr * stride + offset);
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}

std::optional<int64_t>
mlir::subgroup_matrix::getOnlyLongDimension(ArrayRef<int64_t> shape,
                                            ArrayRef<int64_t> group) {
  std::optional<int64_t> kept;
  for (int64_t position : group)
    if (shape[position] != 1) {
      if (kept)
        return std::nullopt;
      kept = position;
    }
  return kept ? kept : std::optional<int64_t>(group.front());
}

std::optional<AffineMap> mlir::subgroup_matrix::mapThroughCollapse(
    AffineMap map, ArrayRef<int64_t> sourceShape,
    ArrayRef<ReassociationIndices> groups) {
  MLIRContext *context = map.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [position, group] : llvm::enumerate(groups)) {
    std::optional<int64_t> kept = getOnlyLongDimension(sourceShape, group);
    if (!kept)
      return std::nullopt;
    for (int64_t source : group)
      exprs.push_back(source == *kept ? map.getResult(position)
                                      : getAffineConstantExpr(0, context));
  }
  return AffineMap::get(map.getNumDims(), 0, exprs, context);
}

SmallVector<Value> mlir::subgroup_matrix::cloneScalarBodyResults(
    OpBuilder &builder, Block &body, IRMapping &mapping,
    function_ref<bool(Operation &)> emitInstead) {
  for (Operation &op : body.without_terminator()) {
    // Ops whose results the caller provides (linalg.index) are not copied.
    if (op.getNumResults() && llvm::all_of(op.getResults(), [&](Value result) {
          return mapping.contains(result);
        }))
      continue;
    // Constants from outside first: an op emitted instead (a gather's
    // indices) reads them too. (Not its buffer: the caller maps that.)
    for (Value operand : op.getOperands())
      if (operand.getParentBlock() != &body && !mapping.contains(operand) &&
          matchPattern(operand, m_Constant()))
        mapping.map(operand,
                    builder.clone(*operand.getDefiningOp())->getResult(0));
    if (emitInstead && emitInstead(op))
      continue;
    // A branch's blocks are copied the same way (their gathers and
    // outside constants included).
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      auto copy =
          scf::IfOp::create(builder, branch.getLoc(), branch.getResultTypes(),
                            mapping.lookupOrDefault(branch.getCondition()),
                            /*addThenBlock=*/true,
                            /*addElseBlock=*/!branch.getElseRegion().empty());
      for (auto [from, to] :
           llvm::zip(branch->getRegions(), copy->getRegions())) {
        if (from.empty())
          continue;
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(&to.front());
        SmallVector<Value> yielded =
            cloneScalarBodyResults(builder, from.front(), mapping, emitInstead);
        scf::YieldOp::create(builder, branch.getLoc(), yielded);
      }
      mapping.map(branch.getResults(), copy.getResults());
      continue;
    }
    builder.clone(op, mapping);
  }
  // A body may yield a constant from outside (a fill written as a map).
  SmallVector<Value> results;
  for (Value yielded : body.getTerminator()->getOperands()) {
    if (yielded.getParentBlock() != &body && !mapping.contains(yielded))
      if (Operation *constant = yielded.getDefiningOp())
        mapping.map(yielded, builder.clone(*constant)->getResult(0));
    results.push_back(mapping.lookupOrDefault(yielded));
  }
  return results;
}

Value mlir::subgroup_matrix::cloneScalarBody(OpBuilder &builder, Block &body,
                                             IRMapping &mapping) {
  return cloneScalarBodyResults(builder, body, mapping).front();
}

linalg::GenericOp mlir::subgroup_matrix::buildContractionGeneric(
    OpBuilder &builder, Location loc, Value a, Value b, Value c,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators) {
  return linalg::GenericOp::create(
      builder, loc, ValueRange{a, b}, ValueRange{c}, maps, iterators,
      [](OpBuilder &nested, Location loc, ValueRange args) {
        Type accumulator = args[2].getType();
        auto extend = [&](Value value) -> Value {
          if (value.getType() == accumulator)
            return value;
          if (isa<FloatType>(accumulator))
            return arith::ExtFOp::create(nested, loc, accumulator, value);
          return arith::ExtSIOp::create(nested, loc, accumulator, value);
        };
        Value product =
            isa<FloatType>(accumulator)
                ? Value(arith::MulFOp::create(nested, loc, extend(args[0]),
                                              extend(args[1])))
                : Value(arith::MulIOp::create(nested, loc, extend(args[0]),
                                              extend(args[1])));
        Value sum =
            isa<FloatType>(accumulator)
                ? Value(arith::AddFOp::create(nested, loc, args[2], product))
                : Value(arith::AddIOp::create(nested, loc, args[2], product));
        linalg::YieldOp::create(nested, loc, sum);
      });
}
