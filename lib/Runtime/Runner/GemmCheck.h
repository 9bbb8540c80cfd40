//===- GemmCheck.h - CPU reference for GEMM-shaped kernels ------*- C++ -*-===//
//
// Recomputes C = A * B (+ an initial accumulator) and a chain of scalar ops on
// the host, in double precision (exactly, for integers), and compares it with
// what the kernel wrote, including that the kernel wrote nothing outside C.
//
//===----------------------------------------------------------------------===//

#ifndef SM_VULKAN_RUNNER_GEMMCHECK_H
#define SM_VULKAN_RUNNER_GEMMCHECK_H

#include "HostBuffer.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sm_runner {

/// Where one matrix lives in its buffer.
struct MatrixView {
  int buffer = -1;
  size_t offset = 0;
  size_t leadingDimension = 0; // 0: the matrix's own row (or column) length.
  bool colMajor = false;

  /// Index into the buffer of element (row, col) of a matrix whose rows
  /// (row-major) or columns (column-major) are `minor` long.
  size_t index(size_t row, size_t col, size_t rows, size_t cols) const {
    size_t ld = leadingDimension ? leadingDimension : (colMajor ? rows : cols);
    return offset + (colMajor ? col * ld + row : row * ld + col);
  }
};

/// `gemm:M=..,N=..,K=..,A=i,B=j,C=k[,KEY=VALUE...]` as given to --check.
/// Keys: lda/ldb/ldc/ldacc, a-offset/b-offset/c-offset/acc-offset,
/// a-col-major/b-col-major/c-col-major/acc-col-major (flags), acc=BUFFER (an
/// initial accumulator read before the dispatch), init=VALUE (a constant
/// initial accumulator), and add/sub/mul/div=VALUE (scalar ops applied to
/// the result in the order given, integers clamped like the dialect's).
struct GemmCheck {
  size_t m = 0, n = 0, k = 0;
  MatrixView a, b, c, acc;
  std::optional<double> initialValue;
  std::vector<std::pair<char, double>> scalarOps;
};

std::optional<GemmCheck> parseGemmCheck(const std::string &text,
                                        std::string &error);

/// The outcome of a comparison.
struct CheckReport {
  bool passed = false;
  size_t compared = 0, mismatches = 0, clobbered = 0;
  /// Mismatches that still hold the poison C was filled with: elements the
  /// kernel should have written and did not; the first few as " C[i][j]".
  size_t unwritten = 0;
  std::string unwrittenPositions;
  double maxAbsError = 0, maxRelError = 0;
  std::string details;
};

/// Compares `after[check.c]` with the reference computed from `before`
/// (the buffers as they were before the dispatch).
CheckReport runGemmCheck(const GemmCheck &check,
                         const std::vector<HostBuffer> &before,
                         const std::vector<HostBuffer> &after);

} // namespace sm_runner

#endif // SM_VULKAN_RUNNER_GEMMCHECK_H
