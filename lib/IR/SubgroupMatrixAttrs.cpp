//===- SubgroupMatrixAttrs.cpp - subgroup_matrix attributes ---------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "MatrixShapeParsing.h"
#include "SubgroupMatrix/Support/SizeExpression.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

#define GET_ATTRDEF_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixAttrs.cpp.inc"

void SubgroupMatrixDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "SubgroupMatrix/IR/SubgroupMatrixAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MatrixConfigAttr
//===----------------------------------------------------------------------===//

Attribute MatrixConfigAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> shape;
  Type componentType, resultType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  SMLoc shapeLoc = parser.getCurrentLocation();
  // Without this, a leading minus sign fails deep in the dimension list
  // parser with a message about function types.
  if (succeeded(parser.parseOptionalMinus())) {
    parser.emitError(shapeLoc, "matrix dimensions must be positive");
    return {};
  }
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/false) ||
      parser.parseComma() || parser.parseType(componentType) ||
      parser.parseArrow() || parser.parseType(resultType))
    return {};
  unsigned workgroupInvocations = 0;
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("workgroup") || parser.parseEqual() ||
       parser.parseInteger(workgroupInvocations)))
    return {};
  if (parser.parseGreater())
    return {};
  if (failed(checkParsedMatrixShape(parser, shapeLoc, shape, 3,
                                    "an M x N x K shape")))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape[0], shape[1], shape[2], componentType, resultType,
                    workgroupInvocations);
}

void MatrixConfigAttr::print(AsmPrinter &printer) const {
  printer << "<" << getM() << "x" << getN() << "x" << getK() << ", "
          << getComponentType() << " -> " << getResultType();
  if (getWorkgroupInvocations())
    printer << ", workgroup = " << getWorkgroupInvocations();
  printer << ">";
}

LogicalResult
MatrixConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned m, unsigned n, unsigned k, Type componentType,
                         Type resultType, unsigned) {
  if (m == 0 || n == 0 || k == 0)
    return emitError() << "configuration dimensions must be positive, got " << m
                       << "x" << n << "x" << k;
  // The result type is not checked against the accumulator rule of `mma`: a
  // target describes what a device reports, which may include combinations
  // (such as si8 -> ui32 on RDNA3) that no `mma` can name.
  for (Type type : {componentType, resultType})
    if (!isValidComponentType(type))
      return emitError() << "configuration types must be one of f16, bf16, "
                            "f32, si8, ui8, si32 or ui32, got "
                         << type;
  return success();
}

bool MatrixConfigAttr::covers(SubgroupMatrixTypeInterface type) const {
  if (type.getScope() != getScope())
    return false;
  unsigned rows = type.getRows(), columns = type.getColumns();
  Type element = type.getElementType();
  switch (type.getKind()) {
  case MatrixKind::Left:
    return rows == getM() && columns == getK() && element == getComponentType();
  case MatrixKind::Right:
    return rows == getK() && columns == getN() && element == getComponentType();
  case MatrixKind::Result:
    return rows == getM() && columns == getN() && element == getResultType();
  }
  llvm_unreachable("unknown matrix kind");
}

/// Whether `left`, `right` and `result` are a left, a right and a result
/// matrix type that each satisfy `accepts`.
static bool
areMultiplyOperands(Type left, Type right, Type result,
                    function_ref<bool(SubgroupMatrixTypeInterface)> accepts) {
  auto leftType = dyn_cast<LeftMatrixType>(left);
  auto rightType = dyn_cast<RightMatrixType>(right);
  auto resultType = dyn_cast<ResultMatrixType>(result);
  return leftType && rightType && resultType && accepts(leftType) &&
         accepts(rightType) && accepts(resultType);
}

