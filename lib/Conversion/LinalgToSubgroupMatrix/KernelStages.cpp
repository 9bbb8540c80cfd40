//===- KernelStages.cpp - what the kernel stages share --------------------===//
//
// What sm-plan-kernels and the stages that make kernels
// (sm-attention-to-kernels, sm-contractions-to-kernels,
// sm-elementwise-to-kernels) share: the program's target and its one
// gpu.module of kernels, and the views of buffers that kernels can read.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The name of the gpu.module that holds all kernels of a program.
static constexpr llvm::StringLiteral kProgramKernelsName = "kernels";

gpu::GPUModuleOp mlir::subgroup_matrix::findProgramKernels(ModuleOp module) {
  for (auto kernels : module.getOps<gpu::GPUModuleOp>())
    if (kernels.getSymName() == kProgramKernelsName)
      return kernels;
  return {};
}

FailureOr<TargetAttr>
mlir::subgroup_matrix::getProgramTarget(ModuleOp module, StringRef targetName) {
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

bool mlir::subgroup_matrix::isOnHost(Operation *op) {
  return !op->getParentOfType<gpu::GPUModuleOp>();
}

void mlir::subgroup_matrix::reportKernel(Operation *op, StringRef verb,
                                         StringRef kernel, const Twine &why) {
  op->emitRemark() << verb << " kernel '" << kernel << "': " << why;
}

mlir::subgroup_matrix::ProgramKernels::ProgramKernels(ModuleOp module,
                                                      TargetAttr target)
    : module(module), target(target), kernels(findProgramKernels(module)) {
  if (kernels)
    count = llvm::range_size(kernels.getOps<gpu::GPUFuncOp>());
}

gpu::GPUModuleOp mlir::subgroup_matrix::ProgramKernels::get() {
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

std::optional<std::pair<Value, AffineMap>>
mlir::subgroup_matrix::getViewedBuffer(Value view) {
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
      std::optional<AffineMap> through =
          mapThroughCollapse(map, collapse.getSrcType().getShape(),
                             collapse.getReassociationIndices());
      if (!through)
        return std::nullopt;
      map = *through;
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

void mlir::subgroup_matrix::copyStridedOperands(RewriterBase &rewriter,
                                                linalg::LinalgOp op) {
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

FailureOr<Contraction> mlir::subgroup_matrix::analyzeContractionKernel(
    RewriterBase &rewriter, linalg::LinalgOp op, TargetAttr target) {
  copyStridedOperands(rewriter, op);
  FailureOr<Contraction> contraction = matchContraction(op);
  if (failed(contraction))
    return failure();
  // The kernel's view of the contraction has its neighbours fused in (a
  // fused extension changes what it reads): those the plan stage recorded,
  // or, before it, those it can take.
  contraction->fusionGroup = op->getAttrOfType<IntegerAttr>(
      SubgroupMatrixDialect::getFusionGroupAttrName());
  fuseElementwiseNeighbours(*contraction, target);
  return contraction;
}
