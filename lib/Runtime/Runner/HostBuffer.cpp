//===- HostBuffer.cpp - typed host buffers of the Vulkan runner -----------===//

#include "HostBuffer.h"

#include <cerrno>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

using namespace sm_runner;

std::optional<ElementType>
sm_runner::parseElementType(const std::string &name) {
  if (name == "f16")
    return ElementType::F16;
  if (name == "bf16")
    return ElementType::BF16;
  if (name == "f32")
    return ElementType::F32;
  if (name == "f64")
    return ElementType::F64;
  if (name == "i8")
    return ElementType::I8;
  if (name == "u8")
    return ElementType::U8;
  if (name == "i32")
    return ElementType::I32;
  if (name == "u32")
    return ElementType::U32;
  return std::nullopt;
}

const char *sm_runner::getElementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  case ElementType::I32:
    return "i32";
  case ElementType::U32:
    return "u32";
  }
  return "?";
}

size_t sm_runner::getElementSize(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I8:
  case ElementType::U8:
    return 1;
  case ElementType::F64:
    return 8;
  default:
    return 4;
  }
}

bool sm_runner::isFloat(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16 ||
         type == ElementType::F32 || type == ElementType::F64;
}

uint16_t sm_runner::floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t exponent = (bits >> 23) & 0xFF;
  uint32_t mantissa = bits & 0x7FFFFF;
  if (exponent == 0xFF) // Inf or NaN.
    return sign | 0x7C00 | (mantissa ? 0x200 : 0);
  int halfExponent = int(exponent) - 127 + 15;
  if (halfExponent >= 31)
    return sign | 0x7C00;
  if (halfExponent <= 0) {
    if (halfExponent < -10)
      return sign;
    mantissa |= 0x800000;
    int shift = 14 - halfExponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = (uint32_t(halfExponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent, which rounds up correctly.
  return sign | half;
}

float sm_runner::halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1F;
  uint32_t mantissa = half & 0x3FF;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      // Subnormal: normalise.
      int shift = 0;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3FF;
      bits = sign | (uint32_t(127 - 15 - shift + 1) << 23) | (mantissa << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7F800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t sm_runner::floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7F800000) == 0x7F800000 && (bits & 0x7FFFFF))
    return uint16_t((bits >> 16) | 0x40); // Quiet NaN.
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

float sm_runner::bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

std::optional<uint64_t> sm_runner::parseBoundedInteger(const std::string &text,
                                                       uint64_t min,
                                                       uint64_t max) {
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  errno = 0;
  uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max)
    return std::nullopt;
  return value;
}

std::optional<BufferSpec> sm_runner::parseBufferSpec(const std::string &text,
                                                     std::string &error) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    fields.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  if (fields.size() < 3) {
    error = "expected TYPE:COUNT:FILL, got '" + text + "'";
    return std::nullopt;
  }
  BufferSpec spec;
  std::optional<ElementType> type = parseElementType(fields[0]);
  if (!type) {
    error = "unknown element type '" + fields[0] +
            "' (expected f16, bf16, f32, f64, i8, u8, i32 or u32)";
    return std::nullopt;
  }
  spec.type = *type;
  std::optional<uint64_t> count =
      parseBoundedInteger(fields[1], 1, maxBufferElements);
  if (!count) {
    error = "the element count must be an integer from 1 to " +
            std::to_string(maxBufferElements) + ", got '" + fields[1] + "'";
    return std::nullopt;
  }
  spec.count = size_t(*count);
  char *end = nullptr;
  const std::string &kind = fields[2];
  auto rest = [&]() {
    std::string joined;
    for (size_t i = 3; i < fields.size(); ++i)
      joined += (i > 3 ? ":" : "") + fields[i];
    return joined;
  };
  if (kind == "random") {
    spec.fill.kind = Fill::Kind::Random;
    std::optional<uint64_t> seed =
        fields.size() > 3 ? parseBoundedInteger(rest(), 0, UINT64_MAX)
                          : std::optional<uint64_t>(std::random_device{}());
    if (!seed) {
      error = "the seed must be a non-negative integer, got '" + rest() + "'";
      return std::nullopt;
    }
    spec.fill.seed = *seed;
  } else if (kind == "const") {
    spec.fill.kind = Fill::Kind::Constant;
    if (fields.size() < 4) {
      error = "const needs a value: TYPE:COUNT:const:VALUE";
      return std::nullopt;
    }
    // `end` points into `value`, which must outlive the check.
    std::string value = rest();
    spec.fill.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end) {
      error = "not a number: '" + value + "'";
      return std::nullopt;
    }
  } else if (kind == "file") {
    spec.fill.kind = Fill::Kind::File;
    spec.fill.path = rest();
  } else if (kind == "poison") {
    spec.fill.kind = Fill::Kind::Poison;
  } else if (kind == "iota") {
    spec.fill.kind = Fill::Kind::Iota;
  } else {
    error = "unknown fill '" + kind +
            "' (expected random[:SEED], const:VALUE, file:PATH, poison or "
            "iota)";
    return std::nullopt;
  }
  return spec;
}

