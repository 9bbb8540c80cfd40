//===- KernelStages.cpp - the kernel stages of sm-linalg-to-gpu -----------===//
//
// After the program is prepared (LinalgToGPU.cpp): sm-plan-kernels chooses
// the tiling of every attention and contraction and attaches it as a
// `subgroup_matrix.plan` attribute; sm-attention-to-kernels,
// sm-contractions-to-kernels and sm-elementwise-to-kernels make the kernels,
// following those plans. What cannot go to the GPU is reported; nothing
// silently stays on the host.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/RowGroupKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TilingPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TuningTable.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_PLANKERNELSPASS
#define GEN_PASS_DEF_ATTENTIONTOKERNELSPASS
#define GEN_PASS_DEF_CONTRACTIONSTOKERNELSPASS
#define GEN_PASS_DEF_ELEMENTWISETOKERNELSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The name of the gpu.module that holds all kernels of a program.
static constexpr llvm::StringLiteral kProgramKernelsName = "kernels";

/// The program's gpu.module of kernels, if an earlier stage made it.
static gpu::GPUModuleOp findProgramKernels(ModuleOp module) {
  for (auto kernels : module.getOps<gpu::GPUModuleOp>())
    if (kernels.getSymName() == kProgramKernelsName)
      return kernels;
  return {};
}

/// The target a kernel stage generates for: the `target` option's preset,
/// else the module's attribute, else that of the kernels an earlier stage
/// made; reports its absence.
static FailureOr<TargetAttr> getProgramTarget(ModuleOp module,
                                              StringRef targetName) {
  FailureOr<TargetAttr> overrideTarget =
      resolveTargetOption(module.getLoc(), targetName);
  if (failed(overrideTarget))
    return failure();
  TargetAttr target = *overrideTarget;
  if (!target)
    target = module->getAttrOfType<TargetAttr>(
        SubgroupMatrixDialect::getTargetAttrName());
  if (gpu::GPUModuleOp kernels = findProgramKernels(module); !target && kernels)
    target = kernels->getAttrOfType<TargetAttr>(
        SubgroupMatrixDialect::getTargetAttrName());
  if (!target) {
    emitError(module.getLoc(),
              "sm-linalg-to-gpu needs a target: pass target=NAME "
              "or set subgroup_matrix.target on the module");
    return failure();
  }
  return target;
}

/// Whether `op` is host code (not already in a kernel).
static bool isOnHost(Operation *op) {
  return !op->getParentOfType<gpu::GPUModuleOp>();
}

namespace {
/// Where the kernel stages put their kernels: all kernels of a program go
/// into one gpu.module @kernels (one SPIR-V module, one Metal library)
/// before the first function, made by the first stage that needs it, and
/// are numbered in the order they are made, whichever stage makes them.
class ProgramKernels {
public:
  ProgramKernels(ModuleOp module, TargetAttr target)
      : module(module), target(target), kernels(findProgramKernels(module)) {
    if (kernels)
      count = llvm::range_size(kernels.getOps<gpu::GPUFuncOp>());
  }

  gpu::GPUModuleOp get() {
    if (kernels)
      return kernels;
    MLIRContext *context = module.getContext();
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    kernels =
        gpu::GPUModuleOp::create(builder, module.getLoc(), kProgramKernelsName);
    kernels->setAttr(SubgroupMatrixDialect::getTargetAttrName(), target);
    SymbolTable(module).insert(kernels, module.getBody()->begin());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(context));
    return kernels;
  }

  /// The name of the next kernel: `stem_N`, N counting every kernel made.
  std::string nextName(StringRef stem) {
    return (stem + "_" + Twine(count++)).str();
  }

private:
  ModuleOp module;
  TargetAttr target;
  gpu::GPUModuleOp kernels;
  unsigned count = 0;
};
} // namespace

/// The remark `report=1` attaches to an op of the program: the kernel it
/// became (or was fused into) and why that kind of kernel.
static void reportKernel(Operation *op, StringRef verb, StringRef kernel,
                         const Twine &why) {
  op->emitRemark() << verb << " kernel '" << kernel << "': " << why;
}

