//===- Translations.cpp - sm-translate registrations ----------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "mlir/InitAllTranslations.h"

void mlir::subgroup_matrix::registerSubgroupMatrixTranslations() {
  static bool registered = [] {
    registerToSPIRVTranslation();
    registerFromSPIRVTranslation();
    return true;
  }();
  (void)registered;
}