bool HostBuffer::fill(const Fill &fill, std::string &error) {
  switch (fill.kind) {
  case Fill::Kind::Poison:
    std::memset(bytes.data(), 0xFF, bytes.size());
    return true;
  case Fill::Kind::Constant:
    for (size_t i = 0; i < count; ++i)
      set(i, fill.value);
    return true;
  case Fill::Kind::Values:
    for (size_t i = 0; i < count && i < fill.values.size(); ++i)
      set(i, fill.values[i]);
    return true;
  case Fill::Kind::Iota:
    for (size_t i = 0; i < count; ++i)
      set(i, double(i));
    return true;
  case Fill::Kind::File: {
    std::ifstream file(fill.path, std::ios::binary);
    if (!file) {
      error = "cannot read '" + fill.path + "'";
      return false;
    }
    file.read(reinterpret_cast<char *>(bytes.data()), bytes.size());
    if (size_t(file.gcount()) != bytes.size()) {
      error = "'" + fill.path + "' holds fewer than the " +
              std::to_string(bytes.size()) + " bytes the buffer needs";
      return false;
    }
    return true;
  }
  case Fill::Kind::Random: {
    std::mt19937_64 engine(fill.seed);
    for (size_t i = 0; i < count; ++i) {
      double value;
      switch (type) {
      case ElementType::I8:
        value = double(int(engine() % 256) - 128);
        break;
      case ElementType::U8:
        value = double(engine() % 256);
        break;
      case ElementType::I32:
        value = double(int64_t(engine() % 65536) - 32768);
        break;
      case ElementType::U32:
        value = double(engine() % 65536);
        break;
      default:
        value = std::ldexp(double(engine() >> 11), -52) - 1.0;
        break;
      }
      set(i, value);
    }
    return true;
  }
  }
  return false;
}

double HostBuffer::get(size_t index) const {
  const uint8_t *p = bytes.data() + index * getElementSize(type);
  switch (type) {
  case ElementType::F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return halfToFloat(bits);
  }
  case ElementType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return bfloat16ToFloat(bits);
  }
  case ElementType::F32: {
    float value;
    std::memcpy(&value, p, 4);
    return value;
  }
  case ElementType::F64: {
    double value;
    std::memcpy(&value, p, 8);
    return value;
  }
  case ElementType::I8:
    return double(int8_t(*p));
  case ElementType::U8:
    return double(*p);
  case ElementType::I32: {
    int32_t value;
    std::memcpy(&value, p, 4);
    return value;
  }
  case ElementType::U32: {
    uint32_t value;
    std::memcpy(&value, p, 4);
    return value;
  }
  }
  return 0;
}

void HostBuffer::set(size_t index, double value) {
  uint8_t *p = bytes.data() + index * getElementSize(type);
  switch (type) {
  case ElementType::F16: {
    uint16_t bits = floatToHalf(float(value));
    std::memcpy(p, &bits, 2);
    return;
  }
  case ElementType::BF16: {
    uint16_t bits = floatToBFloat16(float(value));
    std::memcpy(p, &bits, 2);
    return;
  }
  case ElementType::F32: {
    float narrow = float(value);
    std::memcpy(p, &narrow, 4);
    return;
  }
  case ElementType::F64:
    std::memcpy(p, &value, 8);
    return;
  case ElementType::I8:
  case ElementType::U8:
    *p = uint8_t(int64_t(value));
    return;
  case ElementType::I32:
  case ElementType::U32: {
    uint32_t bits = uint32_t(int64_t(value));
    std::memcpy(p, &bits, 4);
    return;
  }
  }
}