/// linalg.softmax on buffers as the linalg.generic ops that compute it: a
/// max, the sum of the shifted exponentials, and their quotient, which
/// computes the exponentials again rather than keeping them in a buffer:
/// the row group that becomes one kernel (a softmax inside attention is
/// fused instead).
static LogicalResult decomposeSoftmax(RewriterBase &rewriter,
                                      linalg::SoftmaxOp softmax) {
  Location loc = softmax.getLoc();
  Value input = softmax.getInput(), output = softmax.getOutput();
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || !isa<MemRefType>(output.getType()))
    return softmax.emitOpError("cannot be put on the GPU: it works on "
                               "tensors"),
           failure();
  auto elementType = dyn_cast<FloatType>(type.getElementType());
  if (!elementType)
    return softmax.emitOpError("cannot be put on the GPU: its elements are "
                               "not floats"),
           failure();
  int64_t rank = type.getRank(), dimension = softmax.getDimension();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(softmax);
  // The reduced buffer: the input's shape without `dimension`.
  SmallVector<int64_t> reducedShape;
  SmallVector<Value> reducedSizes;
  SmallVector<AffineExpr> reducedExprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dimension)
      continue;
    reducedShape.push_back(type.getDimSize(d));
    reducedExprs.push_back(getAffineDimExpr(d, context));
    if (type.isDynamicDim(d))
      reducedSizes.push_back(memref::DimOp::create(rewriter, loc, input, d));
  }
  auto reducedType = MemRefType::get(reducedShape, elementType);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, context);
  SmallVector<utils::IteratorType> reducing(rank,
                                            utils::IteratorType::parallel);
  reducing[dimension] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  auto constant = [&](OpBuilder &b, double value) {
    return arith::ConstantOp::create(b, loc,
                                     FloatAttr::get(elementType, value));
  };
  Value maxima =
      memref::AllocOp::create(rewriter, loc, reducedType, reducedSizes);
  Value sums =
      memref::AllocOp::create(rewriter, loc, reducedType, reducedSizes);
  // The lowest finite value rather than -inf starts the maximum, so that
  // a row of -inf gives exp(-inf - m) = 0, never NaN.
  Value lowest = arith::ConstantOp::create(
      rewriter, loc,
      FloatAttr::get(elementType,
                     APFloat::getLargest(elementType.getFloatSemantics(),
                                         /*Negative=*/true)));
  linalg::FillOp::create(rewriter, loc, ValueRange{lowest}, ValueRange{maxima});
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input}, ValueRange{maxima},
      ArrayRef<AffineMap>{identity, reduced}, reducing,
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(
            b, loc, Value(arith::MaximumFOp::create(b, loc, args[0], args[1])));
      });
  linalg::FillOp::create(rewriter, loc, ValueRange{constant(rewriter, 0.0)},
                         ValueRange{sums});
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input, maxima}, ValueRange{sums},
      ArrayRef<AffineMap>{identity, reduced, reduced}, reducing,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value exponential = math::ExpOp::create(b, loc, shifted);
        linalg::YieldOp::create(
            b, loc, Value(arith::AddFOp::create(b, loc, exponential, args[2])));
      });
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input, maxima, sums}, ValueRange{output},
      ArrayRef<AffineMap>{identity, reduced, reduced, identity}, parallel,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value exponential = math::ExpOp::create(b, loc, shifted);
        linalg::YieldOp::create(
            b, loc, Value(arith::DivFOp::create(b, loc, exponential, args[2])));
      });
  memref::DeallocOp::create(rewriter, loc, maxima);
  memref::DeallocOp::create(rewriter, loc, sums);
  rewriter.eraseOp(softmax);
  return success();
}

/// The attention tiling the `attention-*` options ask for; reports a bad
/// `attention-softmax` at `loc`.
static FailureOr<AttentionTiling>
readAttentionTilingOptions(Location loc, int64_t subgroups, int64_t keyBlock,
                           StringRef softmax) {
  AttentionTiling tiling;
  tiling.subgroups = subgroups;
  tiling.keyBlock = keyBlock;
  if (softmax == "registers")
    tiling.softmax = AttentionTiling::Softmax::Registers;
  else if (softmax == "workgroup-memory")
    tiling.softmax = AttentionTiling::Softmax::WorkgroupMemory;
  else if (!softmax.empty())
    return emitError(loc, "attention-softmax must be 'registers' or "
                          "'workgroup-memory', not '")
               << softmax << "'",
           failure();
  return tiling;
}