/// Whether the shapes of multiply operands (areMultiplyOperands) agree:
/// M x K times K x N into M x N.
static bool haveMultiplyShapes(Type left, Type right, Type result) {
  auto leftType = cast<LeftMatrixType>(left);
  auto rightType = cast<RightMatrixType>(right);
  auto resultType = cast<ResultMatrixType>(result);
  return leftType.getRows() == resultType.getRows() &&
         rightType.getColumns() == resultType.getColumns() &&
         leftType.getColumns() == rightType.getRows();
}

bool MatrixConfigAttr::matchesMultiply(Type left, Type right,
                                       Type result) const {
  return areMultiplyOperands(
      left, right, result,
      [&](SubgroupMatrixTypeInterface type) { return covers(type); });
}

bool MatrixConfigAttr::composes(SubgroupMatrixTypeInterface type) const {
  if (type.getScope() != getScope())
    return false;
  unsigned rows = getK(), columns = getN();
  Type element = getComponentType();
  switch (type.getKind()) {
  case MatrixKind::Left:
    rows = getM(), columns = getK();
    break;
  case MatrixKind::Right:
    break;
  case MatrixKind::Result:
    rows = getM(), element = getResultType();
    break;
  }
  return type.getRows() % rows == 0 && type.getColumns() % columns == 0 &&
         type.getElementType() == element;
}

