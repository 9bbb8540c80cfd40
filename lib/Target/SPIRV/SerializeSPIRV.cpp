//===- SerializeSPIRV.cpp - write the spirv.module of a lowered module ----===//
//
// `sm-translate --serialize-spirv` takes what `sm-opt --sm-lower-to-vulkan`
// prints (a module holding gpu.modules and the spirv.modules built from them)
// and writes the SPIR-V binary, with no manual extraction step.
//
//===----------------------------------------------------------------------===//

#include "BinaryInstructions.h"
#include "CooperativeMatrix2Instructions.h"
#include "SubgroupMatrix/Target/Translations.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/InitAll.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"

#include <cstring>

using namespace mlir;

static llvm::cl::opt<std::string> spirvModuleName(
    "spirv-module",
    llvm::cl::desc("With --serialize-spirv: the spirv.module to write when "
                   "the input holds several"),
    llvm::cl::init(""));

/// The sm-vulkan-runner options that launch and check `function`, from its
/// `#subgroup_matrix.launch`: "ENTRY --grid X,Y,Z --arg ... --check ...".
static std::optional<std::string> getLaunchDescription(spirv::FuncOp function) {
  auto launch = function->getAttrOfType<subgroup_matrix::LaunchAttr>(
      subgroup_matrix::SubgroupMatrixDialect::getLaunchAttrName());
  if (!launch)
    return std::nullopt;
  return function.getSymName().str() + launch.getRunnerOptions();
}

/// Records in the binary, as `OpModuleProcessed` debug instructions that
/// drivers ignore and sm-vulkan-runner reads, what the binary alone cannot
/// say: the subgroup size its kernels were lowered for
/// (`"subgroup_matrix.subgroup_size N"`, from the target environment when it
/// names one size), which the runner requires of the device, and each
/// kernel's launch description (`"subgroup_matrix.launch ..."`).
static void addRunnerNotes(spirv::ModuleOp module,
                           SmallVectorImpl<uint32_t> &binary) {
  SmallVector<uint32_t> instructions;
  auto addNote = [&](const std::string &text) {
    constexpr uint32_t opModuleProcessed = 330;
    subgroup_matrix::appendStringInstruction(instructions, opModuleProcessed,
                                             text);
  };
  // Only kernels that use subgroups (their operations, builtins or
  // cooperative matrices, all of which need one of these capabilities)
  // depend on the subgroup size.
  auto usesSubgroups = [&] {
    std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
    if (!triple)
      return false;
    return llvm::any_of(
        triple->getCapabilities(), [](spirv::Capability capability) {
          return capability == spirv::Capability::CooperativeMatrixKHR ||
                 llvm::is_contained(
                     spirv::getRecursiveImpliedCapabilities(capability),
                     spirv::Capability::GroupNonUniform) ||
                 capability == spirv::Capability::GroupNonUniform;
        });
  };
  if (auto environment = module->getAttrOfType<spirv::TargetEnvAttr>(
          spirv::getTargetEnvAttrName());
      environment && usesSubgroups()) {
    spirv::ResourceLimitsAttr limits = environment.getResourceLimits();
    std::optional<int> low = limits.getMinSubgroupSize(),
                       high = limits.getMaxSubgroupSize();
    if (low && high && *low == *high)
      addNote("subgroup_matrix.subgroup_size " + std::to_string(*low));
  }
  module.walk([&](spirv::FuncOp function) {
    if (std::optional<std::string> description = getLaunchDescription(function))
      addNote("subgroup_matrix.launch " + *description);
  });
  if (instructions.empty())
    return;
  // OpModuleProcessed ends the debug section (7c): it goes before the first
  // instruction of the later sections (annotations, types, functions).
  static constexpr uint32_t earlierSections[] = {
      17 /*Capability*/,       10 /*Extension*/,
      11 /*ExtInstImport*/,    14 /*MemoryModel*/,
      15 /*EntryPoint*/,       16 /*ExecutionMode*/,
      331 /*ExecutionModeId*/, 7 /*String*/,
      4 /*SourceExtension*/,   3 /*Source*/,
      2 /*SourceContinued*/,   5 /*Name*/,
      6 /*MemberName*/,        330 /*ModuleProcessed*/};
  size_t position = 5; // After the header.
  while (position < binary.size()) {
    uint32_t length = binary[position] >> 16;
    uint32_t opcode = binary[position] & 0xFFFF;
    if (length == 0 || !llvm::is_contained(earlierSections, opcode))
      break;
    position += length;
  }
  binary.insert(binary.begin() + position, instructions.begin(),
                instructions.end());
}

LogicalResult
mlir::subgroup_matrix::serializeSPIRVModule(spirv::ModuleOp module,
                                            SmallVectorImpl<uint32_t> &binary) {
  if (failed(spirv::serialize(module, binary)))
    return failure();
  std::string error;
  if (failed(writeCooperativeMatrix2Instructions(binary, error)))
    return module.emitError() << error;
  addRunnerNotes(module, binary);
  return success();
}

LogicalResult mlir::subgroup_matrix::serializeToSPIRV(Operation *input,
                                                      raw_ostream &output) {
  SmallVector<spirv::ModuleOp> candidates;
  if (auto module = dyn_cast<spirv::ModuleOp>(input))
    candidates.push_back(module);
  else
    input->walk([&](spirv::ModuleOp module) {
      if (spirvModuleName.empty() ||
          module.getSymName() == StringRef(spirvModuleName))
        candidates.push_back(module);
    });
  if (candidates.empty())
    return emitError(input->getLoc())
           << "no spirv.module"
           << (spirvModuleName.empty() ? ""
                                       : " named '" + spirvModuleName + "'")
           << " to serialize; lower the input first (sm-opt "
              "--sm-lower-to-vulkan)";
  if (candidates.size() > 1) {
    InFlightDiagnostic diagnostic = emitError(input->getLoc())
                                    << "the input holds " << candidates.size()
                                    << " spirv.modules; choose one with "
                                       "--spirv-module=NAME:";
    llvm::StringSet<> names;
    bool repeated = false;
    for (spirv::ModuleOp module : candidates) {
      StringRef name = module.getSymName() ? *module.getSymName() : "";
      repeated |= !names.insert(name).second;
      diagnostic << " " << name;
    }
    if (repeated)
      diagnostic << " (named alike: they come from several input modules, "
                    "as sm-opt -split-input-file writes them; lower and "
                    "serialize each module on its own)";
    return diagnostic;
  }

  // A module without kernels has nothing a Vulkan driver could run, and no
  // entry point, which a Vulkan binary needs.
  if (candidates.front().getOps<spirv::EntryPointOp>().empty())
    return emitError(candidates.front().getLoc())
           << "spirv.module '" << candidates.front().getSymName().value_or("")
           << "' has no entry point (its gpu.module has no kernel): there is "
              "nothing to write for Vulkan";
  SmallVector<uint32_t> binary;
  if (failed(serializeSPIRVModule(candidates.front(), binary)))
    return failure();
  output.write(reinterpret_cast<const char *>(binary.data()),
               binary.size() * sizeof(uint32_t));
  return success();
}

void mlir::subgroup_matrix::registerSerializeSPIRVTranslation() {
  TranslateFromMLIRRegistration registration(
      "serialize-spirv",
      "write the spirv.module of a module lowered by sm-lower-to-vulkan as a "
      "SPIR-V binary",
      subgroup_matrix::serializeToSPIRV, [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerSubgroupMatrixDialect(registry);
      });
}
