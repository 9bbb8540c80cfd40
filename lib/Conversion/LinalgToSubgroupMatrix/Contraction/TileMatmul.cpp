//===- TileMatmul.cpp - a contraction to its kernel and launch ------------===//
//
// Puts the three steps together (Contraction.h reads the linalg op,
// TilingPlan.h tiles it, KernelEmitter.h writes the kernel), places the
// kernel in a gpu.module of its own and replaces the linalg ops by its
// launch. The sm-tile-matmul pass applies it to every linalg.matmul.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/DotProductKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_TILEMATMULPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The name sm-vulkan-runner gives buffers of `storage` elements.
static StringRef getRunnerElementName(Type storage, bool isUnsigned) {
  if (storage.isF16())
    return "f16";
  if (storage.isBF16())
    return "bf16";
  if (storage.isF32())
    return "f32";
  if (storage.isInteger(8))
    return isUnsigned ? "u8" : "i8";
  return isUnsigned ? "u32" : "i32";
}

/// The number of workgroups along a size: ceil(size / tile), a size
/// expression where the size is dynamic.
static std::string getGridText(int64_t size, StringRef name, int64_t tile) {
  if (!ShapedType::isDynamic(size))
    return std::to_string(llvm::divideCeil(size, tile));
  return llvm::formatv("ceildiv({0},{1})", name, tile).str();
}

/// The runner's description of the kernel's launch, arguments and check;
/// dynamic sizes appear as the expressions of getSizeText.
static LaunchAttr getLaunchDescription(OpBuilder &builder,
                                       const Contraction &problem,
                                       const ContractionKernel &kernel) {
  // C starts random, so that an element the kernel never wrote shows as a
  // mismatch; with a fill, C starts poisoned and the check uses the fill.
  // The runner's reference is a plain GEMM: a batch or an epilogue has
  // none (their checks are the tests' own references).
  // Nor does a prologue that computes A or B from other buffers.
  bool checkable = problem.batch == 1 && problem.epilogue.empty() &&
                   !problem.a.gathers && !problem.b.gathers;
  auto size = [](int64_t value, StringRef name) {
    return formatLaunchSize({value}, {name});
  };
  std::string check =
      llvm::formatv("gemm:M={0},N={1},K={2},A=0,B=1,C=2", size(problem.m, "M"),
                    size(problem.n, "N"), size(problem.k, "K"));
  if (problem.a.transposed)
    check += ",a-col-major";
  if (problem.b.transposed)
    check += ",b-col-major";
  std::string initial = "random";
  if (problem.fillValue) {
    initial = "poison";
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(problem.fillValue))
      value = f.getValueAsDouble();
    else
      value = double(cast<IntegerAttr>(problem.fillValue).getInt());
    check += llvm::formatv(",init={0}", llvm::format("%.17g", value)).str();
  } else {
    check += ",acc=2";
  }
  // Each buffer's size from its role: A, B, C when read, the epilogue's
  // operands, the output when it is not C.
  int64_t m = problem.m, n = problem.n, k = problem.k;
  auto batchOf = [&](bool batched) { return batched ? problem.batch : 1; };
  // Buffers of static shape (a gathering prologue's inputs) count their
  // own elements.
  auto countOf = [](Value buffer, std::string count) {
    auto type = cast<MemRefType>(buffer.getType());
    return type.hasStaticShape() ? std::to_string(type.getNumElements())
                                 : count;
  };
  SmallVector<std::string> counts = {
      countOf(
          problem.a.buffer,
          formatLaunchSize({batchOf(problem.a.batched), m, k}, {"", "M", "K"})),
      countOf(problem.b.buffer,
              formatLaunchSize({batchOf(problem.b.batched), k, n},
                               {"", "K", "N"}))};
  std::string resultCount = formatLaunchSize(
      {problem.reducesBatch ? 1 : problem.batch, m, n}, {"", "M", "N"});
  if (problem.accumulates())
    counts.push_back(resultCount);
  for (const EpilogueOperand &operand : problem.epilogueOperands) {
    int64_t batch = batchOf(operand.batched);
    switch (operand.broadcast) {
    case EpilogueBroadcast::None:
      counts.push_back(formatLaunchSize({batch, m, n}, {"", "M", "N"}));
      break;
    case EpilogueBroadcast::AlongRows:
      counts.push_back(formatLaunchSize({batch, n}, {"", "N"}));
      break;
    case EpilogueBroadcast::AlongColumns:
      counts.push_back(formatLaunchSize({batch, m}, {"", "M"}));
      break;
    case EpilogueBroadcast::Everywhere:
      counts.push_back("1");
      break;
    }
  }
  for (const ContractionInput *input : {&problem.a, &problem.b})
    for (Value operand : input->prologueOperands)
      counts.push_back(countOf(operand, ""));
  if (counts.size() < kernel.arguments.size())
    counts.push_back(resultCount);
  SmallVector<std::string> arguments;
  for (auto [index, buffer] : llvm::enumerate(kernel.arguments)) {
    auto type = cast<MemRefType>(buffer.getType());
    bool isOutput = index + 1 == kernel.arguments.size();
    bool gathered =
        (index == 0 && problem.a.gathers) || (index == 1 && problem.b.gathers);
    Type component = index < 2 && !gathered ? problem.inputComponent
                     : isOutput             ? problem.getOutputComponent()
                                            : type.getElementType();
    bool isUnsignedBuffer = component.isUnsignedInteger();
    StringRef name =
        getRunnerElementName(type.getElementType(), isUnsignedBuffer);
    arguments.push_back(
        llvm::formatv("{0}:{1}:{2}", name, counts[index],
                      isOutput ? initial : std::string("random")));
  }
  // The dynamic sizes, as the kernel takes them.
  SmallVector<std::string> sizes;
  int64_t values[] = {m, n, k};
  StringRef names[] = {"M", "N", "K"};
  for (auto [value, name] : llvm::zip(values, names))
    if (ShapedType::isDynamic(value))
      sizes.push_back(name.str());
  bool dynamic = problem.hasDynamicSizes();
  std::string grid[] = {dynamic ? getGridText(n, "N", kernel.tileN)
                                : std::to_string(kernel.gridX),
                        dynamic ? getGridText(m, "M", kernel.tileM)
                                : std::to_string(kernel.gridY),
                        std::to_string(kernel.gridZ)};
  return LaunchAttr::get(builder.getContext(), grid, arguments, sizes,
                         checkable ? StringRef(check) : StringRef());
}