bool MatrixConfigAttr::composesMultiply(Type left, Type right,
                                        Type result) const {
  return areMultiplyOperands(left, right, result,
                             [&](SubgroupMatrixTypeInterface type) {
                               return composes(type);
                             }) &&
         haveMultiplyShapes(left, right, result);
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

/// Parses `<"preset">`, `<"name", subgroup_size = N, configs = [...]>` or
/// `<subgroup_size = N, configs = [...]>`, each optionally followed by the
/// sizes `compute_units = N` and `workgroup_memory = BYTES`, the flags
/// `emulated`, `float64` and `int64`, and `nv_coopmat2 = [FEATURE, ...]`, in
/// that order.
Attribute TargetAttr::parse(AsmParser &parser, Type) {
  MLIRContext *context = parser.getContext();
  if (parser.parseLess())
    return {};
  SMLoc nameLoc = parser.getCurrentLocation();
  std::string name;
  bool hasName = succeeded(parser.parseOptionalString(&name));
  if (hasName && succeeded(parser.parseOptionalGreater())) {
    TargetAttr preset = lookupTargetPreset(context, name);
    if (!preset) {
      parser.emitError(nameLoc)
          << "unknown target preset '" << name
          << "'; known presets: " << llvm::join(getTargetPresetNames(), ", ");
      return {};
    }
    return preset;
  }
  if (hasName && parser.parseComma())
    return {};

  unsigned subgroupSize = 0;
  SMLoc sizeLoc;
  SmallVector<MatrixConfigAttr> configs, flexibleGranularities;
  unsigned flexibleMaxDimension = 0;
  auto parseConfigList =
      [&](SmallVectorImpl<MatrixConfigAttr> &list) -> ParseResult {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          auto config = dyn_cast_or_null<MatrixConfigAttr>(
              MatrixConfigAttr::parse(parser, Type()));
          if (!config)
            return failure();
          list.push_back(config);
          return success();
        });
  };
  if (parser.parseKeyword("subgroup_size") || parser.parseEqual())
    return {};
  sizeLoc = parser.getCurrentLocation();
  if (parser.parseInteger(subgroupSize) || parser.parseComma() ||
      parser.parseKeyword("configs") || parser.parseEqual() ||
      parseConfigList(configs))
    return {};
  // The device's sizes, then its flags, each in its order.
  unsigned computeUnits = 0, workgroupMemory = 0;
  struct Size {
    StringLiteral keyword;
    unsigned &value;
  } sizes[] = {{"compute_units", computeUnits},
               {"workgroup_memory", workgroupMemory}};
  bool flags[3] = {false, false, false};
  const char *flagNames[3] = {"emulated", "float64", "int64"};
  unsigned nextSize = 0, nextFlag = 0;
  CooperativeMatrix2Feature coopmat2Features = CooperativeMatrix2Feature::None;
  Vendor vendor = Vendor::Unknown;
  TargetBackend backend = TargetBackend::Vulkan;
  // The last fields, `vendor = V` then `backend = B`, each optional; the
  // comma before the first and its keyword are already read.
  auto parseFacts = [&](StringRef keyword) -> ParseResult {
    if (keyword == "vendor") {
      SMLoc loc = parser.getCurrentLocation();
      StringRef value;
      if (parser.parseEqual() || parser.parseKeyword(&value))
        return failure();
      std::optional<Vendor> parsed = symbolizeVendor(value);
      if (!parsed)
        return parser.emitError(loc) << "unknown vendor '" << value
                                     << "' (nvidia, amd, intel, apple, mesa, "
                                        "unknown)";
      vendor = *parsed;
      if (failed(parser.parseOptionalComma()))
        return success();
      if (parser.parseKeyword(&keyword))
        return failure();
    }
    SMLoc loc = parser.getCurrentLocation();
    StringRef value;
    if (keyword != "backend")
      return parser.emitError(loc)
             << "expected 'vendor = V' or 'backend = B' last, got '" << keyword
             << "'";
    if (parser.parseEqual() || parser.parseKeyword(&value))
      return failure();
    std::optional<TargetBackend> parsed = symbolizeTargetBackend(value);
    if (!parsed)
      return parser.emitError(loc)
             << "unknown backend '" << value << "' (vulkan, opencl, metal)";
    backend = *parsed;
    return success();
  };
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keywordLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    if (keyword == "vendor" || keyword == "backend") {
      if (failed(parseFacts(keyword)))
        return {};
      break;
    }
    if (keyword == "nv_coopmat2") {
      if (parser.parseEqual() ||
          parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                SMLoc featureLoc = parser.getCurrentLocation();
                StringRef feature;
                if (parser.parseKeyword(&feature))
                  return failure();
                std::optional<CooperativeMatrix2Feature> bit =
                    symbolizeCooperativeMatrix2Feature(feature);
                if (!bit || *bit == CooperativeMatrix2Feature::None)
                  return parser.emitError(featureLoc)
                         << "unknown VK_NV_cooperative_matrix2 feature '"
                         << feature << "'";
                coopmat2Features = coopmat2Features | *bit;
                return success();
              }))
        return {};
      StringRef next;
      if (failed(parser.parseOptionalComma()))
        break;
      if (parser.parseKeyword(&next))
        return {};
      if (next == "flexible_granularities") {
        if (parser.parseEqual() || parseConfigList(flexibleGranularities))
          return {};
        SMLoc maxLoc = parser.getCurrentLocation();
        if (failed(parser.parseOptionalComma()) ||
            failed(parser.parseOptionalKeyword("flexible_max_dimension"))) {
          parser.emitError(maxLoc, "expected ', flexible_max_dimension = N' "
                                   "after the flexible granularities");
          return {};
        }
        if (parser.parseEqual() || parser.parseInteger(flexibleMaxDimension))
          return {};
        if (failed(parser.parseOptionalComma()))
          break;
        if (parser.parseKeyword(&next))
          return {};
      }
      if (failed(parseFacts(next)))
        return {};
      break;
    }
    Size *size = std::find_if(
        sizes + nextSize, std::end(sizes),
        [&](const Size &candidate) { return candidate.keyword == keyword; });
    if (size != std::end(sizes) && nextFlag == 0) {
      if (parser.parseEqual() || parser.parseInteger(size->value))
        return {};
      nextSize = unsigned(size - sizes) + 1;
      continue;
    }
    const char **found =
        std::find(flagNames + nextFlag, std::end(flagNames), keyword);
    if (found == std::end(flagNames)) {
      parser.emitError(keywordLoc)
          << "expected 'compute_units = N', 'workgroup_memory = BYTES', "
             "'emulated', 'float64', 'int64', 'nv_coopmat2 = [...]', "
             "'vendor = V' or 'backend = B' (in that order), got '"
          << keyword << "'";
      return {};
    }
    nextFlag = unsigned(found - flagNames);
    flags[nextFlag++] = true;
  }
  if (parser.parseGreater())
    return {};
  StringAttr nameAttr = hasName ? StringAttr::get(context, name) : nullptr;
  return getChecked([&] { return parser.emitError(sizeLoc); }, context,
                    nameAttr, subgroupSize, configs, flags[0], flags[1],
                    flags[2], computeUnits, workgroupMemory, coopmat2Features,
                    flexibleGranularities, flexibleMaxDimension, vendor,
                    backend);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (StringAttr name = getName()) {
    printer << name;
    // An unchanged preset is printed by name alone.
    if (lookupTargetPreset(getContext(), name.getValue()) == *this) {
      printer << ">";
      return;
    }
    printer << ", ";
  }
  printer << "subgroup_size = " << getSubgroupSize() << ", configs = [";
  llvm::interleaveComma(getConfigs(), printer, [&](MatrixConfigAttr config) {
    config.print(printer);
  });
  printer << "]";
  if (getComputeUnits())
    printer << ", compute_units = " << getComputeUnits();
  if (getWorkgroupMemory())
    printer << ", workgroup_memory = " << getWorkgroupMemory();
  if (getEmulated())
    printer << ", emulated";
  if (getFloat64())
    printer << ", float64";
  if (getInt64())
    printer << ", int64";
  if (getCoopmat2Features() != CooperativeMatrix2Feature::None)
    printer << ", nv_coopmat2 = ["
            << stringifyCooperativeMatrix2Feature(getCoopmat2Features()) << "]";
  if (!getFlexibleGranularities().empty()) {
    printer << ", flexible_granularities = [";
    llvm::interleaveComma(
        getFlexibleGranularities(), printer,
        [&](MatrixConfigAttr config) { config.print(printer); });
    printer << "], flexible_max_dimension = " << getFlexibleMaxDimension();
  }
  if (getVendor() != Vendor::Unknown)
    printer << ", vendor = " << stringifyVendor(getVendor());
  if (getBackend() != TargetBackend::Vulkan)
    printer << ", backend = " << stringifyTargetBackend(getBackend());
  printer << ">";
}

