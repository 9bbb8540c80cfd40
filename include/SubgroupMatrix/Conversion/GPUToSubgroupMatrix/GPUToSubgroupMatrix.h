//===- GPUToSubgroupMatrix.h - gpu.subgroup_mma_* to this dialect -*- C++ -*-=//

#ifndef SUBGROUPMATRIX_CONVERSION_GPUTOSUBGROUPMATRIX_GPUTOSUBGROUPMATRIX_H
#define SUBGROUPMATRIX_CONVERSION_GPUTOSUBGROUPMATRIX_GPUTOSUBGROUPMATRIX_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace subgroup_matrix {

/// Adds the conversion of `!gpu.mma_matrix<MxNxT, "AOp"|"BOp"|"COp">` to
/// `left`, `right` and `result` matrices. Signless integer types take the
/// signedness upstream gives them: `i32` accumulators are signed and `i8`
/// operands (which upstream spells `si8`/`ui8`) keep theirs.
void populateGPUMMAToSubgroupMatrixTypeConversion(TypeConverter &converter);

/// Adds the patterns that rewrite the upstream ops: `subgroup_mma_load_matrix`
/// and `store_matrix` become `load`/`store` (`leadDimension` the stride,
/// `transpose` the column-major layout), `subgroup_mma_compute` becomes `mma`,
/// `constant_matrix` a `splat` and `elementwise` a `map` whose body is the
/// named arithmetic op.
void populateGPUMMAToSubgroupMatrixPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_GPUTOSUBGROUPMATRIX_GPUTOSUBGROUPMATRIX_H
