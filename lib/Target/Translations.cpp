//===- Translations.cpp - sm-translate registrations ----------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "SubgroupMatrix/Target/MSL/TranslateToMSL.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/InitAllTranslations.h"

std::string
mlir::subgroup_matrix::getHostRunnerSignature(FunctionOpInterface kernel) {
  auto name = [](Type type) -> std::string {
    if (type.isBF16())
      return "bf16";
    if (isa<FloatType>(type))
      return "f" + std::to_string(type.getIntOrFloatBitWidth());
    if (type.isIndex())
      return "i32";
    if (type.isSignlessInteger())
      return "i" + std::to_string(type.getIntOrFloatBitWidth());
    return "?";
  };
  std::string signature;
  for (Type type : kernel.getArgumentTypes()) {
    if (!signature.empty())
      signature += ",";
    if (auto memref = dyn_cast<MemRefType>(type))
      signature += "buffer:" + name(memref.getElementType());
    else
      signature += "scalar:" + name(type);
  }
  return signature;
}

void mlir::subgroup_matrix::registerSubgroupMatrixTranslations() {
  static bool registered = [] {
    registerSerializeSPIRVTranslation();
    registerToMSLTranslation();
    registerToIntelSPIRVTranslation();
    registerFromSPIRVTranslation();
    return true;
  }();
  (void)registered;
}
