//===- CheckTarget.cpp - check a module against its target ----------------===//
//
// Reports, like a driver creating a pipeline, every matrix type, multiply and
// workgroup size that the target cannot run.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_CHECKTARGETPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// How diagnostics name a target.
static std::string describeTarget(TargetAttr target) {
  if (StringAttr name = target.getName())
    return ("target '" + name.getValue() + "'").str();
  return "the target";
}

/// Whether `op` is a subgroup matrix op or has matrix-typed operands,
/// results or block arguments of its own regions.
static bool usesMatrixTypes(Operation *op) {
  auto isMatrix = [](Type type) {
    return isa<SubgroupMatrixTypeInterface>(type);
  };
  if (isa<SubgroupMatrixDialect>(op->getDialect()) ||
      llvm::any_of(op->getResultTypes(), isMatrix) ||
      llvm::any_of(op->getOperandTypes(), isMatrix))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isMatrix))
        return true;
  return false;
}

namespace {
/// Finds whether functions use subgroup matrices, directly or through the
/// functions they call.
class MatrixUseFinder {
public:
  bool usesMatrices(FunctionOpInterface function) {
    auto [it, inserted] = memo.try_emplace(function, false);
    if (!inserted)
      return it->second; // Recursion or already known.
    bool uses = false;
    function->walk([&](Operation *op) {
      if (usesMatrixTypes(op)) {
        uses = true;
        return WalkResult::interrupt();
      }
      if (auto call = dyn_cast<CallOpInterface>(op))
        if (auto callee = dyn_cast_or_null<FunctionOpInterface>(
                call.resolveCallableInTable(&symbolTables)))
          if (usesMatrices(callee)) {
            uses = true;
            return WalkResult::interrupt();
          }
      return WalkResult::advance();
    });
    memo[function] = uses;
    return uses;
  }

private:
  llvm::DenseMap<Operation *, bool> memo;
  SymbolTableCollection symbolTables;
};

/// Walks a module once and reports everything its targets lack.
class TargetChecker {
public:
  TargetChecker(TargetAttr overrideTarget, bool allowEmulation,
                bool composedShapes, bool emulationRequests)
      : overrideTarget(overrideTarget), allowEmulation(allowEmulation),
        composedShapes(composedShapes), emulationRequests(emulationRequests) {}

  LogicalResult run(ModuleOp module);

private:
  /// The target `op` is checked against: the enclosing (or overriding)
  /// one, or its emulation within a kernel that asks for emulation.
  TargetAttr getTarget(Operation *op) {
    TargetAttr target =
        overrideTarget ? overrideTarget : findEnclosingTarget(op);
    for (Operation *parent = op; target && emulationRequests && parent;
         parent = parent->getParentOp())
      if (parent->hasAttr(SubgroupMatrixDialect::getEmulateAttrName()))
        return getEmulationTarget(target);
    return target;
  }
  void checkTypes(Operation *op, TargetAttr target);
  void checkMultiply(Operation *op, TargetAttr target);
  /// A workgroup-scope matrix is a matrix of the target only in a workgroup
  /// of the size its granularity names.
  void checkWorkgroupScope(Location loc, Operation *op,
                           SubgroupMatrixTypeInterface matrix,
                           TargetAttr target);
  void checkWorkgroupSize(FunctionOpInterface kernel, TargetAttr target);
  /// Every kernel, with subgroup matrices or not: a workgroup with an empty
  /// dimension cannot be dispatched (and SPIR-V forbids declaring one).
  void checkWorkgroupSizeIsPositive(FunctionOpInterface kernel);
  /// A `gpu.shuffle` exchanges values within groups of its width, which
  /// lower to subgroup operations only when the width is the subgroup
  /// size: a kernel written for another subgroup size is reported.
  void checkShuffleWidth(gpu::ShuffleOp shuffle, TargetAttr target);
  /// Kernel code that computes or stores f64 or i64 values needs the
  /// target's `float64` or `int64`; host code is not the target's.
  void checkWideScalars(Operation *op, TargetAttr target);

