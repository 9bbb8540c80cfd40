//===- GemmCheck.cpp - CPU reference for GEMM-shaped kernels --------------===//

#include "GemmCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

using namespace sm_runner;

std::optional<GemmCheck> sm_runner::parseGemmCheck(const std::string &text,
                                                   std::string &error) {
  const std::string prefix = "gemm:";
  if (text.compare(0, prefix.size(), prefix) != 0) {
    error =
        "only gemm checks exist: --check gemm:M=..,N=..,K=..,A=..,B=..,C=..";
    return std::nullopt;
  }
  GemmCheck check;
  std::stringstream stream(text.substr(prefix.size()));
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t equals = item.find('=');
    std::string key = item.substr(0, equals);
    std::string value =
        equals == std::string::npos ? "" : item.substr(equals + 1);
    char *end = nullptr;
    double number = std::strtod(value.c_str(), &end);
    bool isNumber = !value.empty() && !*end;
    auto needNumber = [&]() {
      if (!isNumber)
        error = "--check: '" + key + "' needs a number, got '" + value + "'";
      return isNumber;
    };
    auto integer = [&](uint64_t max) -> std::optional<uint64_t> {
      std::optional<uint64_t> parsed = parseBoundedInteger(value, 0, max);
      if (!parsed)
        error = "--check: '" + key + "' needs an integer from 0 to " +
                std::to_string(max) + ", got '" + value + "'";
      return parsed;
    };
    auto size = [&](size_t &field) {
      std::optional<uint64_t> parsed = integer(maxBufferElements);
      if (parsed)
        field = size_t(*parsed);
      return parsed.has_value();
    };
    auto buffer = [&](int &field) {
      std::optional<uint64_t> parsed = integer(1023);
      if (parsed)
        field = int(*parsed);
      return parsed.has_value();
    };
    bool ok = true;
    if (key == "M")
      ok = size(check.m);
    else if (key == "N")
      ok = size(check.n);
    else if (key == "K")
      ok = size(check.k);
    else if (key == "A")
      ok = buffer(check.a.buffer);
    else if (key == "B")
      ok = buffer(check.b.buffer);
    else if (key == "C")
      ok = buffer(check.c.buffer);
    else if (key == "acc")
      ok = buffer(check.acc.buffer);
    else if (key == "lda")
      ok = size(check.a.leadingDimension);
    else if (key == "ldb")
      ok = size(check.b.leadingDimension);
    else if (key == "ldc")
      ok = size(check.c.leadingDimension);
    else if (key == "ldacc")
      ok = size(check.acc.leadingDimension);
    else if (key == "a-offset")
      ok = size(check.a.offset);
    else if (key == "b-offset")
      ok = size(check.b.offset);
    else if (key == "c-offset")
      ok = size(check.c.offset);
    else if (key == "acc-offset")
      ok = size(check.acc.offset);
    else if (key == "a-col-major")
      check.a.colMajor = true;
    else if (key == "b-col-major")
      check.b.colMajor = true;
    else if (key == "c-col-major")
      check.c.colMajor = true;
    else if (key == "acc-col-major")
      check.acc.colMajor = true;
    else if (key == "init")
      ok = needNumber() && (check.initialValue = number, true);
    else if (key == "add" || key == "sub" || key == "mul" || key == "div")
      ok = needNumber() && (check.scalarOps.push_back({key[0], number}), true);
    else {
      error = "--check: unknown key '" + key + "'";
      return std::nullopt;
    }
    if (!ok)
      return std::nullopt;
  }
  if (!check.m || !check.n || !check.k || check.a.buffer < 0 ||
      check.b.buffer < 0 || check.c.buffer < 0) {
    error = "--check gemm needs M, N, K (positive) and the buffers A, B, C";
    return std::nullopt;
  }
  return check;
}

/// Rounds `value` to what a buffer of `type` can hold; integers wrap.
static double roundTo(ElementType type, double value) {
  HostBuffer scratch(type, 1);
  scratch.set(0, value);
  return scratch.get(0);
}

/// The dialect's clamp of a scalar to the range of an integer component.
static double clampScalar(ElementType type, double value) {
  switch (type) {
  case ElementType::I8:
    return std::fmin(127, std::fmax(-128, value));
  case ElementType::U8:
    return std::fmin(255, std::fmax(0, value));
  default:
    return value;
  }
}

