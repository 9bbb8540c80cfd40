//===- SubgroupMatrixTypes.cpp - subgroup_matrix types --------------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "MatrixShapeParsing.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

#include "SubgroupMatrix/IR/SubgroupMatrixTypeInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixOpsTypes.cpp.inc"

void SubgroupMatrixDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "SubgroupMatrix/IR/SubgroupMatrixOpsTypes.cpp.inc"
      >();
}

/// Parses `<RxCxT>` or `<RxCxT, scope>` and builds a matrix type of kind
/// `MatrixType`, reporting malformed shapes and component types at the
/// location of the shape.
template <typename MatrixType> static Type parseMatrixType(AsmParser &parser) {
  SmallVector<int64_t, 2> shape;
  Type elementType;
  SMLoc shapeLoc;
  if (parser.parseLess())
    return {};
  shapeLoc = parser.getCurrentLocation();
  // Without this, a leading minus sign fails deep in the dimension list
  // parser with a message about function types.
  if (succeeded(parser.parseOptionalMinus())) {
    parser.emitError(shapeLoc, "matrix dimensions must be positive");
    return {};
  }
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  MatrixScope scope = MatrixScope::Subgroup;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc scopeLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<MatrixScope> parsed = symbolizeMatrixScope(keyword);
    if (!parsed) {
      parser.emitError(scopeLoc)
          << "expected a matrix scope, 'subgroup' or 'workgroup', got '"
          << keyword << "'";
      return {};
    }
    scope = *parsed;
  }
  if (parser.parseGreater())
    return {};
  if (failed(checkParsedMatrixShape(parser, shapeLoc, shape, 2,
                                    "a shape of rows x columns")))
    return {};
  return MatrixType::getChecked(
      [&] { return parser.emitError(shapeLoc); }, parser.getContext(),
      static_cast<unsigned>(shape[0]), static_cast<unsigned>(shape[1]),
      elementType, scope);
}

/// Subgroup scope, the default, is left out.
static void printMatrixType(AsmPrinter &printer, unsigned rows,
                            unsigned columns, Type elementType,
                            MatrixScope scope) {
  printer << "<" << rows << "x" << columns << "x" << elementType;
  if (scope != MatrixScope::Subgroup)
    printer << ", " << stringifyMatrixScope(scope);
  printer << ">";
}

static LogicalResult
verifyMatrixType(function_ref<InFlightDiagnostic()> emitError, unsigned rows,
                 unsigned columns, Type elementType) {
  if (rows == 0 || columns == 0)
    return emitError() << "matrix dimensions must be positive, got " << rows
                       << "x" << columns;
  if (!isValidComponentType(elementType))
    return emitError() << "matrix component type must be one of f16, bf16, "
                          "f32, si8, ui8, si32 or ui32, got "
                       << elementType;
  return success();
}

#define DEFINE_MATRIX_TYPE_METHODS(ClassName, Kind)                            \
  Type ClassName::parse(AsmParser &parser) {                                   \
    return parseMatrixType<ClassName>(parser);                                 \
  }                                                                            \
  void ClassName::print(AsmPrinter &printer) const {                           \
    printMatrixType(printer, getRows(), getColumns(), getElementType(),        \
                    getScope());                                               \
  }                                                                            \
  LogicalResult ClassName::verify(                                             \
      function_ref<InFlightDiagnostic()> emitError, unsigned rows,             \
      unsigned columns, Type elementType, MatrixScope) {                       \
    return verifyMatrixType(emitError, rows, columns, elementType);            \
  }                                                                            \
  MatrixKind ClassName::getKind() const { return MatrixKind::Kind; }

DEFINE_MATRIX_TYPE_METHODS(LeftMatrixType, Left)
DEFINE_MATRIX_TYPE_METHODS(RightMatrixType, Right)
DEFINE_MATRIX_TYPE_METHODS(ResultMatrixType, Result)

#undef DEFINE_MATRIX_TYPE_METHODS
