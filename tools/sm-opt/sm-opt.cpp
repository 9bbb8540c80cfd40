//===- sm-opt.cpp - subgroup_matrix optimizer driver ----------------------===//
//
// mlir-opt with the subgroup_matrix dialect, its passes and pipelines, and
// the upstream dialects and passes those pipelines are built from.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::subgroup_matrix::registerSubgroupMatrixDialect(registry);
  mlir::registerAllPasses();
  mlir::subgroup_matrix::registerSubgroupMatrixPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "subgroup_matrix optimizer driver\n", registry));
}
