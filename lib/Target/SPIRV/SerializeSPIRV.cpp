//===- SerializeSPIRV.cpp - write the spirv.module of a lowered module ----===//
//
// `sm-translate --serialize-spirv` takes what `sm-opt --sm-lower-to-vulkan`
// prints (a module holding gpu.modules and the spirv.modules built from them)
// and writes the SPIR-V binary, with no manual extraction step.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "SubgroupMatrix/InitAll.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string> spirvModuleName(
    "spirv-module",
    llvm::cl::desc("With --serialize-spirv: the spirv.module to write when "
                   "the input holds several"),
    llvm::cl::init(""));

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
    return input->emitError()
           << "no spirv.module"
           << (spirvModuleName.empty() ? ""
                                       : " named '" + spirvModuleName + "'")
           << " to serialize; lower the input first (sm-opt "
              "--sm-lower-to-vulkan)";
  if (candidates.size() > 1) {
    InFlightDiagnostic diagnostic = input->emitError()
                                    << "the input holds " << candidates.size()
                                    << " spirv.modules; choose one with "
                                       "--spirv-module=NAME:";
    for (spirv::ModuleOp module : candidates)
      diagnostic << " " << (module.getSymName() ? *module.getSymName() : "");
    return diagnostic;
  }

  SmallVector<uint32_t> binary;
  if (failed(spirv::serialize(candidates.front(), binary)))
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
