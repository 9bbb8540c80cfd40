//===- PrecisionPolicy.cpp - what contractions accumulate in --------------===//
//
// The stage `sm-apply-precision-policy`: f16 and bf16 contractions that
// write f16 or bf16 are rewritten to accumulate in an f32 buffer, rounded
// once into the original output by an element-wise truncation that the
// contraction's kernel later takes over as its epilogue. The rewrite is on
// linalg, so the kernel stages see an ordinary f16/bf16 -> f32 product and
// a fused cast, which they already tile and check.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/AccumulateInF32.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_APPLYPRECISIONPOLICYPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// What the policy makes of each contraction's accumulator.
struct PrecisionPolicy {
  /// f16 products into f16 keep f16 accumulators.
  bool f16Accumulates = false;
  /// What the inputs of f32 products into f32 are rounded to (null: they
  /// are not, and the kernel emulates its matrices).
  Type f32InputsRoundedTo;

  /// Whether a contraction of `input` elements into `output` ones should
  /// accumulate in f32 instead.
  bool widens(Type input, Type output) const {
    if (!isa<Float16Type, BFloat16Type>(input) ||
        !isa<Float16Type, BFloat16Type>(output))
      return false;
    return !(f16Accumulates && input.isF16() && output.isF16());
  }
};
} // namespace

/// `value` (C's f16 or bf16 fill value) as f32: a constant stays a constant
/// (the contraction's kernel folds constant fills only).
static Value widenScalar(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(f32, constant.getValueAsDouble()));
  return arith::ExtFOp::create(b, loc, f32, value);
}

/// An element-wise generic from `input` to `output` (same shape) whose body
/// is `cast` of the element.
template <typename CastOp>
static void castBuffer(OpBuilder &b, Location loc, Value input, Value output) {
  auto type = cast<MemRefType>(output.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, ValueRange{input}, ValueRange{output},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value element =
            CastOp::create(nested, nestedLoc, type.getElementType(), args[0]);
        linalg::YieldOp::create(nested, nestedLoc, element);
      });
}

/// A new buffer of `buffer`'s shape (its dynamic sizes read off it) with
/// `element`s.
static Value allocateLike(OpBuilder &b, Location loc, Value buffer,
                          Type element) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, buffer, dim));
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), element), dynamicSizes);
}

/// Rewrites `op` (a contraction into the f16/bf16 buffer C) to accumulate
/// in a new f32 buffer, and rounds that into C after it.
static void widenAccumulator(linalg::LinalgOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value c = op.getDpsInits()[0];
  // A fill of C before `op` becomes the f32 buffer's: the buffer is made
  // before it.
  linalg::FillOp fill = getFillBefore(op, c);
  if (fill)
    b.setInsertionPoint(fill);
  Value wide = allocateLike(b, loc, c, b.getF32Type());

  // The accumulator starts as C's fill, or as C.
  if (fill) {
    Value value = widenScalar(b, loc, fill.getDpsInputs()[0]);
    linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{wide});
    fill.erase();
    b.setInsertionPoint(op);
  } else {
    castBuffer<arith::ExtFOp>(b, loc, c, wide);
  }

  // The same loops and maps; the body extends each product's factors and
  // sums in f32.
  buildContractionGeneric(b, loc, op.getDpsInputs()[0], op.getDpsInputs()[1],
                          wide, op.getIndexingMapsArray(),
                          op.getIteratorTypesArray());
  castBuffer<arith::TruncFOp>(b, loc, wide, c);
  memref::DeallocOp::create(b, loc, wide);
  op->erase();
}

/// The element-wise generic that alone writes `input` (or the buffer that
/// `input` collapses), a temporary that only it, `op` and its deallocation
/// use (a dequantization, a scale, a convolution's window): its result can
/// be widened where it is computed.
static linalg::GenericOp getWidenableProducer(Value input,
                                              linalg::LinalgOp op) {
  Value written = input;
  Operation *reader = op;
  if (auto view = input.getDefiningOp<memref::CollapseShapeOp>()) {
    if (!llvm::all_of(input.getUsers(),
                      [&](Operation *user) { return user == op; }))
      return {};
    written = view.getSrc();
    reader = view;
  }
  if (!written.getDefiningOp<memref::AllocOp>())
    return {};
  linalg::GenericOp producer;
  for (Operation *user : written.getUsers()) {
    if (user == reader || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || producer || generic.getNumDpsInits() != 1 ||
        generic.getDpsInits()[0] != written ||
        llvm::is_contained(generic.getDpsInputs(), written))
      return {};
    producer = generic;
  }
  if (!producer || producer->getBlock() != op->getBlock() ||
      !producer->isBeforeInBlock(op) ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      !producer.getRegion().front().getArguments().back().use_empty())
    return {};
  return producer;
}

