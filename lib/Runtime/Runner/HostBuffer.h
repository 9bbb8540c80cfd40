//===- HostBuffer.h - typed host buffers of the Vulkan runner ---*- C++ -*-===//
//
// Element types, their conversions to and from double, buffer descriptions
// parsed from the command line and the ways to fill a buffer.
//
//===----------------------------------------------------------------------===//

#ifndef SM_VULKAN_RUNNER_HOSTBUFFER_H
#define SM_VULKAN_RUNNER_HOSTBUFFER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sm_runner {

/// The element types a kernel argument can have.
enum class ElementType { F16, BF16, F32, F64, I8, U8, I32, U32 };

/// Parses all of `text` as a decimal integer in [min, max]: no sign, no
/// fraction, nothing after it.
std::optional<uint64_t> parseBoundedInteger(const std::string &text,
                                            uint64_t min, uint64_t max);

/// The most elements one argument may have (16 GiB of f32).
constexpr uint64_t maxBufferElements = uint64_t(1) << 32;

/// Parses "f16", "bf16", "f32", "f64", "i8", "u8", "i32" or "u32".
std::optional<ElementType> parseElementType(const std::string &name);
const char *getElementTypeName(ElementType type);
size_t getElementSize(ElementType type);
bool isFloat(ElementType type);

/// IEEE binary16 and bfloat16 conversions, rounding to nearest even.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

/// How a buffer is filled before the dispatch.
struct Fill {
  enum class Kind {
    Random,
    Constant,
    File,
    Poison,
    Iota,
    Values
  } kind = Kind::Poison;
  uint64_t seed = 0;
  double value = 0;
  std::string path;
  std::vector<double> values; // Kind::Values: one per element.
};

/// One kernel argument: `TYPE:COUNT:FILL` where FILL is `random[:SEED]`,
/// `const:VALUE`, `file:PATH`, `poison` (every byte 0xFF: NaN for floats,
/// -1 for integers) or `iota` (0, 1, 2, ...).
struct BufferSpec {
  ElementType type = ElementType::F32;
  size_t count = 0;
  Fill fill;
};

/// Parses a buffer description; on failure returns nothing and sets `error`.
std::optional<BufferSpec> parseBufferSpec(const std::string &text,
                                          std::string &error);

/// A buffer's bytes on the host, with typed access.
class HostBuffer {
public:
  HostBuffer(ElementType type, size_t count)
      : type(type), count(count), bytes(count * getElementSize(type)) {}

  /// Fills the buffer; random values are uniform in [-1, 1] for floats and
  /// cover the whole range of 8-bit integers (and [-2^15, 2^15) for 32-bit
  /// ones, so that sums stay meaningful). Fails only for unreadable files.
  bool fill(const Fill &fill, std::string &error);

  double get(size_t index) const;
  void set(size_t index, double value);

  ElementType getType() const { return type; }
  size_t size() const { return count; }
  std::vector<uint8_t> &getBytes() { return bytes; }
  const std::vector<uint8_t> &getBytes() const { return bytes; }

private:
  ElementType type;
  size_t count;
  std::vector<uint8_t> bytes;
};

} // namespace sm_runner

#endif // SM_VULKAN_RUNNER_HOSTBUFFER_H