LogicalResult TargetAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringAttr name,
    unsigned subgroupSize, ArrayRef<MatrixConfigAttr> configs, bool emulated,
    bool float64, bool int64, unsigned computeUnits, unsigned workgroupMemory,
    CooperativeMatrix2Feature coopmat2Features,
    ArrayRef<MatrixConfigAttr> flexibleGranularities,
    unsigned flexibleMaxDimension, Vendor, TargetBackend) {
  if (name && name.getValue().empty())
    return emitError() << "target name must not be empty";
  if (!flexibleGranularities.empty()) {
    if (!bitEnumContainsAll(coopmat2Features,
                            CooperativeMatrix2Feature::FlexibleDimensions))
      return emitError() << "flexible_granularities need the "
                            "'flexible_dimensions' feature in nv_coopmat2";
    if (emulated)
      return emitError() << "an emulated target has no flexible dimensions";
    for (MatrixConfigAttr granularity : flexibleGranularities) {
      if (std::max({granularity.getM(), granularity.getN(),
                    granularity.getK()}) > flexibleMaxDimension)
        return emitError() << "flexible granularity " << granularity
                           << " exceeds flexible_max_dimension = "
                           << flexibleMaxDimension;
      if (granularity.getWorkgroupInvocations() &&
          !bitEnumContainsAll(coopmat2Features,
                              CooperativeMatrix2Feature::WorkgroupScope))
        return emitError() << "flexible granularity " << granularity
                           << " is of workgroup scope, which needs the "
                              "'workgroup_scope' feature in nv_coopmat2";
    }
  }
  for (MatrixConfigAttr config : configs)
    if (config.getWorkgroupInvocations())
      return emitError() << "configuration " << config
                         << " is of workgroup scope: configs are subgroup "
                            "matrices, workgroup-scope ones are "
                            "flexible_granularities";
  if (!llvm::isPowerOf2_32(subgroupSize))
    return emitError() << "subgroup size must be a power of two, got "
                       << subgroupSize;
  if (configs.empty())
    return emitError() << "a target must list at least one matrix "
                          "configuration";
  return success();
}