  TargetAttr overrideTarget;
  bool allowEmulation;
  bool composedShapes;
  bool emulationRequests;
  /// Each unsupported type is reported once per target, where it first
  /// appears.
  llvm::DenseSet<std::pair<Attribute, Type>> reportedTypes;
  /// Each workgroup-scope type is checked once per kernel.
  llvm::DenseSet<std::pair<Operation *, Type>> checkedWorkgroupTypes;
  bool failed = false;
};
} // namespace

/// The workgroup size `kernel` declares (known_block_size, or its SPIR-V
/// entry point ABI's); empty where it declares none.
static ArrayRef<int32_t> getDeclaredWorkgroupSize(FunctionOpInterface kernel) {
  ArrayRef<int32_t> size;
  if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(kernel.getOperation()))
    if (std::optional<ArrayRef<int32_t>> known = gpuFunc.getKnownBlockSize())
      size = *known;
  if (auto abi = kernel->getAttrOfType<spirv::EntryPointABIAttr>(
          spirv::getEntryPointABIAttrName()))
    if (DenseI32ArrayAttr abiSize = abi.getWorkgroupSize())
      size = abiSize.asArrayRef();
  return size;
}

/// The number of invocations of the workgroup that runs `op`, where its
/// kernel gives its workgroup size.
static std::optional<int64_t> getWorkgroupInvocations(Operation *op) {
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  if (!kernel)
    return std::nullopt;
  ArrayRef<int32_t> size = getDeclaredWorkgroupSize(kernel);
  if (size.empty())
    return std::nullopt;
  int64_t invocations = 1;
  for (int32_t extent : size)
    invocations *= extent;
  return invocations;
}

void TargetChecker::checkWorkgroupScope(Location loc, Operation *op,
                                        SubgroupMatrixTypeInterface matrix,
                                        TargetAttr target) {
  SmallVector<unsigned> allowed = target.getWorkgroupInvocationsOf(matrix);
  std::optional<int64_t> invocations = getWorkgroupInvocations(op);
  if (invocations && llvm::is_contained(allowed, *invocations))
    return;
  failed = true;
  InFlightDiagnostic diagnostic = emitError(loc) << matrix << " is held by ";
  if (invocations)
    diagnostic << "a workgroup of " << *invocations << " invocations";
  else
    diagnostic << "a workgroup of unknown size (give the kernel "
                  "'known_block_size')";
  diagnostic << ", but " << describeTarget(target)
             << " has workgroup-scope matrices of this shape in workgroups of ";
  for (auto [i, size] : llvm::enumerate(allowed))
    diagnostic << (i == 0                    ? ""
                   : i + 1 == allowed.size() ? " or "
                                             : ", ")
               << size;
  diagnostic << " invocations";
}

void TargetChecker::checkTypes(Operation *op, TargetAttr target) {
  auto check = [&](Location loc, Type type) {
    auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
    if (!matrix)
      return;
    bool supported = target.supportsType(matrix);
    if (supported && matrix.getScope() == MatrixScope::Workgroup) {
      Operation *kernel = op->getParentOfType<FunctionOpInterface>();
      if (checkedWorkgroupTypes.insert({kernel, type}).second)
        checkWorkgroupScope(loc, op, matrix, target);
      return;
    }
    if (supported ||
        (allowEmulation && target.getEmulatedForm().supportsType(matrix)) ||
        (composedShapes && target.supportsComposedType(matrix)) ||
        !reportedTypes.insert({target, type}).second)
      return;
    failed = true;
    if (matrix.getScope() == MatrixScope::Workgroup && target.getEmulated()) {
      emitError(loc) << type << " is a workgroup-scope matrix, which "
                     << "kernels emulated for " << describeTarget(target)
                     << " cannot hold: emulation spreads each matrix over one "
                        "subgroup's invocations";
      return;
    }
    if (matrix.getScope() == MatrixScope::Workgroup &&
        !target.hasCoopmat2(CooperativeMatrix2Feature::WorkgroupScope)) {
      emitError(loc) << type << " is a workgroup-scope matrix, but "
                     << describeTarget(target)
                     << " has none: they need VK_NV_cooperative_matrix2's "
                        "'workgroup_scope' (nv_coopmat2) and a flexible "
                        "granularity of workgroup scope";
      return;
    }
    emitError(loc) << type << " is not supported by " << describeTarget(target)
                   << "; it supports "
                   << target.describeSupported(matrix.getKind(),
                                               matrix.getScope())
                   << (composedShapes ? ", and matrices built of several of "
                                        "them"
                                      : "");
  };
  for (Type type : op->getResultTypes())
    check(op->getLoc(), type);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument argument : block.getArguments())
        check(argument.getLoc(), argument.getType());
}

