//===- MatrixShapeParsing.h - the checks of a parsed matrix shape -*- C++
//-*-===//
//
// Matrix types (`left<16x16xf16>`) and configurations (`<16x16x16, ...>`)
// take their shapes the same way; the two parsers share this check.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_LIB_IR_MATRIXSHAPEPARSING_H
#define SUBGROUPMATRIX_LIB_IR_MATRIXSHAPEPARSING_H

#include "mlir/IR/OpImplementation.h"

namespace mlir::subgroup_matrix {

/// Reports at `loc`, and fails, a parsed `shape` that does not have `rank`
/// dimensions ("expected `expected`, got N dimension(s)") or whose
/// dimensions are not positive 32-bit integers.
inline LogicalResult checkParsedMatrixShape(AsmParser &parser, SMLoc loc,
                                            ArrayRef<int64_t> shape,
                                            size_t rank, StringRef expected) {
  if (shape.size() != rank)
    return parser.emitError(loc) << "expected " << expected << ", got "
                                 << shape.size() << " dimension(s)";
  for (int64_t dim : shape)
    if (dim <= 0 || dim > std::numeric_limits<int32_t>::max())
      return parser.emitError(loc)
             << "matrix dimensions must be positive 32-bit integers, got "
             << dim;
  return success();
}

} // namespace mlir::subgroup_matrix

#endif // SUBGROUPMATRIX_LIB_IR_MATRIXSHAPEPARSING_H
