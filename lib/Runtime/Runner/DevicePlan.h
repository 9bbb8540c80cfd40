//===- DevicePlan.h - a program for one set of shapes, as a device runs it ===//
//
// What the runtime hands a device for one set of argument shapes: the
// buffers with how each starts (from an input, poisoned, or with constant
// data), the kernels' binaries, the launches and copies in order with every
// size and scalar known, and where the outputs are. It holds no MLIR: the
// runtime builds it from the host function (ExecutionPlan) for every
// backend. A Vulkan device runs it in-process (PlanExecutor); the host
// runners of the Intel and Metal targets run it from the directory the
// runtime writes it to (HostPlanExecutor), as sm-plan-runner runs a Vulkan
// plan on a machine without this project's toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_DEVICEPLAN_H
#define SM_RUNTIME_RUNNER_DEVICEPLAN_H

#include "SubgroupMatrix/Runtime/Npy.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sm_runner {

using mlir::subgroup_matrix::runtime::NpyArray;

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

  /// The SPIR-V binaries of a Vulkan target.
  std::vector<std::vector<uint32_t>> binaries;
  /// The kernels of a host target in one file (Intel's per-invocation LLVM
  /// IR, Metal source): its name in the plan's directory ("kernels.ll") and
  /// its text. `binaries` is then empty and every kernel's `binary` 0.
  std::string hostSourceName, hostSource;
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

/// Checks `inputs` against the plan's: their number, and each one's shape
/// and type (an integer type's other signedness is taken); false with
/// `error` naming the first that differs.
bool checkPlanInputs(const DevicePlan &plan,
                     const std::vector<const NpyArray *> &inputs,
                     std::string &error);

/// The bytes a buffer that starts as an input holds at the start of a run:
/// the input's elements, packed where the plan packs them; false with
/// `error` when they do not fill the buffer.
bool getInputBytes(const DevicePlan &plan, const DevicePlan::Buffer &buffer,
                   const NpyArray &input, std::vector<char> &bytes,
                   std::string &error);

/// How many bytes of its buffer an output covers; false with `error` when
/// that reaches past the buffer's end or its type is unknown.
bool getOutputSize(const DevicePlan &plan, const DevicePlan::Output &output,
                   uint64_t &size, std::string &error);

/// The array of `output` from the getOutputSize bytes at its place,
/// unpacked where the plan packs it.
NpyArray decodeOutput(const DevicePlan::Output &output, const char *bytes);

/// Reads the inputs of a plan directory: `paths` where given, else
/// DIRECTORY/input_<i>.npy for each input of `plan`.
bool readPlanInputs(const DevicePlan &plan, const std::string &directory,
                    std::vector<std::string> paths,
                    std::vector<NpyArray> &inputs, std::string &error);

/// Writes each output to DIRECTORY/result_<i>.npy (results) or
/// DIRECTORY/arg_<i>.npy (arguments the program writes), creating
/// DIRECTORY, and prints a line for each; false with `error`.
bool writePlanOutputs(const DevicePlan &plan, const std::string &directory,
                      const std::vector<NpyArray> &outputs, std::string &error);

/// Reads back what writePlanOutputs wrote into `directory`, in the plan's
/// order of outputs; false with `error`.
bool readPlanOutputs(const DevicePlan &plan, const std::string &directory,
                     std::vector<NpyArray> &outputs, std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_DEVICEPLAN_H