/// `input` of `op` widened to f32: its producer made to write f32
/// (getWidenableProducer), or a new temporary that an extension writes and
/// that `temporaries` collects.
static Value widenInput(OpBuilder &b, linalg::LinalgOp op, Value input,
                        SmallVectorImpl<Value> &temporaries) {
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  linalg::GenericOp producer = getWidenableProducer(input, op);
  if (!producer) {
    Value temporary = allocateLike(b, loc, input, f32);
    castBuffer<arith::ExtFOp>(b, loc, input, temporary);
    temporaries.push_back(temporary);
    return temporary;
  }
  Value written = producer.getDpsInits()[0];
  auto narrow = written.getDefiningOp<memref::AllocOp>();
  OpBuilder atAlloc(narrow);
  auto type = cast<MemRefType>(written.getType());
  Value wide = memref::AllocOp::create(atAlloc, narrow.getLoc(),
                                       MemRefType::get(type.getShape(), f32),
                                       narrow.getDynamicSizes());
  producer.getDpsInitsMutable()[0].set(wide);
  Block &body = producer.getRegion().front();
  body.getArguments().back().setType(f32);
  Operation *yield = body.getTerminator();
  OpBuilder atYield(yield);
  yield->setOperand(0, arith::ExtFOp::create(atYield, yield->getLoc(), f32,
                                             yield->getOperand(0)));
  for (Operation *user : llvm::make_early_inc_range(written.getUsers()))
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
      dealloc.getMemrefMutable().set(wide);
  // The contraction reads the widened buffer as it read the narrow one.
  if (auto view = input.getDefiningOp<memref::CollapseShapeOp>()) {
    OpBuilder atView(view);
    return memref::CollapseShapeOp::create(atView, view.getLoc(), wide,
                                           view.getReassociationIndices());
  }
  return wide;
}

/// Replaces the product `op` by the same product of `inputs` into its
/// output, and frees `temporaries` (buffers the rewrite made for it) after.
static void replaceProductInputs(linalg::LinalgOp op, ValueRange inputs,
                                 ValueRange temporaries) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  buildContractionGeneric(b, loc, inputs[0], inputs[1], op.getDpsInits()[0],
                          op.getIndexingMapsArray(),
                          op.getIteratorTypesArray());
  for (Value temporary : temporaries)
    memref::DeallocOp::create(b, loc, temporary);
  op->erase();
}

/// Rewrites the f16 or bf16 product `op` into f32 to read its inputs
/// widened to f32 (widenInput), for a target whose f32 matrices multiply
/// it (ProductForm::Widened): the kernel takes the widening producers over
/// as it stages the tiles.
static void widenInputs(linalg::LinalgOp op) {
  OpBuilder b(op);
  SmallVector<Value> inputs = op.getDpsInputs(), widened, temporaries;
  llvm::SmallDenseMap<Value, Value> widenedOf;
  for (Value input : inputs) {
    Value &wide = widenedOf[input];
    if (!wide)
      wide = widenInput(b, op, input, temporaries);
    widened.push_back(wide);
  }
  replaceProductInputs(op, widened, temporaries);
  // The narrow temporaries whose producers now write f32 are unused. Each
  // once: a Gram matrix reads one buffer as both operands.
  for (Value input : llvm::SetVector<Value>(inputs.begin(), inputs.end())) {
    if (auto view = input.getDefiningOp<memref::CollapseShapeOp>()) {
      if (!view->use_empty())
        continue;
      input = view.getSrc();
      view->erase();
    }
    if (auto alloc = input.getDefiningOp<memref::AllocOp>())
      if (alloc->use_empty())
        alloc->erase();
  }
}

/// Rewrites the f32 product `op` to read its inputs rounded to `narrow`
/// (in temporaries that truncations write) and accumulate in f32.
static void roundInputs(linalg::LinalgOp op, Type narrow) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> rounded;
  for (Value input : op.getDpsInputs()) {
    Value temporary = allocateLike(b, loc, input, narrow);
    castBuffer<arith::TruncFOp>(b, loc, input, temporary);
    rounded.push_back(temporary);
  }
  replaceProductInputs(op, rounded, rounded);
}