namespace {
struct PlanKernelsPass
    : public subgroup_matrix::impl::PlanKernelsPassBase<PlanKernelsPass> {
  using PlanKernelsPassBase::PlanKernelsPassBase;
  template <typename PassWithTilingOptions>
  friend MatmulTiling
  subgroup_matrix::readMatmulTilingOptions(const PassWithTilingOptions &);

  void runOnOperation() override;
};
} // namespace

/// The buffer that `view` is a chain of views of, and the map from the
/// view's indices to the buffer's; none unless every view is a
/// memref.subview with static offsets and strides that keeps every
/// dimension, a static memref.expand_shape, or a memref.collapse_shape
/// that only drops dimensions of size 1 (a batch of one folded away), and
/// the buffer is row-major.
static std::optional<std::pair<Value, AffineMap>> getViewedBuffer(Value view) {
  auto type = cast<MemRefType>(view.getType());
  MLIRContext *context = view.getContext();
  AffineMap map = AffineMap::getMultiDimIdentityMap(type.getRank(), context);
  AffineExpr zero = getAffineConstantExpr(0, context);
  while (Operation *definition = view.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(definition)) {
      if (subview.getSourceType().getRank() != subview.getType().getRank() ||
          ShapedType::isDynamicShape(subview.getStaticOffsets()) ||
          ShapedType::isDynamicShape(subview.getStaticStrides()))
        return std::nullopt;
      map = applyStaticView(map, subview.getStaticOffsets(),
                            subview.getStaticStrides());
      view = subview.getSource();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(definition)) {
      // Each collapsed index is the index of its group's long dimension.
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      SmallVector<AffineExpr> exprs;
      for (auto [position, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        std::optional<int64_t> kept = getOnlyLongDimension(shape, group);
        if (!kept)
          return std::nullopt;
        for (int64_t source : group)
          exprs.push_back(source == *kept ? map.getResult(position) : zero);
      }
      map = AffineMap::get(map.getNumDims(), 0, exprs, context);
      view = collapse.getSrc();
    } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(definition)) {
      // Each source index is its group's indices linearized (row-major).
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      if (ShapedType::isDynamicShape(shape))
        return std::nullopt;
      SmallVector<AffineExpr> exprs;
      for (ReassociationIndices group : expand.getReassociationIndices()) {
        AffineExpr linear = zero;
        for (int64_t position : group)
          linear = linear * shape[position] + map.getResult(position);
        exprs.push_back(linear);
      }
      map = AffineMap::get(map.getNumDims(), 0, exprs, context);
      view = expand.getSrc();
    } else {
      break;
    }
  }
  if (!cast<MemRefType>(view.getType()).getLayout().isIdentity())
    return std::nullopt;
  return std::make_pair(view, map);
}

/// Gives `op` contiguous copies of its operands that are static strided
/// views of a row-major buffer (a slice of a wider matrix): a matrix
/// product's kernels read and write dense row-major matrices, and a
/// reduction over a slice cannot fold the view into its maps. The copies
/// are strided copies, kernels of their own (sm-elementwise-to-kernels);
/// an output is copied in and, after `op`, back. Other views stay, to be
/// reported.
static void copyStridedOperands(RewriterBase &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || type.getLayout().isIdentity() || type.getMemorySpace() ||
        !type.hasStaticShape() || !getViewedBuffer(operand.get()))
      continue;
    Value view = operand.get();
    rewriter.setInsertionPoint(op);
    Value copy = memref::AllocOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()));
    memref::CopyOp::create(rewriter, loc, view, copy);
    rewriter.modifyOpInPlace(op, [&]() { operand.set(copy); });
    if (op.isDpsInit(&operand)) {
      rewriter.setInsertionPointAfter(op);
      memref::CopyOp::create(rewriter, loc, copy, view);
    }
  }
}

void PlanKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
  if (failed(target))
    return signalPassFailure();
  FailureOr<AttentionTiling> attentionTiling = readAttentionTilingOptions(
      module.getLoc(), attentionSubgroups, attentionKeyBlock, attentionSoftmax);
  if (failed(attentionTiling))
    return signalPassFailure();
  MatmulTiling requested = readMatmulTilingOptions(*this);
  requested.splitK = splitK;
  TuningTableOption tuningOption;
  if (failed(tuningOption.parse(module.getLoc(), tuningTable)))
    return signalPassFailure();
  const TuningTable *tuning = tuningOption.getFor(*target);
  StringRef planName = SubgroupMatrixDialect::getPlanAttrName();

  // Attention first: its products are the kernel's, not kernels of their
  // own. A plan already attached (by hand) is kept. Where the options ask
  // for nothing and the defaults do not fit, the attention's ops become
  // kernels of their own; what the options ask is honoured or reported.
  bool failedAny = false;
  llvm::SmallPtrSet<Operation *, 8> inAttention;
  module.walk([&](linalg::SoftmaxOp softmax) {
    if (!isOnHost(softmax))
      return;
    std::optional<Attention> attention = matchAttention(softmax);
    if (!attention)
      return;
    if (!softmax->hasAttr(planName)) {
      bool asked = !attentionTiling->isDefault();
      FailureOr<AttentionPlan> plan =
          planAttention(*attention, *target, *attentionTiling, asked);
      if (failed(plan)) {
        failedAny |= asked;
        return;
      }
      softmax->setAttr(planName, plan->getAttr());
    }
    inAttention.insert(attention->ops.begin(), attention->ops.end());
  });

  IRRewriter rewriter(module.getContext());
  module.walk([&](linalg::LinalgOp op) {
    if (!isOnHost(op) || !isMatrixContraction(op) || inAttention.count(op) ||
        op->hasAttr(planName))
      return;
    copyStridedOperands(rewriter, op);
    FailureOr<Contraction> contraction = matchContraction(op);
    if (failed(contraction)) {
      failedAny = true;
      return;
    }
    // The plan is of the kernel the contraction becomes, with its
    // neighbours fused in (a fused extension changes what it reads).
    fuseElementwiseNeighbours(*contraction);
    FailureOr<TilingPlan> plan =
        planContraction(*contraction, *target, requested, tuning);
    if (failed(plan)) {
      failedAny = true;
      return;
    }
    op->setAttr(planName, plan->getAttr());
  });
  if (failedAny)
    signalPassFailure();
}

namespace {
struct AttentionToKernelsPass
    : public subgroup_matrix::impl::AttentionToKernelsPassBase<
          AttentionToKernelsPass> {
  using AttentionToKernelsPassBase::AttentionToKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
    if (failed(target))
      return signalPassFailure();
    ProgramKernels kernels(module, *target);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::SoftmaxOp> softmaxOps;
    module.walk([&](linalg::SoftmaxOp op) {
      if (isOnHost(op))
        softmaxOps.push_back(op);
    });
    for (linalg::SoftmaxOp op : softmaxOps) {
      std::optional<Attention> attention = matchAttention(op);
      auto attr = op->getAttrOfType<AttentionPlanAttr>(
          SubgroupMatrixDialect::getPlanAttrName());
      if (attr && !attention) {
        op.emitOpError("has an attention plan but is not the softmax of an "
                       "attention this kernel computes");
        return signalPassFailure();
      }
      // An attention without a plan (this stage run alone) is planned with
      // the target's defaults; where they do not fit, its ops become
      // kernels of their own.
      FailureOr<AttentionPlan> plan = failure();
      if (attr) {
        plan = AttentionPlan::get(attr);
        if (failed(checkAttentionPlan(*attention, *target, *plan)))
          return signalPassFailure();
      } else if (attention) {
        plan = planAttention(*attention, *target, AttentionTiling(),
                             /*report=*/false);
      }
      if (failed(plan)) {
        if (report)
          op->emitRemark("not one attention kernel: ")
              << (attention ? "no attention tiling fits the target"
                            : "it is not the softmax of scores that are "
                              "multiplied by values")
              << "; its exponentials, sums and quotient become element-wise "
                 "kernels";
        if (failed(decomposeSoftmax(rewriter, op)))
          return signalPassFailure();
        continue;
      }
      std::string name = kernels.nextName("attention");
      if (report)
        for (Operation *fused : attention->ops)
          reportKernel(fused, fused == op ? "became" : "fused into", name,
                       "the scores, their softmax and its product with the "
                       "values in one flash-attention kernel, keys in "
                       "blocks, the scores never stored");
      if (failed(emitAttentionKernel(rewriter, *attention, *target, *plan,
                                     kernels.get(), name)))
        return signalPassFailure();
    }
  }
};

