//===- FinalizeVulkanModule.cpp - what Vulkan adds to SPIR-V --------------===//
//
// The last stages of sm-lower-to-vulkan, on each spirv.module:
// `sm-mark-shared-accesses-nonprivate`, `sm-preserve-inf-nan` and
// `sm-add-vulkan-capabilities`.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_MARKSHAREDACCESSESNONPRIVATEPASS
#define GEN_PASS_DEF_PRESERVEINFNANPASS
#define GEN_PASS_DEF_ADDVULKANCAPABILITIESPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The storage-class bit of memory semantics for memory of `storageClass`,
/// or None for memory no other invocation sees.
static spirv::MemorySemantics
getStorageClassSemantics(spirv::StorageClass storageClass) {
  switch (storageClass) {
  case spirv::StorageClass::StorageBuffer:
  case spirv::StorageClass::Uniform:
  case spirv::StorageClass::PhysicalStorageBuffer:
    return spirv::MemorySemantics::UniformMemory;
  case spirv::StorageClass::Workgroup:
    return spirv::MemorySemantics::WorkgroupMemory;
  default:
    return spirv::MemorySemantics::None;
  }
}

/// Under the Vulkan memory model, plain loads and stores are private to the
/// invocation and barriers do not order them; memory that other invocations
/// read (workgroup and storage buffers) must be accessed as non-private.
/// An atomic whose semantics order memory (Acquire, Release,
/// AcquireRelease) must also say which memory
/// (VUID-StandaloneSpirv-MemorySemantics-10870): MLIR's lowering of
/// memref.atomic_rmw, which stores sub-byte elements, leaves that out, so
/// the atomic's own storage class is added.
static void markSharedAccessesNonPrivate(spirv::ModuleOp module) {
  auto isShared = [](Value pointer) {
    auto type = dyn_cast<spirv::PointerType>(pointer.getType());
    return type &&
           (type.getStorageClass() == spirv::StorageClass::Workgroup ||
            type.getStorageClass() == spirv::StorageClass::StorageBuffer);
  };
  auto addNonPrivate = [](Operation *op, spirv::MemoryAccessAttr current) {
    auto access = current ? current.getValue() : spirv::MemoryAccess::None;
    op->setAttr(
        "memory_access",
        spirv::MemoryAccessAttr::get(
            op->getContext(), access | spirv::MemoryAccess::NonPrivatePointer));
  };
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<spirv::LoadOp>(op)) {
      if (isShared(load.getPtr()))
        addNonPrivate(op, load.getMemoryAccessAttr());
    } else if (auto store = dyn_cast<spirv::StoreOp>(op)) {
      if (isShared(store.getPtr()))
        addNonPrivate(op, store.getMemoryAccessAttr());
    }
    auto semantics = op->getAttrOfType<spirv::MemorySemanticsAttr>("semantics");
    if (!semantics || op->getNumOperands() == 0)
      return;
    auto pointer = dyn_cast<spirv::PointerType>(op->getOperand(0).getType());
    using S = spirv::MemorySemantics;
    S value = semantics.getValue();
    S ordering = S::Acquire | S::Release | S::AcquireRelease;
    S storageClasses = S::UniformMemory | S::WorkgroupMemory | S::ImageMemory |
                       S::OutputMemory;
    if (!pointer || (value & ordering) == S::None ||
        (value & storageClasses) != S::None)
      return;
    op->setAttr("semantics",
                spirv::MemorySemanticsAttr::get(
                    op->getContext(), value | getStorageClassSemantics(
                                                  pointer.getStorageClass())));
  });
}

/// Declares SignedZeroInfNanPreserve on every entry point, for f32 and for
/// f16 and f64 where the module computes in them: without it a Vulkan
/// driver may assume that no float is infinite or NaN and that the sign of
/// zero does not matter (folding x - x to 0, x * 0 to 0), where the
/// program's semantics, and upstream's CPU execution, keep them.
static void preserveInfNan(spirv::ModuleOp module) {
  std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
  if (!triple)
    return;
  SmallVector<spirv::Capability> capabilities(triple->getCapabilities());
  SmallVector<int32_t> widths;
  if (llvm::is_contained(capabilities, spirv::Capability::Float16))
    widths.push_back(16);
  widths.push_back(32);
  if (llvm::is_contained(capabilities, spirv::Capability::Float64))
    widths.push_back(64);
  OpBuilder builder(module.getContext());
  for (auto entryPoint :
       llvm::to_vector(module.getBody()->getOps<spirv::EntryPointOp>())) {
    auto function =
        module.lookupSymbol<spirv::FuncOp>(entryPoint.getFnAttr().getAttr());
    if (!function)
      continue;
    builder.setInsertionPointAfter(entryPoint);
    for (int32_t width : widths)
      spirv::ExecutionModeOp::create(
          builder, entryPoint.getLoc(), function,
          spirv::ExecutionMode::SignedZeroInfNanPreserve, {width});
  }
  if (!llvm::is_contained(capabilities,
                          spirv::Capability::SignedZeroInfNanPreserve))
    capabilities.push_back(spirv::Capability::SignedZeroInfNanPreserve);
  // Float controls are core from SPIR-V 1.4.
  SmallVector<spirv::Extension> extensions(triple->getExtensions());
  if (triple->getVersion() < spirv::Version::V_1_4 &&
      !llvm::is_contained(extensions, spirv::Extension::SPV_KHR_float_controls))
    extensions.push_back(spirv::Extension::SPV_KHR_float_controls);
  module.setVceTripleAttr(spirv::VerCapExtAttr::get(
      triple->getVersion(), capabilities, extensions, module.getContext()));
}

