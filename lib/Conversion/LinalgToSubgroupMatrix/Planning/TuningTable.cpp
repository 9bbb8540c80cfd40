//===- TuningTable.cpp - measured tilings per problem ---------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TuningTable.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::subgroup_matrix;

#include "BuiltinTuningTables.inc"

/// The field of `tiling` an option names, or null.
static int64_t *getTilingField(MatmulTiling &tiling, StringRef option) {
  return llvm::StringSwitch<int64_t *>(option)
      .Case("tile-m", &tiling.tileM)
      .Case("tile-n", &tiling.tileN)
      .Case("tile-k", &tiling.tileK)
      .Case("subgroups-m", &tiling.subgroupsM)
      .Case("subgroups-n", &tiling.subgroupsN)
      .Case("padding", &tiling.padding)
      .Case("stages", &tiling.stages)
      .Case("prefetch", &tiling.prefetch)
      .Case("preload-c", &tiling.preloadC)
      .Case("stage-b-transposed", &tiling.stageBTransposed)
      .Case("vector-width", &tiling.vectorWidth)
      .Case("group-m", &tiling.groupM)
      .Case("split-k", &tiling.splitK)
      .Default(nullptr);
}

FailureOr<TuningTable> TuningTable::parse(StringRef text, StringRef name,
                                          std::string &error) {
  TuningTable table;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    unsigned lineNumber = index + 1;
    auto fail = [&](const Twine &message) {
      error = llvm::formatv("{0}:{1}: {2}", name, lineNumber, message.str());
      return failure();
    };
    StringRef line = rawLine.split('#').first.trim();
    if (line.empty())
      continue;
    SmallVector<StringRef> fields;
    line.split(fields, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    if (fields.size() < 4)
      return fail("expected 'INPUT ACCUMULATOR MxNxK b|bt OPTION=VALUE...'");
    TuningEntry entry;
    // Unset: the caller's split stays (see applyTuning).
    entry.tiling.splitK = -1;
    entry.input = fields[0].str();
    entry.accumulator = fields[1].str();
    SmallVector<StringRef> sizes;
    fields[2].split(sizes, 'x');
    if (sizes.size() != 3 || sizes[0].getAsInteger(10, entry.m) ||
        sizes[1].getAsInteger(10, entry.n) ||
        sizes[2].getAsInteger(10, entry.k) || entry.m <= 0 || entry.n <= 0 ||
        entry.k <= 0)
      return fail("'" + fields[2] + "' is not MxNxK with positive sizes");
    if (fields[3] != "b" && fields[3] != "bt")
      return fail("the layout of B is 'b' (K x N) or 'bt' (N x K), not '" +
                  fields[3] + "'");
    entry.transposedB = fields[3] == "bt";
    for (StringRef option : ArrayRef<StringRef>(fields).drop_front(4)) {
      auto [key, value] = option.split('=');
      int64_t *field = getTilingField(entry.tiling, key);
      if (!field)
        return fail("unknown option '" + key + "'");
      if (value.getAsInteger(10, *field))
        return fail("option '" + key + "' needs an integer, not '" + value +
                    "'");
    }
    table.entries.push_back(std::move(entry));
  }
  return table;
}

FailureOr<TuningTable> TuningTable::read(StringRef path, std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = llvm::formatv("cannot read tuning table '{0}': {1}", path,
                          file.getError().message());
    return failure();
  }
  return parse((*file)->getBuffer(), path, error);
}

const TuningTable &TuningTable::getBuiltin(TargetAttr target) {
  static const TuningTable empty;
  static const TuningTable nvidiaH100 = [] {
    std::string error;
    FailureOr<TuningTable> table =
        parse(nvidiaH100Tuning, "data/tuning/nvidia-h100.tuning", error);
    // test/Conversion/LinalgToSubgroupMatrix/tuning-table-builtin.mlir
    // reads the shipped table; a malformed one is a build defect.
    if (failed(table))
      llvm::report_fatal_error(llvm::StringRef(error));
    return *table;
  }();
  // Measured on the H100; the tilings it names are checked against the
  // target like any other, so NVIDIA's other devices take it too.
  if (target.getVendor() == Vendor::Nvidia)
    return nvidiaH100;
  return empty;
}

static std::string toString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

std::optional<MatmulTiling>
TuningTable::lookup(const Contraction &contraction) const {
  if (contraction.hasDynamicSizes())
    return std::nullopt;
  std::string input = toString(contraction.inputComponent);
  std::string accumulator = toString(contraction.resultComponent);
  const TuningEntry *best = nullptr;
  double bestDistance = 0;
  for (const TuningEntry &entry : entries) {
    if (entry.input != input || entry.accumulator != accumulator ||
        entry.transposedB != contraction.b.transposed)
      continue;
    // M and N from the entry's to twice it: a smaller problem would leave
    // compute units idle with the tuned (usually larger) tiles. K from half
    // to twice.
    auto ratio = [](int64_t size, int64_t tuned) {
      return std::log2(double(size) / double(tuned));
    };
    double m = ratio(contraction.m, entry.m), n = ratio(contraction.n, entry.n),
           k = ratio(contraction.k, entry.k);
    bool near = m >= 0 && m <= 1 && n >= 0 && n <= 1 && std::fabs(k) <= 1;
    double distance = m + n + std::fabs(k);
    if (near && (!best || distance < bestDistance)) {
      best = &entry;
      bestDistance = distance;
    }
  }
  if (!best)
    return std::nullopt;
  return best->tiling;
}

/// Whether `tiling` asks for nothing (every field at its default; split K
/// may be on automatic, as sm-linalg-to-gpu's default is).
static bool isDefaultTiling(const MatmulTiling &tiling) {
  return !tiling.tileM && !tiling.tileN && !tiling.tileK &&
         !tiling.subgroupsM && !tiling.subgroupsN && tiling.padding < 0 &&
         !tiling.stages && tiling.prefetch < 0 && tiling.preloadC < 0 &&
         tiling.stageBTransposed < 0 && !tiling.vectorWidth && !tiling.groupM &&
         tiling.splitK <= 1;
}

MatmulTiling mlir::subgroup_matrix::applyTuning(const Contraction &contraction,
                                                const MatmulTiling &requested,
                                                const TuningTable *table) {
  if (!table || !isDefaultTiling(requested))
    return requested;
  std::optional<MatmulTiling> tuned = table->lookup(contraction);
  if (!tuned)
    return requested;
  MatmulTiling result = *tuned;
  // A line without split-k leaves the caller's choice (automatic or off).
  if (result.splitK < 0)
    result.splitK = requested.splitK;
  return result;
}

LogicalResult TuningTableOption::parse(Location loc, StringRef option) {
  disabled = option == "none";
  if (option.empty() || disabled)
    return success();
  std::string error;
  FailureOr<TuningTable> read = TuningTable::read(option, error);
  if (failed(read))
    return emitError(loc) << error, failure();
  fromFile = std::move(*read);
  return success();
}

const TuningTable *TuningTableOption::getFor(TargetAttr target) const {
  if (disabled)
    return nullptr;
  if (fromFile)
    return &*fromFile;
  return &TuningTable::getBuiltin(target);
}