struct ContractionsToKernelsPass
    : public subgroup_matrix::impl::ContractionsToKernelsPassBase<
          ContractionsToKernelsPass> {
  using ContractionsToKernelsPassBase::ContractionsToKernelsPassBase;

  /// `report=1`'s remarks on a contraction and the ops fused into its
  /// kernel `name`.
  void reportContraction(const Contraction &contraction, TargetAttr target,
                         const TilingPlan &plan, StringRef name,
                         StringRef reduction) {
    bool emulated = isEmulatedConfig(plan.config, target);
    std::string planText;
    llvm::raw_string_ostream(planText) << plan.getAttr();
    reportKernel(contraction.op, "became", name,
                 Twine("a tiled matrix product on ") +
                     (emulated ? "emulated matrices (the target has no "
                                 "matrix units for these types)"
                               : "the target's matrix units") +
                     ", plan " + planText);
    if (!reduction.empty())
      reportKernel(contraction.op, "its split K is summed by", reduction,
                   "the parts' partial products added element by element");
    for (Operation *producer : contraction.fusedProducers)
      if (isa<linalg::LinalgOp>(producer))
        reportKernel(producer, "fused into", name,
                     "computed element by element as the kernel stages "
                     "the tiles it feeds");
    // A split K writes partial products: the ops after the product (and a
    // fill of C) run after the sum, as kernels of their own (reported by
    // the element-wise stage).
    if (plan.tiling.splitK > 1)
      return;
    for (const EpilogueStep &step : contraction.epilogue)
      reportKernel(step.op, "fused into", name,
                   "applied to the accumulators before the one store");
    if (contraction.fill)
      reportKernel(contraction.fill, "fused into", name,
                   "the accumulators' initial value");
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
    if (failed(target))
      return signalPassFailure();
    // Contractions without a plan (this stage run alone) are planned with
    // the target's defaults and its shipped tuning table.
    MatmulTiling defaults;
    defaults.splitK = 0;
    TuningTableOption shippedTable;
    const TuningTable *tuning = shippedTable.getFor(*target);

    ProgramKernels kernels(module, *target);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> contractions;
    module.walk([&](linalg::LinalgOp op) {
      if (isOnHost(op) && isMatrixContraction(op))
        contractions.push_back(op);
    });
    bool failedAny = false;
    for (linalg::LinalgOp op : contractions) {
      copyStridedOperands(rewriter, op);
      FailureOr<Contraction> contraction = matchContraction(op);
      if (failed(contraction)) {
        failedAny = true;
        continue;
      }
      fuseElementwiseNeighbours(*contraction);
      FailureOr<TilingPlan> plan;
      if (auto attr = op->getAttrOfType<ContractionPlanAttr>(
              SubgroupMatrixDialect::getPlanAttrName())) {
        plan = TilingPlan::get(attr);
        if (failed(checkPlan(*contraction, *target, *plan)))
          plan = failure();
      } else {
        plan = planContraction(*contraction, *target, defaults, tuning);
      }
      if (failed(plan)) {
        failedAny = true;
        continue;
      }
      // A product's kernels are made together: the reduction of a split K
      // is not linalg that the IR may be verified with (see
      // tileContraction).
      std::string name = kernels.nextName("matmul");
      std::string reduction =
          plan->tiling.splitK > 1 ? kernels.nextName("elementwise") : "";
      if (report)
        reportContraction(*contraction, *target, *plan, name, reduction);
      linalg::GenericOp splitReduction;
      if (failed(tileContraction(rewriter, *contraction, *target, *plan,
                                 kernels.get(), name, &splitReduction)) ||
          (splitReduction &&
           failed(emitElementwiseKernel(rewriter, splitReduction, kernels.get(),
                                        reduction))))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};

struct ElementwiseToKernelsPass
    : public subgroup_matrix::impl::ElementwiseToKernelsPassBase<
          ElementwiseToKernelsPass> {
  using ElementwiseToKernelsPassBase::ElementwiseToKernelsPassBase;

  void runOnOperation() override;
};
} // namespace

/// Why an op that reached the element-wise stage is an element-wise kernel.
static std::string describeElementwiseKernel(linalg::GenericOp op) {
  std::string why = "one invocation per output element";
  if (op.getNumReductionLoops())
    why += ", its reduction loops run inside the invocation";
  if (op.getNumDpsInputs() != 2 || !op.getNumReductionLoops() ||
      !isMultiplyAccumulateBody(op.getRegion().front()))
    return why;
  // A convolution that stayed one: every convolution with output channels
  // on tensors at static sizes became a product, so this one has none.
  if (linalg::isaConvolutionOpInterface(op))
    return why + " (a convolution without output channels, such as a "
                 "depthwise one: no N loop, nothing for matrix units)";
  // A contraction that did not become a matrix product.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  bool hasMatrices = succeeded(dims) && (!dims->m.empty() || !dims->n.empty());
  if (!hasMatrices)
    return why + " (a dot product: no M or N loop, nothing for matrix units)";
  return why + " (a contraction that is no matrix product: " +
         whyNotMatrixContraction(op) + ")";
}

/// Whether a generic on `operands` through `maps` runs loops of `sizes` as
/// an element-wise kernel (getKernelLoopSizes): a view folded into its
/// buffer's map must not lend a loop the buffer's size (a one-row view's row
/// loop that nothing else indexes).
static bool keepsLoopSizes(ArrayRef<AffineMap> maps, ValueRange operands,
                           ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> kernelSizes =
      getKernelLoopSizes(maps, operands, sizes.size());
  return llvm::equal(kernelSizes, sizes) &&
         llvm::none_of(sizes, ShapedType::isDynamic);
}

/// Host copies into or out of strided views (bufferization writes a
/// tensor.pad that no convolution's loads fold as a copy into the interior
/// of the padded buffer), which the runtime copies contiguously only,
/// become element-wise generics on the whole buffers, their views' offsets
/// and strides in the maps: kernels like any other.
static void rewriteStridedCopies(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  auto isStrided = [](Value view) {
    auto type = dyn_cast<MemRefType>(view.getType());
    return type && !type.getLayout().isIdentity();
  };
  module.walk([&](memref::CopyOp copy) {
    if (isOnHost(copy) &&
        (isStrided(copy.getSource()) || isStrided(copy.getTarget())))
      copies.push_back(copy);
  });
  IRRewriter rewriter(module.getContext());
  // A contiguous side (a reshape of a product's result, say) is read or
  // written as it is; only strided ones go through to their buffers.
  auto getAccessed =
      [](Value view) -> std::optional<std::pair<Value, AffineMap>> {
    auto type = cast<MemRefType>(view.getType());
    if (type.getLayout().isIdentity())
      return std::make_pair(view, AffineMap::getMultiDimIdentityMap(
                                      type.getRank(), view.getContext()));
    return getViewedBuffer(view);
  };
  for (memref::CopyOp copy : copies) {
    auto source = getAccessed(copy.getSource());
    auto target = getAccessed(copy.getTarget());
    // Others stay for the runtime to report.
    if (!source || !target)
      continue;
    auto shape = cast<MemRefType>(copy.getSource().getType()).getShape();
    if (!keepsLoopSizes({source->second, target->second},
                        {source->first, target->first}, shape))
      continue;
    unsigned rank = shape.size();
    rewriter.setInsertionPoint(copy);
    linalg::GenericOp::create(
        rewriter, copy.getLoc(), ValueRange{source->first},
        ValueRange{target->first},
        ArrayRef<AffineMap>{source->second, target->second},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &builder, Location loc, ValueRange arguments) {
          linalg::YieldOp::create(builder, loc, arguments[0]);
        });
    rewriter.eraseOp(copy);
  }
}