namespace {
struct ApplyPrecisionPolicyPass
    : public subgroup_matrix::impl::ApplyPrecisionPolicyPassBase<
          ApplyPrecisionPolicyPass> {
  using ApplyPrecisionPolicyPassBase::ApplyPrecisionPolicyPassBase;

  void runOnOperation() override {
    PrecisionPolicy policy;
    if (accumulate == "f16") {
      policy.f16Accumulates = true;
    } else if (accumulate != "f32") {
      getOperation().emitError()
          << "sm-apply-precision-policy: unknown accumulate '" << accumulate
          << "' (expected 'f32' or 'f16')";
      return signalPassFailure();
    }
    FailureOr<TargetAttr> target =
        resolveTargetOption(getOperation().getLoc(), targetName);
    if (failed(target))
      return signalPassFailure();
    if (!*target)
      *target = findEnclosingTarget(getOperation());
    if (f32Matmul == "f16" || f32Matmul == "bf16") {
      Builder builder(&getContext());
      Type f32 = builder.getF32Type();
      Type narrow = f32Matmul == "f16" ? Type(builder.getF16Type())
                                       : Type(builder.getBF16Type());
      auto hasMatrices = [&](Type input) {
        return !*target ||
               llvm::any_of((*target).getConfigs(),
                            [&](MatrixConfigAttr config) {
                              return config.getComponentType() == input &&
                                     config.getResultType() == f32;
                            });
      };
      // Rounded where the matrix units lack f32 and have the narrow type
      // (RDNA3 has no bf16: its f32 products stay emulated).
      if (!hasMatrices(f32) && hasMatrices(narrow))
        policy.f32InputsRoundedTo = narrow;
    } else if (f32Matmul != "emulate") {
      getOperation().emitError()
          << "sm-apply-precision-policy: unknown f32-matmul '" << f32Matmul
          << "' (expected 'emulate', 'f16' or 'bf16')";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> contractions, roundedProducts;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          !op.hasPureBufferSemantics() || !isMatrixContraction(op))
        return;
      auto elementType = [&](Value value) {
        return cast<MemRefType>(value.getType()).getElementType();
      };
      Type a = elementType(op.getDpsInputs()[0]);
      Type b = elementType(op.getDpsInputs()[1]);
      // A matrix contraction's body is a sum of products of its operands,
      // maybe cast: the f32 body that replaces it computes the same.
      Type c = elementType(op.getDpsInits()[0]);
      if (a == b && policy.widens(a, c) && !op->getNumResults())
        contractions.push_back(op);
      if (a == b && a.isF32() && c.isF32() && policy.f32InputsRoundedTo)
        roundedProducts.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      widenAccumulator(op);
    if (*target)
      widenHalfPrecisionOperands(*target);
    for (linalg::LinalgOp op : roundedProducts)
      roundInputs(op, policy.f32InputsRoundedTo);
    if (!policy.f16Accumulates)
      widenElementwiseReductions();
  }

  /// Products of f16 or bf16 into f32 that `target` multiplies in its f32
  /// matrices (chooseProductForm) read their operands widened.
  void widenHalfPrecisionOperands(TargetAttr target) {
    SmallVector<linalg::LinalgOp> widened;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          !op.hasPureBufferSemantics() || !isMatrixContraction(op) ||
          op->getNumResults())
        return;
      auto elementType = [&](Value value) {
        return cast<MemRefType>(value.getType()).getElementType();
      };
      Type a = elementType(op.getDpsInputs()[0]);
      Type c = elementType(op.getDpsInits()[0]);
      if (a == elementType(op.getDpsInputs()[1]) &&
          chooseProductForm(a, c, target) == ProductForm::Widened)
        widened.push_back(op);
    });
    for (linalg::LinalgOp op : widened) {
      if (report)
        op->emitRemark()
            << "its "
            << cast<MemRefType>(op.getDpsInputs()[0].getType()).getElementType()
            << " operands are widened to f32 as its kernel stages them: "
               "target '"
            << target.getName().getValue()
            << "' multiplies f32 matrices and has none of that type";
      widenInputs(op);
    }
  }

  /// Reductions that are no matrix products (a sum along rows, a pooling,
  /// a dot product) sum into f16 or bf16 outputs in f32 too, rounding
  /// once: their kernels carry what the body computes, so the body
  /// computes in f32 into an f32 copy of the output.
  void widenElementwiseReductions() {
    SmallVector<linalg::LinalgOp> reductions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>() &&
          op.hasPureBufferSemantics() && reducesIntoNarrowFloat(op) &&
          !isMatrixContraction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : reductions) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      accumulateInF32(generic);
    }
  }
};
} // namespace