/// Adds the `parts` partial products in `workspace` (stacked along its
/// rows, `rowsPerPart` each) into C after a split of K: one parallel
/// `linalg.generic` reading every part through a map with a constant, in
/// the order in which they would be added into C one by one. Where C was
/// filled with a constant, the sum starts from that constant and C is only
/// written: the fill needs no kernel of its own (on the H100 that kernel
/// alone took 2.7 us for a 1x4096 C, 5 us for 256x4096). Sets `foldsFill`
/// to whether the fill was folded.
static linalg::GenericOp
emitSplitReduction(RewriterBase &rewriter, Location loc,
                   const Contraction &original, Value workspace, int64_t parts,
                   int64_t rowsPerPart, bool &foldsFill) {
  MLIRContext *context = rewriter.getContext();
  Type element = cast<MemRefType>(original.c.getType()).getElementType();
  TypedAttr fillValue = original.fillValue;
  foldsFill = fillValue && fillValue.getType() == element;
  AffineExpr d0, d1;
  bindDims(context, d0, d1);
  SmallVector<Value> inputs(parts, workspace);
  SmallVector<AffineMap> maps;
  for (int64_t part = 0; part < parts; ++part)
    maps.push_back(
        AffineMap::get(2, 0, {d0 + part * rowsPerPart, d1}, context));
  maps.push_back(AffineMap::get(2, 0, {d0, d1}, context));
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  // A batched C (a batch of one: only such products split K) is summed into
  // as its M x N matrix.
  Value c = original.c;
  if (cast<MemRefType>(c.getType()).getRank() == 3)
    c = memref::CollapseShapeOp::create(
        rewriter, loc, c, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  return linalg::GenericOp::create(
      rewriter, loc, inputs, ValueRange{c}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value sum =
            foldsFill ? Value(arith::ConstantOp::create(nested, loc, fillValue))
                      : args.back();
        for (Value part : args.drop_back()) {
          if (isa<FloatType>(element))
            sum = arith::AddFOp::create(nested, loc, sum, part);
          else
            sum = arith::AddIOp::create(nested, loc, sum, part);
        }
        linalg::YieldOp::create(nested, loc, sum);
      });
}

/// The gpu.module that a kernel of `op` goes into: `into`, else a new one
/// next to the top-level function that holds `op` (`created` says so).
static FailureOr<gpu::GPUModuleOp> getKernelModule(Operation *op,
                                                   TargetAttr target,
                                                   gpu::GPUModuleOp into,
                                                   bool &created) {
  created = false;
  Operation *topLevel = op->getParentOfType<FunctionOpInterface>();
  while (topLevel && !isa<ModuleOp>(topLevel->getParentOp()))
    topLevel = topLevel->getParentOp();
  if (!topLevel)
    return op->emitOpError(
               "cannot be tiled: it is not inside a function of a module"),
           failure();
  auto module = cast<ModuleOp>(topLevel->getParentOp());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(op->getContext()));
  if (into)
    return into;
  OpBuilder moduleBuilder(topLevel);
  auto gpuModule =
      gpu::GPUModuleOp::create(moduleBuilder, op->getLoc(), "matmul_kernels");
  SymbolTable(module).insert(gpuModule, Block::iterator(topLevel));
  gpuModule->setAttr(SubgroupMatrixDialect::getTargetAttrName(), target);
  created = true;
  return gpuModule;
}

