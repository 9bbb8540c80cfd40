//===- InitAll.cpp - register everything of the project -------------------===//

#include "SubgroupMatrix/InitAll.h"

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Pipelines/Pipelines.h"
#include "SubgroupMatrix/Transforms/Passes.h"

void mlir::subgroup_matrix::registerSubgroupMatrixDialect(
    DialectRegistry &registry) {
  registry.insert<SubgroupMatrixDialect>();
}

void mlir::subgroup_matrix::registerSubgroupMatrixPassesAndPipelines() {
  registerSubgroupMatrixPasses();
  registerSubgroupMatrixConversionPasses();
  registerSubgroupMatrixPipelines();
}