void TargetChecker::checkMultiply(Operation *op, TargetAttr target) {
  Type left, right, result;
  if (auto mma = dyn_cast<MmaOp>(op))
    left = mma.getLeft().getType(), right = mma.getRight().getType(),
    result = mma.getResult().getType();
  else if (auto multiply = dyn_cast<MultiplyOp>(op))
    left = multiply.getLeft().getType(), right = multiply.getRight().getType(),
    result = multiply.getResult().getType();
  else
    return;
  if (target.supportsMultiply(left, right, result) ||
      (allowEmulation &&
       target.getEmulatedForm().supportsMultiply(left, right, result)) ||
      (composedShapes && target.supportsComposedMultiply(left, right, result)))
    return;
  failed = true;
  op->emitError() << "the multiplication of " << left << " by " << right
                  << " into " << result << " is not a configuration of "
                  << describeTarget(target)
                  << "; its configurations (M x N x K, component -> "
                     "result) are: "
                  << target.describeConfigs(
                         cast<SubgroupMatrixTypeInterface>(result).getScope())
                  << (composedShapes ? ", and multiplications built of "
                                       "several of one of them"
                                     : "");
}

void TargetChecker::checkWorkgroupSizeIsPositive(FunctionOpInterface kernel) {
  ArrayRef<int32_t> size = getDeclaredWorkgroupSize(kernel);
  if (llvm::all_of(size, [](int32_t extent) { return extent >= 1; }))
    return;
  failed = true;
  // At the kernel's location: the whole function printed after a one-line
  // message would bury it.
  InFlightDiagnostic diagnostic = emitError(kernel->getLoc())
                                  << "kernel '" << kernel.getName()
                                  << "' has a workgroup size of ";
  llvm::interleave(size, diagnostic, "x");
  diagnostic << ": every dimension must be at least 1";
}

void TargetChecker::checkWorkgroupSize(FunctionOpInterface kernel,
                                       TargetAttr target) {
  std::optional<int32_t> sizeX;
  if (ArrayRef<int32_t> size = getDeclaredWorkgroupSize(kernel); !size.empty())
    sizeX = size[0];
  if (!sizeX || *sizeX % static_cast<int32_t>(target.getSubgroupSize()) == 0)
    return;
  failed = true;
  emitError(kernel->getLoc())
      << "kernel '" << kernel.getName()
      << "' uses subgroup matrices with a workgroup size x of " << *sizeX
      << ", which is not a multiple of the subgroup "
      << "size " << target.getSubgroupSize() << " of "
      << describeTarget(target);
}

void TargetChecker::checkShuffleWidth(gpu::ShuffleOp shuffle,
                                      TargetAttr target) {
  APInt width;
  if (!matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) ||
      width.getSExtValue() == static_cast<int64_t>(target.getSubgroupSize()))
    return;
  failed = true;
  shuffle.emitError() << "shuffles within groups of " << width.getSExtValue()
                      << " invocations, but " << describeTarget(target)
                      << " has subgroups of " << target.getSubgroupSize()
                      << ": a shuffle's width must be the subgroup size";
}