/// Whether `type` is, points to or holds a cooperative matrix of bf16.
static bool holdsBFloat16CooperativeMatrix(Type type) {
  if (auto matrix = dyn_cast<spirv::CooperativeMatrixType>(type))
    return matrix.getElementType().isBF16();
  if (auto pointer = dyn_cast<spirv::PointerType>(type))
    return holdsBFloat16CooperativeMatrix(pointer.getPointeeType());
  if (auto array = dyn_cast<spirv::ArrayType>(type))
    return holdsBFloat16CooperativeMatrix(array.getElementType());
  if (auto structure = dyn_cast<spirv::StructType>(type))
    return llvm::any_of(structure.getElementTypes(),
                        holdsBFloat16CooperativeMatrix);
  return false;
}

/// Adds what spirv-update-vce does not derive: the Vulkan memory model
/// capability (from the module's memory model), GroupNonUniform (from the
/// subgroup built-ins, which SPIR-V only allows with it),
/// VulkanMemoryModelDeviceScope (from memory scopes of Device, which the
/// Vulkan memory model only allows with it: the atomics that emulate stores
/// of sub-byte elements use them) and BFloat16CooperativeMatrixKHR (from
/// cooperative matrices of bf16, which SPV_KHR_bfloat16 requires it of and
/// MLIR 22 derives only BFloat16TypeKHR for).
static void addUnderivedCapabilities(spirv::ModuleOp module) {
  std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
  if (!triple)
    return;
  SmallVector<spirv::Capability> capabilities(triple->getCapabilities());
  auto require = [&](spirv::Capability capability) {
    if (!llvm::is_contained(capabilities, capability))
      capabilities.push_back(capability);
  };
  require(spirv::Capability::VulkanMemoryModel);
  module.walk([&](spirv::GlobalVariableOp variable) {
    std::optional<StringRef> builtIn = variable.getBuiltIn();
    if (builtIn &&
        llvm::is_contained({"SubgroupId", "NumSubgroups", "SubgroupSize",
                            "SubgroupLocalInvocationId"},
                           *builtIn))
      require(spirv::Capability::GroupNonUniform);
  });
  module.walk([&](Operation *op) {
    for (NamedAttribute attribute : op->getAttrs()) {
      auto scope = dyn_cast<spirv::ScopeAttr>(attribute.getValue());
      if (scope && attribute.getName() == "memory_scope" &&
          scope.getValue() == spirv::Scope::Device)
        require(spirv::Capability::VulkanMemoryModelDeviceScope);
    }
    auto isBFloat16Matrix = [](Value value) {
      return holdsBFloat16CooperativeMatrix(value.getType());
    };
    if (llvm::any_of(op->getResults(), isBFloat16Matrix) ||
        llvm::any_of(op->getOperands(), isBFloat16Matrix))
      require(spirv::Capability::BFloat16CooperativeMatrixKHR);
  });
  SmallVector<spirv::Extension> extensions(triple->getExtensions());
  module.setVceTripleAttr(spirv::VerCapExtAttr::get(
      triple->getVersion(), capabilities, extensions, module.getContext()));
}

namespace {
struct MarkSharedAccessesNonPrivatePass
    : public subgroup_matrix::impl::MarkSharedAccessesNonPrivatePassBase<
          MarkSharedAccessesNonPrivatePass> {
  using MarkSharedAccessesNonPrivatePassBase::
      MarkSharedAccessesNonPrivatePassBase;

  void runOnOperation() override {
    markSharedAccessesNonPrivate(getOperation());
  }
};

struct PreserveInfNanPass
    : public subgroup_matrix::impl::PreserveInfNanPassBase<PreserveInfNanPass> {
  using PreserveInfNanPassBase::PreserveInfNanPassBase;

  void runOnOperation() override { preserveInfNan(getOperation()); }
};

struct AddVulkanCapabilitiesPass
    : public subgroup_matrix::impl::AddVulkanCapabilitiesPassBase<
          AddVulkanCapabilitiesPass> {
  using AddVulkanCapabilitiesPassBase::AddVulkanCapabilitiesPassBase;

  void runOnOperation() override { addUnderivedCapabilities(getOperation()); }
};
} // namespace
