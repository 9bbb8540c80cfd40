//===- Translations.cpp - sm-translate registrations ----------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "mlir/InitAllTranslations.h"

void mlir::subgroup_matrix::registerSubgroupMatrixTranslations() {
  static bool registered = [] {
    registerSerializeSPIRVTranslation();
    registerFromSPIRVTranslation();
    return true;
  }();
  (void)registered;
}
