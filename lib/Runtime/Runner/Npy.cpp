//===- Npy.cpp - NumPy .npy arrays on disk --------------------------------===//

#include "SubgroupMatrix/Runtime/Npy.h"

#include "Files.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace mlir::subgroup_matrix::runtime;

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;
static const char *const kTypeCodes[] = {"f2", "f4", "f8", "i1", "u1", "i2",
                                         "u2", "i4", "u4", "i8", "u8", "b1"};

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

int64_t NpyArray::getElementSize() const {
  return dtype.size() == 2 ? dtype[1] - '0' : 0;
}

std::string NpyArray::describe() const {
  std::string text = dtype + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text + "]";
}

namespace {
/// Reads the Python dict literal of a .npy header, which holds exactly the
/// keys 'descr', 'fortran_order' and 'shape'.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(NpyArray &array, bool &fortranOrder, std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!consume('{'))
      return fail("the header is not a dict", error);
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !consume(':'))
        return fail("the header is not a dict of known keys", error);
      if (key == "descr") {
        std::string descr;
        if (!parseString(descr))
          return fail("'descr' is not a string (structured arrays are not "
                      "supported)",
                      error);
        if (descr.size() != 3 ||
            (descr[0] != '<' && descr[0] != '|' && descr[0] != '='))
          return fail("element type '" + descr +
                          "' is not supported (little-endian numbers only)",
                      error);
        array.dtype = descr.substr(1);
        bool known = false;
        for (const char *code : kTypeCodes)
          known |= array.dtype == code;
        if (!known)
          return fail("element type '" + descr + "' is not supported", error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (consumeWord("True"))
          fortranOrder = true;
        else if (consumeWord("False"))
          fortranOrder = false;
        else
          return fail("'fortran_order' is not True or False", error);
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(array.shape))
          return fail("'shape' is not a tuple of sizes", error);
        haveShape = true;
      } else {
        return fail("the header has an unknown key '" + key + "'", error);
      }
      consume(',');
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("the header lacks 'descr', 'fortran_order' or 'shape'",
                  error);
    return true;
  }

private:
  void skipSpaces() {
    while (position < text.size() && std::isspace(text[position]))
      ++position;
  }
  bool consume(char c) {
    skipSpaces();
    if (position < text.size() && text[position] == c) {
      ++position;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    skipSpaces();
    size_t length = std::strlen(word);
    if (text.compare(position, length, word) != 0)
      return false;
    position += length;
    return true;
  }
  bool parseString(std::string &value) {
    skipSpaces();
    if (position >= text.size() ||
        (text[position] != '\'' && text[position] != '"'))
      return false;
    char quote = text[position++];
    size_t end = text.find(quote, position);
    if (end == std::string::npos)
      return false;
    value = text.substr(position, end - position);
    position = end + 1;
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipSpaces();
      size_t start = position;
      while (position < text.size() && std::isdigit(text[position]))
        ++position;
      if (start == position || position - start > 15)
        return false;
      shape.push_back(std::stoll(text.substr(start, position - start)));
      consume(',');
    }
    return true;
  }
  static bool fail(const std::string &message, std::string &error) {
    error = message;
    return false;
  }

  const std::string &text;
  size_t position = 0;
};
} // namespace

bool mlir::subgroup_matrix::runtime::readNpy(const std::string &path,
                                             NpyArray &array,
                                             std::string &error) {
  std::vector<char> bytes;
  if (!sm_runner::readWholeFile(path, bytes, error))
    return false;
  auto failWith = [&](const std::string &message) {
    error = "'" + path + "' is not a .npy array this tool reads: " + message;
    return false;
  };
  if (bytes.size() < kMagicSize + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return failWith("it does not start with the .npy magic string");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  auto byteAt = [&](size_t i) {
    return static_cast<size_t>(static_cast<unsigned char>(bytes[i]));
  };
  if (major == 1) {
    headerLength = byteAt(8) | byteAt(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return failWith("the file ends inside its header");
    headerLength =
        byteAt(8) | byteAt(9) << 8 | byteAt(10) << 16 | byteAt(11) << 24;
    headerStart = 12;
  } else {
    return failWith("format version " + std::to_string(major) +
                    " is not one of 1, 2 and 3");
  }
  if (headerStart + headerLength > bytes.size())
    return failWith("the file ends inside its header");
  std::string header(bytes.data() + headerStart, headerLength);
  bool fortranOrder = false;
  std::string headerError;
  array = NpyArray();
  if (!HeaderParser(header).parse(array, fortranOrder, headerError))
    return failWith(headerError);
  if (fortranOrder && array.shape.size() > 1)
    return failWith("it is in Fortran order; save a C-ordered array "
                    "(numpy.ascontiguousarray)");
  size_t dataStart = headerStart + headerLength;
  // Sizes are bounded before they are multiplied, so a corrupt shape is an
  // error rather than an overflow.
  int64_t count = 1;
  for (int64_t size : array.shape) {
    if (size > (int64_t(1) << 40) ||
        (size && count > (int64_t(1) << 40) / size))
      return failWith("its shape " + array.describe() + " is too large");
    count *= size;
  }
  size_t expected = size_t(count * array.getElementSize());
  if (bytes.size() - dataStart != expected)
    return failWith("its shape " + array.describe() + " needs " +
                    std::to_string(expected) + " bytes of data, the file has " +
                    std::to_string(bytes.size() - dataStart));
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool mlir::subgroup_matrix::runtime::writeNpy(const std::string &path,
                                              const NpyArray &array,
                                              std::string &error) {
  std::string header = "{'descr': '";
  header += array.getElementSize() == 1 ? "|" : "<";
  header += array.dtype + "', 'fortran_order': False, 'shape': (";
  for (int64_t size : array.shape)
    header += std::to_string(size) + (array.shape.size() == 1 ? ",)" : ", ");
  if (array.shape.size() != 1) {
    if (!array.shape.empty())
      header.resize(header.size() - 2);
    header += ")";
  }
  header += ", }";
  // The data starts at a multiple of 64 bytes; the header ends in '\n'.
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot write '" + path + "'";
    return false;
  }
  file.write(kMagic, kMagicSize);
  char version[2] = {1, 0};
  file.write(version, 2);
  char length[2] = {char(header.size() & 0xFF), char(header.size() >> 8)};
  file.write(length, 2);
  file.write(header.data(), header.size());
  file.write(array.data.data(), array.data.size());
  if (!file) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