/// Whether `type` is a subgroup matrix whose dimensions are multiples of
/// kEmulatedDimensionMultiple.
static bool hasEmulatedShape(SubgroupMatrixTypeInterface type) {
  unsigned multiple = TargetAttr::kEmulatedDimensionMultiple;
  // Emulation spreads a matrix over one subgroup's invocations.
  return type.getScope() == MatrixScope::Subgroup &&
         type.getRows() % multiple == 0 && type.getColumns() % multiple == 0;
}

/// Whether `type` is an operand of `config`'s kind and types in some
/// emulated shape.
static bool isEmulatedShapeOf(SubgroupMatrixTypeInterface type,
                              MatrixConfigAttr config) {
  Type expected = type.getKind() == MatrixKind::Result
                      ? config.getResultType()
                      : config.getComponentType();
  return hasEmulatedShape(type) && type.getElementType() == expected;
}

bool TargetAttr::isFlexibleShapeOf(SubgroupMatrixTypeInterface type,
                                   MatrixConfigAttr granularity) const {
  return granularity.composes(type) &&
         type.getRows() <= getFlexibleMaxDimension() &&
         type.getColumns() <= getFlexibleMaxDimension();
}

SmallVector<unsigned>
TargetAttr::getWorkgroupInvocationsOf(SubgroupMatrixTypeInterface type) const {
  SmallVector<unsigned> invocations;
  for (MatrixConfigAttr granularity : getFlexibleGranularities())
    if (granularity.getWorkgroupInvocations() &&
        isFlexibleShapeOf(type, granularity) &&
        !llvm::is_contained(invocations, granularity.getWorkgroupInvocations()))
      invocations.push_back(granularity.getWorkgroupInvocations());
  return invocations;
}

bool TargetAttr::supportsType(SubgroupMatrixTypeInterface type) const {
  // Emulated matrices of any kind hold any component type the target
  // computes with (a bf16 result matrix, say, to convert into a left one).
  if (getEmulated())
    return hasEmulatedShape(type) &&
           llvm::any_of(getConfigs(), [&](MatrixConfigAttr config) {
             return type.getElementType() == config.getComponentType() ||
                    type.getElementType() == config.getResultType();
           });
  return llvm::any_of(
             getConfigs(),
             [&](MatrixConfigAttr config) { return config.covers(type); }) ||
         llvm::any_of(getFlexibleGranularities(),
                      [&](MatrixConfigAttr granularity) {
                        return isFlexibleShapeOf(type, granularity);
                      });
}

bool TargetAttr::supportsMultiply(Type left, Type right, Type result) const {
  // A flexible multiplication's M, N and K are each a multiple of one
  // granularity's.
  if (llvm::any_of(getFlexibleGranularities(),
                   [&](MatrixConfigAttr granularity) {
                     return areMultiplyOperands(
                                left, right, result,
                                [&](SubgroupMatrixTypeInterface type) {
                                  return isFlexibleShapeOf(type, granularity);
                                }) &&
                            haveMultiplyShapes(left, right, result);
                   }))
    return true;
  return llvm::any_of(getConfigs(), [&](MatrixConfigAttr config) {
    if (!getEmulated())
      return config.matchesMultiply(left, right, result);
    // Any shapes that multiply, in a configuration's types.
    return areMultiplyOperands(left, right, result,
                               [&](SubgroupMatrixTypeInterface type) {
                                 return isEmulatedShapeOf(type, config);
                               }) &&
           haveMultiplyShapes(left, right, result);
  });
}

