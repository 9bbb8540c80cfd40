//===- Npy.h - NumPy .npy arrays on disk ------------------------*- C++ -*-===//
//
// sm-run takes its inputs and writes its results as NumPy's .npy files
// (format versions 1 to 3, little-endian, C order), so that a program runs on
// arrays that numpy, PyTorch or any other tool wrote, and its results load
// with `numpy.load`.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_RUNTIME_NPY_H
#define SUBGROUPMATRIX_RUNTIME_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::subgroup_matrix::runtime {

/// An array as a .npy file holds it.
struct NpyArray {
  /// NumPy's type code without the byte order: "f2", "f4", "f8", "i1",
  /// "u1", "i2", "u2", "i4", "u4", "i8", "u8" or "b1".
  std::string dtype;
  std::vector<int64_t> shape;
  /// The elements in C (row-major) order, little-endian.
  std::vector<char> data;

  /// The number of elements (1 for a rank-0 array).
  int64_t getNumElements() const;
  /// The size of one element in bytes, from the type code.
  int64_t getElementSize() const;
  /// "f4[256x512]", for messages.
  std::string describe() const;
};

/// Reads `path`; on failure returns false with `error` saying what is wrong
/// with the file (not found, not a .npy file, a type code or layout that is
/// not supported, a size that does not match the shape).
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// Writes `array` to `path` in format version 1.0.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

} // namespace mlir::subgroup_matrix::runtime

#endif // SUBGROUPMATRIX_RUNTIME_NPY_H
