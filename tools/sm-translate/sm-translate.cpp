//===- sm-translate.cpp - subgroup_matrix translation driver --------------===//
//
// mlir-translate with the translations of this project: SPIR-V binaries and
// the target emitters registered in SubgroupMatrix/Target/Translations.h.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::subgroup_matrix::registerSubgroupMatrixTranslations();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "subgroup_matrix translation driver\n"));
}
