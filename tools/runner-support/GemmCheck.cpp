//===- GemmCheck.cpp - CPU reference for GEMM-shaped kernels --------------===//

#include "GemmCheck.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

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
    auto size = [&](size_t &field) {
      if (!needNumber() || number < 0)
        return false;
      field = size_t(number);
      return true;
    };
    auto buffer = [&](int &field) {
      if (!needNumber())
        return false;
      field = int(number);
      return true;
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
  const HostBuffer &cBefore = before[check.c.buffer];
  const HostBuffer &cAfter = after[check.c.buffer];
  ElementType resultType = cAfter.getType();
  bool integer = !isFloat(resultType);
  // The unit roundoff of the accumulation, generous enough for hardware that
  // truncates products or accumulates in a different order.
  double epsilon = resultType == ElementType::F16 ? std::ldexp(1.0, -9)
                                                  : std::ldexp(1.0, -18);

  std::vector<bool> written(cAfter.size(), false);
  for (size_t i = 0; i < check.m; ++i) {
    for (size_t j = 0; j < check.n; ++j) {
      // Integer products are exact in int64 and wrap like the device.
      int64_t integerSum = 0;
      double sum = 0, magnitude = 0;
      for (size_t p = 0; p < check.k; ++p) {
        double x = a.get(check.a.index(i, p, check.m, check.k));
        double y = b.get(check.b.index(p, j, check.k, check.n));
        if (integer)
          integerSum += int64_t(x) * int64_t(y);
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      double initial = 0;
      if (check.acc.buffer >= 0)
        initial = before[check.acc.buffer].get(
            check.acc.index(i, j, check.m, check.n));
      else if (check.initialValue)
        initial =
            roundTo(resultType, clampScalar(a.getType(), *check.initialValue));
      double expected;
      if (integer)
        expected = roundTo(resultType, double(integerSum + int64_t(initial)));
      else
        expected = roundTo(resultType, sum + initial);
      magnitude += std::fabs(initial);
      for (auto [op, operand] : check.scalarOps) {
        double s = integer ? clampScalar(resultType, operand)
                           : roundTo(resultType, operand);
        double scale = std::fabs(s);
        switch (op) {
        case 'a':
          expected += s;
          magnitude += scale;
          break;
        case 's':
          expected -= s;
          magnitude += scale;
          break;
        case 'm':
          expected *= s;
          magnitude *= scale;
          break;
        case 'd':
          expected /= s;
          magnitude /= scale;
          break;
        }
        expected = roundTo(resultType, expected);
      }

      size_t index = check.c.index(i, j, check.m, check.n);
      written[index] = true;
      double got = cAfter.get(index);
      double error = std::fabs(got - expected);
      double tolerance =
          integer ? 0 : epsilon * double(check.k + 4) * magnitude + 1e-30;
      bool ok = integer ? got == expected : error <= tolerance;
      ++report.compared;
      if (!std::isnan(error)) {
        report.maxAbsError = std::fmax(report.maxAbsError, error);
        if (expected != 0)
          report.maxRelError =
              std::fmax(report.maxRelError, error / std::fabs(expected));
      }
      if (!ok) {
        if (report.mismatches < 8)
          details << "  C[" << i << "][" << j << "] = " << got << ", expected "
                  << expected << "\n";
        ++report.mismatches;
      }
    }
  }
  // The kernel must not touch the rest of C's buffer.
  const std::vector<uint8_t> &bytesBefore = cBefore.getBytes();
  const std::vector<uint8_t> &bytesAfter = cAfter.getBytes();
  size_t elementSize = getElementSize(resultType);
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
