//===- Translations.cpp - sm-translate registrations ----------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "SubgroupMatrix/Target/MSL/TranslateToMSL.h"
#include "mlir/InitAllTranslations.h"

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
