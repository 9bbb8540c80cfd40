//===- DevicePlan.h - a program for one set of shapes, as the device runs it -*-
// C++ -*-===//
//
// What the runtime hands the device for one set of argument shapes: the
// buffers with how each starts (from an input, poisoned, or with constant
// data), the kernels' binaries, the launches and copies in order with every
// size and scalar known, and where the outputs are. It holds no MLIR: the
// runtime builds it from the host function (ExecutionPlan), PlanExecutor
// runs it, and it can be written to a directory and run elsewhere by
// sm-plan-runner (a machine with a GPU but without this project's
// toolchain).
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_DEVICEPLAN_H
#define SM_RUNTIME_VULKAN_DEVICEPLAN_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sm_runner {

struct DevicePlan {
  struct Buffer {
    uint64_t size = 0;
    /// How the buffer starts each run: with input `argument`, poisoned
    /// (every byte 0xFF, so that elements no kernel writes show), or with
    /// `data` (a constant, uploaded once).
    enum class Start { Input, Poison, Data } start = Start::Poison;
    int argument = -1;
    std::vector<char> data;
  };
  /// A range of a buffer, or a scalar's bytes.
  struct Argument {
    bool isScalar = false;
    unsigned buffer = 0;
    uint64_t offset = 0, size = 0;
    std::vector<char> scalar;
  };
  struct Step {
    bool isCopy = false;
    /// A launch: the kernel (an index into `kernels`), its grid, its
    /// arguments in binding order.
    unsigned kernel = 0;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::vector<Argument> arguments;
    /// A copy: `arguments` holds the source and then the target.
    std::string name;
  };
  struct Kernel {
    unsigned binary = 0;
    std::string entry;
  };
  /// A result, or an argument the program writes (`argument` >= 0).
  struct Output {
    int argument = -1;
    unsigned buffer = 0;
    uint64_t offset = 0;
    /// NumPy's type code ("f4") and the shape.
    std::string dtype;
    std::vector<int64_t> shape;
    /// For elements narrower than a byte (i4: 4): the array holds one per
    /// byte, the buffer packs them, the first in the low bits; else 0.
    unsigned packedBits = 0;
  };
  /// The inputs the program takes: type code and shape of each.
  struct Input {
    std::string dtype;
    std::vector<int64_t> shape;
    /// As for outputs.
    unsigned packedBits = 0;
  };

  std::vector<std::vector<uint32_t>> binaries;
  std::vector<Kernel> kernels;
  std::vector<Buffer> buffers;
  std::vector<Step> steps;
  std::vector<Output> outputs;
  std::vector<Input> inputs;
  /// The target the kernels were compiled for (which device to pick).
  std::string target;
};

/// Writes `plan` into directory `directory` (plan.txt and one .spv file per
/// binary, constants as .bin files); false with `error` on failure.
bool writeDevicePlan(const DevicePlan &plan, const std::string &directory,
                     std::string &error);
/// Reads what writeDevicePlan wrote; false with `error` naming the line or
/// file that is wrong.
bool readDevicePlan(const std::string &directory, DevicePlan &plan,
                    std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_DEVICEPLAN_H