bool TargetAttr::supportsComposedType(SubgroupMatrixTypeInterface type) const {
  return llvm::any_of(getConfigs(), [&](MatrixConfigAttr config) {
    return config.composes(type);
  });
}

bool TargetAttr::supportsComposedMultiply(Type left, Type right,
                                          Type result) const {
  return llvm::any_of(getConfigs(), [&](MatrixConfigAttr config) {
    return config.composesMultiply(left, right, result);
  });
}

/// "A, B or C".
static std::string joinAlternatives(ArrayRef<unsigned> values) {
  std::string text;
  for (auto [i, value] : llvm::enumerate(values))
    text += (i == 0                   ? ""
             : i + 1 == values.size() ? " or "
                                      : ", ") +
            std::to_string(value);
  return text;
}

/// Each spelling once, in order of first appearance, with the workgroup
/// sizes it was listed for ("in workgroups of 32 or 64 invocations") where
/// any were.
static std::string
joinWithWorkgroupSizes(ArrayRef<std::pair<std::string, unsigned>> entries) {
  SmallVector<std::pair<std::string, SmallVector<unsigned>>> grouped;
  for (const auto &[spelling, invocations] : entries) {
    auto *group = llvm::find_if(
        grouped, [&](const auto &entry) { return entry.first == spelling; });
    if (group == grouped.end()) {
      grouped.push_back({spelling, {}});
      group = &grouped.back();
    }
    if (invocations && !llvm::is_contained(group->second, invocations))
      group->second.push_back(invocations);
  }
  SmallVector<std::string> parts;
  for (const auto &[spelling, sizes] : grouped)
    parts.push_back(sizes.empty()
                        ? spelling
                        : spelling + " in workgroups of " +
                              joinAlternatives(sizes) + " invocations");
  return llvm::join(parts, ", ");
}

std::string TargetAttr::describeSupported(MatrixKind kind,
                                          MatrixScope scope) const {
  llvm::SmallVector<std::string> spellings;
  llvm::StringSet<> seen;
  if (getEmulated()) {
    for (MatrixConfigAttr config : getConfigs()) {
      for (Type element : {config.getComponentType(), config.getResultType()}) {
        std::string spelling;
        llvm::raw_string_ostream os(spelling);
        os << element;
        if (seen.insert(spelling).second)
          spellings.push_back(spelling);
      }
    }
    return (Twine("emulated ") + stringifyMatrixKind(kind) +
            " matrices whose dimensions are multiples of " +
            Twine(kEmulatedDimensionMultiple) + ", with components " +
            llvm::join(spellings, ", "))
        .str();
  }
  // The operand of `kind` of each entry of `scope`, as a type spelling, then
  // `suffix`, with the workgroup size it holds for.
  SmallVector<std::pair<std::string, unsigned>> entries;
  auto addOperandOf = [&](MatrixConfigAttr config, StringRef suffix) {
    if (config.getScope() != scope)
      return;
    unsigned rows = kind == MatrixKind::Right ? config.getK() : config.getM();
    unsigned columns = kind == MatrixKind::Left ? config.getK() : config.getN();
    Type element = kind == MatrixKind::Result ? config.getResultType()
                                              : config.getComponentType();
    std::string spelling;
    llvm::raw_string_ostream os(spelling);
    os << stringifyMatrixKind(kind) << "<" << rows << "x" << columns << "x"
       << element << (scope == MatrixScope::Workgroup ? ", workgroup" : "")
       << ">" << suffix;
    entries.push_back({spelling, config.getWorkgroupInvocations()});
  };
  for (MatrixConfigAttr config : getConfigs())
    addOperandOf(config, "");
  std::string multiples =
      " multiples up to " + std::to_string(getFlexibleMaxDimension());
  for (MatrixConfigAttr granularity : getFlexibleGranularities())
    addOperandOf(granularity, multiples);
  if (entries.empty())
    return "no " + stringifyMatrixScope(scope).str() + "-scope matrices";
  return joinWithWorkgroupSizes(entries);
}