void TargetChecker::checkWideScalars(Operation *op, TargetAttr target) {
  auto check = [&](Location loc, Type type) {
    Type element = getElementTypeOrSelf(type);
    if (auto memref = dyn_cast<MemRefType>(type))
      element = getElementTypeOrSelf(memref.getElementType());
    bool isFloat64 = element.isF64(), isInt64 = element.isInteger(64);
    if ((!isFloat64 || target.getFloat64()) && (!isInt64 || target.getInt64()))
      return;
    if (!reportedTypes.insert({target, element}).second)
      return;
    failed = true;
    emitError(loc) << "'" << op->getName() << "' uses " << element << ", which "
                   << describeTarget(target) << " does not support (it lacks '"
                   << (isFloat64 ? "float64" : "int64")
                   << "': the device has no "
                   << (isFloat64 ? "shaderFloat64" : "shaderInt64")
                   << "); compute in "
                   << (isFloat64 ? "f32 (sm-linalg-to-gpu's f64=f32 does)"
                                 : "i32")
                   << ", or lower for a target with '"
                   << (isFloat64 ? "float64" : "int64") << "'";
  };
  for (Type type : op->getResultTypes())
    check(op->getLoc(), type);
  for (Type type : op->getOperandTypes())
    check(op->getLoc(), type);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument argument : block.getArguments())
        check(op->getLoc(), argument.getType());
}

LogicalResult TargetChecker::run(ModuleOp module) {
  bool reportedMissingTarget = false;
  module.walk([&](Operation *op) {
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
      if (TargetAttr target = getTarget(op))
        checkShuffleWidth(shuffle, target);
    if (op->getParentOfType<gpu::GPUModuleOp>())
      if (TargetAttr target = getTarget(op))
        checkWideScalars(op, target);
    if (!usesMatrixTypes(op))
      return;
    TargetAttr target = getTarget(op);
    if (!target) {
      if (!reportedMissingTarget)
        emitError(op->getLoc())
            << "no target to check subgroup matrices against: "
               "attach a '"
            << SubgroupMatrixDialect::getTargetAttrName()
            << "' attribute to the enclosing gpu.module or "
               "module, or name a preset with target=NAME";
      reportedMissingTarget = failed = true;
      return;
    }
    checkTypes(op, target);
    checkMultiply(op, target);
  });

  MatrixUseFinder finder;
  module.walk([&](FunctionOpInterface function) {
    bool isKernel =
        function->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
        function->hasAttr(spirv::getEntryPointABIAttrName());
    if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(function.getOperation()))
      isKernel |= gpuFunc.isKernel();
    if (!isKernel)
      return;
    checkWorkgroupSizeIsPositive(function);
    if (!finder.usesMatrices(function))
      return;
    if (TargetAttr target = getTarget(function))
      checkWorkgroupSize(function, target);
  });
  return failure(failed);
}

LogicalResult mlir::subgroup_matrix::checkTarget(ModuleOp module,
                                                 TargetAttr overrideTarget,
                                                 bool allowEmulation,
                                                 bool composedShapes,
                                                 bool emulationRequests) {
  return TargetChecker(overrideTarget, allowEmulation, composedShapes,
                       emulationRequests)
      .run(module);
}

namespace {
struct CheckTargetPass
    : public subgroup_matrix::impl::CheckTargetPassBase<CheckTargetPass> {
  using CheckTargetPassBase::CheckTargetPassBase;

  void runOnOperation() override {
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(getOperation().getLoc(), targetName);
    if (failed(overrideTarget) ||
        failed(checkTarget(getOperation(), *overrideTarget, allowEmulation,
                           composedShapes, emulationRequests)))
      signalPassFailure();
  }
};
} // namespace
