//===- DotProductPlan.h - when and how products take dot products -*- C++
//-*-===//
//
// The choice between the two kernel families of a contraction: a tiled
// product on subgroup matrices (TilingPlan.h), or, for products with a few
// rows that are bound by reading B once, a kernel of dot products
// (DotProductKernel.h), and that kernel's layout.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_DOTPRODUCTPLAN_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_DOTPRODUCTPLAN_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include <optional>
#include <string>

namespace mlir {
namespace subgroup_matrix {

/// How a dot-product kernel is laid out (#subgroup_matrix.dot_product_plan).
struct DotProductPlan {
  /// Subgroups per workgroup, and columns of C per subgroup.
  int64_t subgroups = 0, columns = 0;
  /// Elements of K an invocation reads at once, and such reads per
  /// invocation per step of the K loop.
  int64_t vectorWidth = 0, unroll = 0;

  DotProductPlanAttr getAttr(MLIRContext *context) const;
  static DotProductPlan get(DotProductPlanAttr attr);
};

/// Why a dot-product kernel cannot compute `contraction` (empty when it
/// can): it takes a static M, no batch, A stored M x K and B stored N x K
/// (maybe computed by a prologue), float or 8-bit integer elements.
std::string whyNotDotProducts(const Contraction &contraction);

/// The plan of a dot-product kernel for `contraction` on `target` where
/// that kernel is the one to use: M at most `maxRows` (-1: the target's
/// crossover, 0: never), and whyNotDotProducts empty. None otherwise (the
/// tiled product).
std::optional<DotProductPlan> planDotProducts(const Contraction &contraction,
                                              TargetAttr target,
                                              int64_t maxRows = -1);

/// Checks `plan` (one written by hand) against `contraction` on `target`;
/// reports on the contraction's op what does not fit.
LogicalResult checkDotProductPlan(const Contraction &contraction,
                                  TargetAttr target,
                                  const DotProductPlan &plan);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_DOTPRODUCTPLAN_H