std::string TargetAttr::describeConfigs(MatrixScope scope) const {
  SmallVector<std::pair<std::string, unsigned>> entries;
  auto describe = [&](MatrixConfigAttr config, StringRef suffix) {
    if (config.getScope() != scope)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << config.getM() << "x" << config.getN() << "x" << config.getK() << " "
       << config.getComponentType() << " -> " << config.getResultType()
       << suffix;
    entries.push_back({text, config.getWorkgroupInvocations()});
  };
  for (MatrixConfigAttr config : getConfigs())
    describe(config, "");
  std::string flexible = " up to " + std::to_string(getFlexibleMaxDimension()) +
                         " (flexible dimensions)";
  for (MatrixConfigAttr granularity : getFlexibleGranularities())
    describe(granularity, flexible);
  // Flexible granularities read as "multiples of" them.
  for (auto &[text, invocations] : entries)
    if (StringRef(text).ends_with(flexible))
      text = "multiples of " + text;
  std::string text =
      entries.empty()
          ? "none of " + stringifyMatrixScope(scope).str() + " scope"
          : joinWithWorkgroupSizes(entries);
  // An emulated target has no flexible granularities: this follows its
  // configurations.
  if (getEmulated() && scope == MatrixScope::Subgroup)
    text += " (emulated: the same types with any M, N and K that are "
            "multiples of " +
            std::to_string(kEmulatedDimensionMultiple) + ")";
  return text;
}

//===----------------------------------------------------------------------===//
// LaunchAttr
//===----------------------------------------------------------------------===//

/// Whether `text` is a decimal integer.
static bool isInteger(StringRef text) {
  return !text.empty() && llvm::all_of(text, llvm::isDigit);
}

/// Parses `<grid = [X, Y, Z], arguments = [...]` then optionally
/// `, sizes = [...]` and `, check = "..."`, then `>`; a grid count is an
/// integer or a quoted size expression.
Attribute LaunchAttr::parse(AsmParser &parser, Type) {
  MLIRContext *context = parser.getContext();
  SmallVector<StringAttr> grid, arguments, sizes;
  StringAttr check;
  auto parseStrings = [&](StringRef keyword, SmallVectorImpl<StringAttr> &into,
                          bool allowIntegers) -> ParseResult {
    if (parser.parseKeyword(keyword) || parser.parseEqual())
      return failure();
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          uint64_t count = 0;
          OptionalParseResult integer = allowIntegers
                                            ? parser.parseOptionalInteger(count)
                                            : OptionalParseResult();
          if (integer.has_value()) {
            if (failed(*integer))
              return failure();
            into.push_back(StringAttr::get(context, Twine(count)));
            return success();
          }
          std::string text;
          if (parser.parseString(&text))
            return failure();
          into.push_back(StringAttr::get(context, text));
          return success();
        });
  };
  if (parser.parseLess() || parseStrings("grid", grid, true) ||
      parser.parseComma() || parseStrings("arguments", arguments, false))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("check"))) {
      std::string text;
      if (parser.parseEqual() || parser.parseString(&text))
        return {};
      check = StringAttr::get(context, text);
      break;
    }
    if (!sizes.empty() || parseStrings("sizes", sizes, false))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LaunchAttr>(context, grid, arguments, sizes, check);
}

void LaunchAttr::print(AsmPrinter &printer) const {
  auto printStrings = [&](ArrayRef<StringAttr> texts, bool integersBare) {
    printer << "[";
    llvm::interleaveComma(texts, printer, [&](StringAttr text) {
      if (integersBare && isInteger(text.getValue()))
        printer << text.getValue();
      else
        printer << text;
    });
    printer << "]";
  };
  printer << "<grid = ";
  printStrings(getGrid(), true);
  printer << ", arguments = ";
  printStrings(getArguments(), false);
  if (!getSizes().empty()) {
    printer << ", sizes = ";
    printStrings(getSizes(), false);
  }
  if (getCheck())
    printer << ", check = " << getCheck();
  printer << ">";
}