/// Generics that read or write strided views of a row-major buffer (a
/// tensor.extract_slice, a tensor.concat's parts) read and write the buffer
/// itself, the views' offsets and strides in their maps, or else
/// contiguous copies of the views: element-wise kernels take contiguous
/// buffers only. (Before strided copies become generics.)
static void foldViewsIntoMaps(ModuleOp module) {
  SmallVector<linalg::GenericOp> generics;
  module.walk([&](linalg::GenericOp op) {
    if (isOnHost(op) && op.hasPureBufferSemantics())
      generics.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : generics) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> buffers;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || type.getLayout().isIdentity())
        continue;
      auto viewed = getViewedBuffer(operand.get());
      if (!viewed)
        continue;
      unsigned position = operand.getOperandNumber();
      maps[position] = viewed->second.compose(maps[position]);
      buffers.push_back({&operand, viewed->first});
    }
    if (buffers.empty())
      continue;
    SmallVector<Value> operands = op->getOperands();
    for (auto [operand, buffer] : buffers)
      operands[operand->getOperandNumber()] = buffer;
    // A loop that only a view spans (the reduced dimension of a slice)
    // loses its size in the buffer's map: the generic reads a contiguous
    // copy of the view instead.
    if (!keepsLoopSizes(maps, operands,
                        getKernelLoopSizes(op.getIndexingMapsArray(),
                                           op->getOperands(),
                                           op.getNumLoops()))) {
      copyStridedOperands(rewriter, op);
      continue;
    }
    rewriter.modifyOpInPlace(op, [&]() {
      for (auto [operand, buffer] : buffers)
        operand->set(buffer);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
  // Views nothing reads any more (a reshape of a strided view would be the
  // runtime's to refuse), the last of each chain first.
  while (true) {
    SmallVector<Operation *> unused;
    module.walk([&](Operation *op) {
      if (isa<memref::SubViewOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp>(op) &&
          op->use_empty() && isOnHost(op))
        unused.push_back(op);
    });
    if (unused.empty())
      break;
    for (Operation *op : unused)
      rewriter.eraseOp(op);
  }
}

/// Whether `op` has a loop of no iterations, and so writes nothing.
static bool writesNothing(linalg::GenericOp op) {
  return llvm::is_contained(getKernelLoopSizes(op.getIndexingMapsArray(),
                                               op->getOperands(),
                                               op.getNumLoops()),
                            0);
}

void ElementwiseToKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
  if (failed(target))
    return signalPassFailure();
  IRRewriter rewriter(&getContext());
  // Named ops (a pooling, a copy, a linalg.reduce) as generics, so that
  // views fold into their maps, fills before them can be their starting
  // values and reductions can join row groups; fills stay fills to be
  // found. (Before any op is erased: an op created after the row groups'
  // ops are erased could take one's address and pass for grouped.)
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (isOnHost(op) && !isa<linalg::GenericOp, linalg::FillOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  foldViewsIntoMaps(module);
  rewriteStridedCopies(module);
  ProgramKernels kernels(module, *target);
  SmallVector<linalg::LinalgOp> remaining;
  module.walk([&](linalg::LinalgOp op) {
    if (isOnHost(op))
      remaining.push_back(op);
  });
  bool failedAny = false;
  // Reductions along rows and the op over the rows that reads them (a
  // softmax, a norm) first: one kernel each group.
  SmallVector<RowGroup> rowGroups;
  for (linalg::LinalgOp op : remaining)
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      if (std::optional<RowGroup> group = findRowGroup(generic))
        rowGroups.push_back(*group);
  DenseSet<Operation *> grouped;
  for (const RowGroup &group : rowGroups) {
    std::string name = kernels.nextName("row_group");
    if (report)
      reportKernel(group.last, "with the reductions it reads became", name,
                   "one workgroup per row, which folds " +
                       Twine(group.reductions.size()) +
                       " reductions along the row in turn and then writes "
                       "the row");
    for (auto [fill, reduction] : group.reductions) {
      grouped.insert(fill);
      grouped.insert(reduction);
    }
    grouped.insert(group.last);
    if (failed(emitRowGroupKernel(rewriter, group, kernels.get(), name)))
      failedAny = true;
  }
  // An op with a loop of no iterations writes nothing (a reduction leaves
  // its output at its starting value): no kernel.
  for (linalg::LinalgOp op : remaining) {
    if (grouped.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || !writesNothing(generic))
      continue;
    grouped.insert(generic);
    rewriter.eraseOp(generic);
  }
  // The erased ops leave the list, and `grouped` holds live fills from here
  // on: an op created below could take an erased one's address.
  llvm::erase_if(remaining,
                 [&](linalg::LinalgOp op) { return grouped.contains(op); });
  grouped.clear();
  // Long reductions into few outputs in two steps (the parts' fill is the
  // first step's starting value). The steps take the op's place in
  // `remaining` and are appended, past the end this loop visits: neither
  // is split again.
  for (size_t i = 0, e = remaining.size(); i < e; ++i) {
    // (Ops of row groups are gone.)
    if (grouped.contains(remaining[i]))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(remaining[i].getOperation());
    if (!generic)
      continue;
    // (Each step is reported as the kernel it becomes, at the op's place.)
    FailureOr<SplitReduction> split =
        splitLongReduction(rewriter, generic, *target);
    if (failed(split))
      continue;
    remaining[i] = split->parts;
    remaining.push_back(split->fill);
    remaining.push_back(split->total);
  }
  // A fill right before the op that writes every element of that output
  // from it (a reduction's starting value) is no kernel of its own.
  DenseMap<Operation *, SmallVector<linalg::FillOp>> startingFills;
  for (linalg::LinalgOp op : remaining) {
    // (Ops of row groups are gone.)
    if (grouped.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      continue;
    SmallVector<linalg::FillOp> fills;
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      linalg::FillOp fill = getFillBefore(generic, init.get());
      if (!fill || grouped.contains(fill) ||
          !canStartFromFill(generic, init, fill))
        fill = {};
      fills.push_back(fill);
    }
    if (llvm::any_of(fills, [](linalg::FillOp fill) { return bool(fill); })) {
      for (linalg::FillOp fill : fills)
        if (fill)
          grouped.insert(fill);
      startingFills[generic] = std::move(fills);
    }
  }
  for (linalg::LinalgOp op : remaining) {
    if (grouped.contains(op))
      continue;
    // Looked up by the op as it was: a named op generalized below is a new
    // op, which may take the address of one erased before it.
    SmallVector<linalg::FillOp> fills = startingFills.lookup(op);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized)) {
        op->emitOpError("cannot be put on the GPU: it is neither a matrix "
                        "product nor element-wise");
        failedAny = true;
        continue;
      }
      generic = *generalized;
    }
    // (A fill of no elements.)
    if (writesNothing(generic)) {
      rewriter.eraseOp(generic);
      continue;
    }
    std::string name = kernels.nextName("elementwise");
    // On the generic: a named op generalized is gone (its location stays).
    if (report &&
        canEmitElementwiseKernel(generic, /*report=*/false, /*computed=*/{},
                                 /*allowBodyLoads=*/true))
      reportKernel(generic, "became", name, describeElementwiseKernel(generic));
    if (failed(emitElementwiseKernel(rewriter, generic, kernels.get(), name,
                                     fills)))
      failedAny = true;
  }
  if (failedAny)
    return signalPassFailure();

  // Nothing of linalg stays on the host unannounced.
  WalkResult leftover = module.walk([&](Operation *op) {
    if (isa_and_nonnull<linalg::LinalgDialect>(op->getDialect()) &&
        isOnHost(op) && !isa<linalg::YieldOp>(op)) {
      op->emitOpError("cannot be put on the GPU: sm-linalg-to-gpu has no "
                      "kernel for it");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    signalPassFailure();
}
