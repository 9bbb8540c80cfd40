//===- TuningTable.h - measured tilings per problem -------------*- C++ -*-===//
//
// A tuning table says which tiling won, on one device, for contractions of
// given element types, B layout and sizes; `bench/tune` measures and writes
// it (data/tuning/<target>.tuning), sm-tile-matmul and sm-linalg-to-gpu
// read it. The text format, a line per problem:
//
//   INPUT ACCUMULATOR MxNxK LAYOUT OPTION=VALUE... # why it won
//
// e.g. `f16 f16 4096x4096x4096 b tile-m=256 tile-n=256 subgroups-m=4
// subgroups-n=4`, where LAYOUT is `b` (B stored K x N) or `bt` (N x K) and
// the options are the passes' tiling options.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TUNINGTABLE_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TUNINGTABLE_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>

namespace mlir {
namespace subgroup_matrix {

/// One problem of a tuning table and the tiling that won for it.
struct TuningEntry {
  std::string input, accumulator;
  int64_t m = 0, n = 0, k = 0;
  bool transposedB = false;
  MatmulTiling tiling;
};

/// The tilings of one table.
class TuningTable {
public:
  /// Parses `text`; on a malformed line, returns failure and sets `error`
  /// to a message naming `name` and the line.
  static FailureOr<TuningTable> parse(llvm::StringRef text,
                                      llvm::StringRef name, std::string &error);

  /// Reads and parses the file at `path`.
  static FailureOr<TuningTable> read(llvm::StringRef path, std::string &error);

  /// The table shipped for `target`'s vendor (data/tuning: NVIDIA's,
  /// measured on the H100), empty for vendors with none.
  static const TuningTable &getBuiltin(TargetAttr target);

  /// The tiling of the entry for `contraction`: same element types and B
  /// layout, static M and N from the entry's to twice it, K from half to
  /// twice; the nearest such entry (in the sum of |log2| of the size
  /// ratios). Its `splitK` is -1 where the line does not set it.
  std::optional<MatmulTiling> lookup(const Contraction &contraction) const;

private:
  llvm::SmallVector<TuningEntry> entries;
};

/// What the passes' `tuning-table` option selects: "" the target's shipped
/// table, "none" no table, anything else the file it names (read once).
class TuningTableOption {
public:
  /// Reads the file `option` names, if any; reports at `loc` what is wrong
  /// with it.
  LogicalResult parse(Location loc, llvm::StringRef option);

  /// The table for kernels of `target` (null: none).
  const TuningTable *getFor(TargetAttr target) const;

private:
  bool disabled = false;
  std::optional<TuningTable> fromFile;
};

/// Where no tiling option was given, the tiling `table` holds for
/// `contraction`, else `requested` as it is.
MatmulTiling applyTuning(const Contraction &contraction,
                         const MatmulTiling &requested,
                         const TuningTable *table);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TUNINGTABLE_H