CheckReport sm_runner::runGemmCheck(const GemmCheck &check,
                                    const std::vector<HostBuffer> &before,
                                    const std::vector<HostBuffer> &after) {
  CheckReport report;
  std::ostringstream details;
  auto bufferOk = [&](const MatrixView &view, const char *name, size_t rows,
                      size_t cols) {
    if (view.buffer < 0 || size_t(view.buffer) >= before.size()) {
      details << name << " names buffer " << view.buffer << ", which does not "
              << "exist\n";
      return false;
    }
    size_t last = view.index(rows - 1, cols - 1, rows, cols);
    if (last >= before[view.buffer].size()) {
      details << name << " (" << rows << "x" << cols << ") reaches element "
              << last << " of a buffer of " << before[view.buffer].size()
              << "\n";
      return false;
    }
    return true;
  };
  if (!bufferOk(check.a, "A", check.m, check.k) ||
      !bufferOk(check.b, "B", check.k, check.n) ||
      !bufferOk(check.c, "C", check.m, check.n) ||
      (check.acc.buffer >= 0 &&
       !bufferOk(check.acc, "acc", check.m, check.n))) {
    report.details = details.str();
    return report;
  }

  const HostBuffer &a = before[check.a.buffer];
  const HostBuffer &b = before[check.b.buffer];
  const HostBuffer &cAfter = after[check.c.buffer];
  ElementType resultType = cAfter.getType();
  bool integer = !isFloat(resultType);
  // The rounding unit of the accumulation, generous enough for hardware
  // that truncates products or accumulates in a different order.
  double unit = resultType == ElementType::F16 ? std::ldexp(1.0, -9)
                                               : std::ldexp(1.0, -18);

  // A and B as doubles, A by rows and B by columns, so that each element of
  // C is a dot product of two contiguous vectors. Integer sums of 8-bit
  // products stay far below 2^53, so doubles hold them exactly.
  size_t m = check.m, n = check.n, k = check.k;
  std::vector<double> rowsOfA(m * k), columnsOfB(n * k);
  for (size_t i = 0; i < m; ++i)
    for (size_t p = 0; p < k; ++p)
      rowsOfA[i * k + p] = a.get(check.a.index(i, p, m, k));
  for (size_t j = 0; j < n; ++j)
    for (size_t p = 0; p < k; ++p)
      columnsOfB[j * k + p] = b.get(check.b.index(p, j, k, n));

  // An element of C that still holds the poison it was filled with (every
  // byte 0xFF) was never written.
  const HostBuffer &cBefore = before[check.c.buffer];
  size_t elementSize = getElementSize(resultType);
  auto isUnwritten = [&](size_t index) {
    const uint8_t *old = cBefore.getBytes().data() + index * elementSize;
    const uint8_t *now = cAfter.getBytes().data() + index * elementSize;
    return std::memcmp(old, now, elementSize) == 0 &&
           std::all_of(old, old + elementSize,
                       [](uint8_t byte) { return byte == 0xFF; });
  };

  struct Outcome {
    size_t mismatches = 0, unwritten = 0;
    std::string unwrittenPositions;
    double maxAbsError = 0, maxRelError = 0;
    std::string details;
  };
  auto checkRows = [&](size_t firstRow, size_t lastRow, Outcome &outcome) {
    std::ostringstream rowDetails;
    for (size_t i = firstRow; i < lastRow; ++i) {
      const double *x = &rowsOfA[i * k];
      for (size_t j = 0; j < n; ++j) {
        const double *y = &columnsOfB[j * k];
        // Four partial sums: faster, and the order does not matter at the
        // precision compared.
        double sum[4] = {0, 0, 0, 0}, squares[4] = {0, 0, 0, 0},
               magnitude[4] = {0, 0, 0, 0};
        size_t p = 0;
        for (; p + 4 <= k; p += 4)
          for (int lane = 0; lane < 4; ++lane) {
            double product = x[p + lane] * y[p + lane];
            sum[lane] += product;
            squares[lane] += product * product;
            magnitude[lane] += std::fabs(product);
          }
        for (; p < k; ++p) {
          double product = x[p] * y[p];
          sum[0] += product;
          squares[0] += product * product;
          magnitude[0] += std::fabs(product);
        }
        double total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
        double sumOfSquares =
            (squares[0] + squares[1]) + (squares[2] + squares[3]);
        double sumOfMagnitudes =
            (magnitude[0] + magnitude[1]) + (magnitude[2] + magnitude[3]);

        double initial = 0;
        if (check.acc.buffer >= 0)
          initial = before[check.acc.buffer].get(check.acc.index(i, j, m, n));
        else if (check.initialValue)
          initial = roundTo(resultType,
                            clampScalar(a.getType(), *check.initialValue));
        double expected = roundTo(resultType, total + initial);
        sumOfSquares += initial * initial;
        sumOfMagnitudes += std::fabs(initial);
        for (auto [op, operand] : check.scalarOps) {
          double scalar = integer ? clampScalar(resultType, operand)
                                  : roundTo(resultType, operand);
          double scale = std::fabs(scalar);
          switch (op) {
          case 'a':
            expected += scalar;
            sumOfMagnitudes += scale;
            sumOfSquares += scale * scale;
            break;
          case 's':
            expected -= scalar;
            sumOfMagnitudes += scale;
            sumOfSquares += scale * scale;
            break;
          case 'm':
            expected *= scalar;
            sumOfMagnitudes *= scale;
            sumOfSquares *= scale * scale;
            break;
          case 'd':
            expected /= scalar;
            sumOfMagnitudes /= scale;
            sumOfSquares /= scale * scale;
            break;
          }
          expected = roundTo(resultType, expected);
        }

        double got = cAfter.get(check.c.index(i, j, m, n));
        double error = std::fabs(got - expected);
        // Rounding errors of a long sum grow like sqrt(K) times the size of
        // its terms (they have random signs); the worst case, K times the
        // sum of magnitudes, bounds that for short sums.
        double worstCase = unit * double(k + 4) * sumOfMagnitudes;
        double typical =
            unit * (4 * std::sqrt(double(k) + 1) * std::sqrt(sumOfSquares) +
                    std::fabs(expected));
        double tolerance = std::fmin(worstCase, typical) + 1e-30;
        bool ok = integer ? got == expected : error <= tolerance;
        if (!std::isnan(error)) {
          outcome.maxAbsError = std::fmax(outcome.maxAbsError, error);
          if (expected != 0)
            outcome.maxRelError =
                std::fmax(outcome.maxRelError, error / std::fabs(expected));
        }
        if (!ok && isUnwritten(check.c.index(i, j, m, n))) {
          if (outcome.unwritten < 8)
            outcome.unwrittenPositions +=
                " C[" + std::to_string(i) + "][" + std::to_string(j) + "]";
          ++outcome.unwritten;
        }
        if (!ok) {
          if (outcome.mismatches < 8)
            rowDetails << "  C[" << i << "][" << j << "] = " << got
                       << ", expected " << expected << "\n";
          ++outcome.mismatches;
        }
      }
    }
    outcome.details = rowDetails.str();
  };

  // Rows are checked in parallel: the reference of an 8192^3 GEMM is a
  // trillion multiply-adds.
  size_t workers = std::max<size_t>(
      1, std::min<size_t>(std::thread::hardware_concurrency(), m));
  std::vector<Outcome> outcomes(workers);
  std::vector<std::thread> threads;
  size_t rowsPerWorker = (m + workers - 1) / workers;
  for (size_t w = 0; w < workers; ++w) {
    size_t first = std::min(m, w * rowsPerWorker);
    size_t last = std::min(m, first + rowsPerWorker);
    threads.emplace_back(checkRows, first, last, std::ref(outcomes[w]));
  }
  for (std::thread &thread : threads)
    thread.join();
  for (const Outcome &outcome : outcomes) {
    if (report.mismatches < 8)
      details << outcome.details;
    report.mismatches += outcome.mismatches;
    if (report.unwritten < 8)
      report.unwrittenPositions += outcome.unwrittenPositions;
    report.unwritten += outcome.unwritten;
    report.maxAbsError = std::fmax(report.maxAbsError, outcome.maxAbsError);
    report.maxRelError = std::fmax(report.maxRelError, outcome.maxRelError);
  }
  report.compared = m * n;

  std::vector<bool> written(cAfter.size(), false);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      written[check.c.index(i, j, m, n)] = true;
  // The kernel must not touch the rest of C's buffer.
  const std::vector<uint8_t> &bytesBefore = cBefore.getBytes();
  const std::vector<uint8_t> &bytesAfter = cAfter.getBytes();
  for (size_t index = 0; index < cAfter.size(); ++index) {
    if (written[index])
      continue;
    if (std::memcmp(bytesBefore.data() + index * elementSize,
                    bytesAfter.data() + index * elementSize,
                    elementSize) != 0) {
      if (report.clobbered < 4)
        details << "  element " << index
                << " of C's buffer lies outside C but was written\n";
      ++report.clobbered;
    }
  }
  report.passed = report.mismatches == 0 && report.clobbered == 0;
  report.details = details.str();
  return report;
}