/// Replaces `original` (and what `contraction`, its kernel's problem, fused)
/// by the launch of `kernel`; with a split of K (`parts` > 1), the kernel
/// writes `workspace`, and the reduction that adds the parts into C follows
/// the launch (returned in `splitReduction`).
static gpu::LaunchFuncOp replaceByLaunch(RewriterBase &rewriter,
                                         const Contraction &original,
                                         const Contraction &contraction,
                                         ContractionKernel &kernel,
                                         int64_t parts, Value workspace,
                                         linalg::GenericOp *splitReduction) {
  Operation *op = original.op;
  Location loc = op->getLoc();
  // The emitter recomputes shared index arithmetic freely; CSE keeps the
  // kernel readable.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, kernel.function);
  // A split's partial products have no reference of their own.
  if (parts == 1)
    kernel.function->setAttr(
        SubgroupMatrixDialect::getLaunchAttrName(),
        getLaunchDescription(rewriter, contraction, kernel));

  // The host side: flat views of the buffers and the launch, where the
  // last fused op was (the epilogue's extra operands are written by then).
  Operation *last = op;
  if (!contraction.epilogue.empty())
    last = linalg::GenericOp(contraction.epilogue.back().op).getOperation();
  rewriter.setInsertionPoint(last);
  SmallVector<Value> operands;
  for (Value buffer : kernel.arguments) {
    operands.push_back(flattenForLaunch(rewriter, loc, buffer));
  }
  DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) -> Value {
    Value &result = constants[value];
    if (!result)
      result = arith::ConstantIndexOp::create(rewriter, loc, value);
    return result;
  };
  // Dynamic sizes come from A (M, K) and B (N); the grid covers the tiles
  // of C.
  auto dynamicSize = [&](int64_t size, Value buffer, unsigned dim) -> Value {
    if (!ShapedType::isDynamic(size))
      return nullptr;
    Value value = memref::DimOp::create(rewriter, loc, buffer, dim);
    operands.push_back(value);
    return value;
  };
  Value m =
      dynamicSize(contraction.m, contraction.a.buffer, contraction.getDimOfM());
  Value n =
      dynamicSize(contraction.n, contraction.b.buffer, contraction.getDimOfN());
  dynamicSize(contraction.k, contraction.a.buffer, contraction.getDimOfK());
  auto gridSize = [&](Value size, int64_t staticCount, int64_t tile) -> Value {
    if (!size)
      return constant(staticCount);
    return arith::CeilDivUIOp::create(rewriter, loc, size, constant(tile));
  };
  gpu::KernelDim3 grid{gridSize(n, kernel.gridX, kernel.tileN),
                       gridSize(m, kernel.gridY, kernel.tileM),
                       constant(kernel.gridZ)};
  gpu::KernelDim3 block{constant(kernel.threads), constant(1), constant(1)};
  auto launch =
      gpu::LaunchFuncOp::create(rewriter, loc, kernel.function, grid, block,
                                /*dynamicSharedMemorySize=*/Value(), operands);
  // The fused ops, then the temporaries only they used.
  for (const EpilogueStep &step : llvm::reverse(contraction.epilogue))
    rewriter.eraseOp(step.op);
  bool fillFolded = false;
  if (workspace) {
    linalg::GenericOp reduction =
        emitSplitReduction(rewriter, loc, original, workspace, parts,
                           contraction.outputRowsPerPart, fillFolded);
    if (splitReduction)
      *splitReduction = reduction;
    memref::DeallocOp::create(rewriter, loc, workspace);
  }
  rewriter.eraseOp(op);
  // A fill of C became the kernel's initial accumulator or, with split K,
  // the reduction's first term.
  if (contraction.fill || fillFolded)
    rewriter.eraseOp(original.fill);
  for (Operation *producer : contraction.fusedProducers)
    rewriter.eraseOp(producer);
  for (Operation *allocation : contraction.deadAllocations) {
    for (Operation *user : llvm::make_early_inc_range(allocation->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(allocation);
  }
  return launch;
}

FailureOr<gpu::LaunchFuncOp> mlir::subgroup_matrix::tileContraction(
    RewriterBase &rewriter, const Contraction &original, TargetAttr target,
    const TilingPlan &plan, gpu::GPUModuleOp into, StringRef name,
    linalg::GenericOp *splitReduction) {
  Operation *op = original.op;

  // Split K (the plan's parts, 1: none): the kernel writes one partial
  // product per part into a workspace, and a reduction adds them into C
  // afterwards (a linalg op, which sm-linalg-to-gpu makes a kernel). An
  // epilogue then applies to the sum: it stays in the program, after the
  // reduction, as a kernel of its own. The layout says what the kernel
  // computes; planning checked it.
  FailureOr<ContractionKernelLayout> layout =
      layOutContractionKernel(original, target, plan);
  if (failed(layout))
    return failure();
  Contraction &contraction = layout->problem;
  int64_t parts = plan.tiling.splitK;
  Value workspace;
  if (parts > 1) {
    rewriter.setInsertionPoint(op);
    workspace = memref::AllocOp::create(
        rewriter, op->getLoc(),
        MemRefType::get({parts * contraction.outputRowsPerPart, original.n},
                        getStorageType(original.resultComponent)));
    contraction.output = workspace;
  }

  bool created = false;
  FailureOr<gpu::GPUModuleOp> gpuModule =
      getKernelModule(op, target, into, created);
  if (failed(gpuModule))
    return failure();
  OpBuilder kernelBuilder = OpBuilder::atBlockEnd(gpuModule->getBody());
  FailureOr<ContractionKernel> kernel =
      emitContractionKernel(kernelBuilder, name, *layout, target, plan);
  if (failed(kernel)) {
    if (created)
      gpuModule->erase();
    return failure();
  }
  return replaceByLaunch(rewriter, original, contraction, *kernel, parts,
                         workspace, splitReduction);
}

FailureOr<gpu::LaunchFuncOp> mlir::subgroup_matrix::emitDotProductContraction(
    RewriterBase &rewriter, const Contraction &contraction, TargetAttr target,
    const DotProductPlan &plan, gpu::GPUModuleOp into, StringRef name) {
  bool created = false;
  FailureOr<gpu::GPUModuleOp> gpuModule =
      getKernelModule(contraction.op, target, into, created);
  if (failed(gpuModule))
    return failure();
  OpBuilder kernelBuilder = OpBuilder::atBlockEnd(gpuModule->getBody());
  FailureOr<ContractionKernel> kernel =
      emitDotProductKernel(kernelBuilder, name, contraction, target, plan);
  if (failed(kernel)) {
    if (created)
      gpuModule->erase();
    return failure();
  }
  return replaceByLaunch(rewriter, contraction, contraction, *kernel,
                         /*parts=*/1, /*workspace=*/Value(),
                         /*splitReduction=*/nullptr);
}

FailureOr<gpu::LaunchFuncOp> mlir::subgroup_matrix::tileMatmul(
    RewriterBase &rewriter, linalg::MatmulOp matmul, TargetAttr target,
    const MatmulTiling &tiling, const TuningTable *tuning) {
  FailureOr<Contraction> contraction = matchContraction(matmul);
  if (failed(contraction))
    return failure();
  // This pass leaves no reduction kernel behind: a table's split of K is
  // for sm-linalg-to-gpu.
  MatmulTiling tuned = applyTuning(*contraction, tiling, tuning);
  tuned.splitK = tiling.splitK;
  FailureOr<TilingPlan> plan =
      planContraction(*contraction, target, tuned, /*tuning=*/nullptr);
  if (failed(plan))
    return failure();
  return tileContraction(rewriter, *contraction, target, *plan);
}

namespace {
struct TileMatmulPass
    : public subgroup_matrix::impl::TileMatmulPassBase<TileMatmulPass> {
  using TileMatmulPassBase::TileMatmulPassBase;
  template <typename PassWithTilingOptions>
  friend MatmulTiling
  subgroup_matrix::readMatmulTilingOptions(const PassWithTilingOptions &);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(module.getLoc(), targetName);
    if (failed(overrideTarget))
      return signalPassFailure();
    MatmulTiling requested = readMatmulTilingOptions(*this);
    TuningTableOption tuningOption;
    if (failed(tuningOption.parse(module.getLoc(), tuningTable)))
      return signalPassFailure();

    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp matmul) {
      // Matmuls already inside kernels are left alone.
      if (!matmul->getParentOfType<gpu::GPUModuleOp>())
        matmuls.push_back(matmul);
    });
    IRRewriter rewriter(&getContext());
    bool failedAny = false;
    for (linalg::MatmulOp matmul : matmuls) {
      TargetAttr target =
          *overrideTarget ? *overrideTarget : findEnclosingTarget(matmul);
      if (!target) {
        matmul.emitOpError("cannot be tiled: no target (pass target=NAME or "
                           "set subgroup_matrix.target on the module)");
        failedAny = true;
        continue;
      }
      if (failed(tileMatmul(rewriter, matmul, target, requested,
                            tuningOption.getFor(target))))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