LaunchAttr LaunchAttr::get(MLIRContext *context, ArrayRef<std::string> grid,
                           ArrayRef<std::string> arguments,
                           ArrayRef<std::string> sizes, StringRef check) {
  auto strings = [&](ArrayRef<std::string> texts) {
    return llvm::map_to_vector(texts, [&](const std::string &text) {
      return StringAttr::get(context, text);
    });
  };
  return get(context, strings(grid), strings(arguments), strings(sizes),
             check.empty() ? StringAttr() : StringAttr::get(context, check));
}

/// Checks a size expression (sm_launch's grammar) and collects the names
/// it uses; returns what is wrong, or "".
static std::string checkSizeExpression(StringRef text,
                                       SmallVectorImpl<std::string> &names) {
  std::string error;
  sm_launch::SizeLookup record = [&](const std::string &name, uint64_t &value,
                                     std::string &) {
    names.push_back(name);
    value = 1;
    return true;
  };
  if (!sm_launch::evaluateSizeExpression(text.str(), record, error))
    return ("'" + text +
            "' is not a size expression (integers and names, "
            "'*', ceildiv(X,Y), min(X,Y))")
        .str();
  return "";
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> grid,
                                 ArrayRef<StringAttr> arguments,
                                 ArrayRef<StringAttr> sizes, StringAttr check) {
  if (grid.size() != 3)
    return emitError() << "a launch needs a grid of three counts, not "
                       << grid.size();
  llvm::StringSet<> known;
  for (StringAttr size : sizes)
    known.insert(size.getValue());
  SmallVector<std::string> names;
  for (StringAttr count : grid) {
    std::string problem = checkSizeExpression(count.getValue(), names);
    if (!problem.empty())
      return emitError() << "has a grid count " << problem;
    uint64_t value;
    if (!count.getValue().getAsInteger(10, value) &&
        (value == 0 || value > uint64_t(INT32_MAX)))
      return emitError() << "has a grid count of " << value
                         << ", not between 1 and " << INT32_MAX;
  }
  // Expressions within specifications are braced.
  auto checkBraced = [&](StringRef text) {
    std::string problem;
    sm_launch::forEachBracedExpression(
        text.str(), [](const std::string &) { return true; },
        [&](const std::string &expression) {
          problem = checkSizeExpression(expression, names);
          return problem.empty();
        },
        problem);
    return problem;
  };
  for (StringAttr argument : arguments)
    if (std::string problem = checkBraced(argument.getValue());
        !problem.empty())
      return emitError() << "has an argument where " << problem;
  if (check)
    if (std::string problem = checkBraced(check.getValue()); !problem.empty())
      return emitError() << "has a check where " << problem;
  for (const std::string &name : names)
    if (!known.contains(name))
      return emitError() << "uses the size '" << name
                         << "', which is not one of its sizes";
  return success();
}

std::string LaunchAttr::getRunnerOptions() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << " --grid ";
  llvm::interleave(
      getGrid(), os,
      [&](StringAttr count) {
        if (isInteger(count.getValue()))
          os << count.getValue();
        else
          os << "{" << count.getValue() << "}";
      },
      ",");
  for (StringAttr argument : getArguments())
    os << " --arg " << argument.getValue();
  // Sizes known only at run time follow the buffers, as 32-bit scalars
  // (index arguments of Vulkan kernels are 32 bits wide).
  for (StringAttr size : getSizes())
    os << " --scalar i32:{" << size.getValue() << "}";
  if (getCheck())
    os << " --check " << getCheck().getValue();
  return text;
}
