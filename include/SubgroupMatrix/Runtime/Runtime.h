//===- Runtime.h - compile a program once, run it on arrays -----*- C++ -*-===//
//
// The runtime runs whole programs: a linalg program (what sm-linalg-to-gpu
// takes) or its compiled form is compiled in-process for a target, and run
// on a Vulkan device on host arrays, with its intermediates in device
// memory, every launch in one submission, constants uploaded once, and the
// buffers of one set of shapes kept for the next run of those shapes.
//
// Errors are MLIR diagnostics, located at the op they concern where there
// is one; nothing here exits.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_RUNTIME_RUNTIME_H
#define SUBGROUPMATRIX_RUNTIME_RUNTIME_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace sm_runner {
struct DevicePlan;
} // namespace sm_runner

namespace mlir::subgroup_matrix::runtime {

class Device;
struct ExecutionPlan;

/// What the pipelines of CompiledProgram::compile may use.
struct CompileOptions {
  /// The VK_NV_cooperative_matrix2 features the target lists (both
  /// pipelines' `nv-coopmat2`); false keeps to SPV_KHR_cooperative_matrix.
  bool nvCooperativeMatrix2 = true;
};

/// A program compiled for one target: the module with its host function and
/// kernels (after sm-linalg-to-gpu), and the SPIR-V binary of each kernel
/// module. One compiled program runs on arrays of any shapes its argument
/// types admit.
class CompiledProgram {
public:
  /// Where the kernels run: a Vulkan device, or the CPU through
  /// sm-intel-host-runner (Intel targets) or sm-msl-host-runner (Apple).
  enum class Backend { Vulkan, IntelHost, MetalHost };

  /// Compiles `module`, taking it over: a linalg program goes through
  /// sm-linalg-to-gpu for `target` first; the kernels are lowered with
  /// sm-lower-to-vulkan. `entry` names the function to run (empty: the only
  /// one that launches kernels).
  static FailureOr<std::unique_ptr<CompiledProgram>>
  compile(OwningOpRef<ModuleOp> module, StringRef target, StringRef entry,
          const CompileOptions &options = {});
  ~CompiledProgram();

  /// The compiled module (host function and gpu.modules).
  ModuleOp getModule() { return *module; }
  /// The function that runs.
  StringRef getEntry() const { return entry; }
  /// The number of arguments the program takes.
  unsigned getNumArguments();
  /// The memref type of argument `index`, or null for scalars.
  MemRefType getArgumentType(unsigned index);

private:
  friend class Device;
  CompiledProgram() = default;
  struct Binary;
  OwningOpRef<ModuleOp> module;
  std::string entry;
  std::string target;
  /// Distinct for every program compiled in this process.
  uint64_t identity = 0;
  Backend backend = Backend::Vulkan;
  SmallVector<std::unique_ptr<Binary>> binaries;
};

/// The backend that runs kernels compiled for `target` (its `backend`
/// field; Vulkan for none).
CompiledProgram::Backend getBackend(TargetAttr target);

/// Prepares a tool's process to run programs for `target`: a device that
/// only the drivers of utils/setup.sh's Debian root offer
/// (`cpu-lavapipe-coopmat`) is reached by running the program `argv` again
/// through that root's loader, which does not return. Returns false, with
/// `error` saying why, where that is needed and cannot be done.
bool enterTargetEnvironment(StringRef target, char **argv, std::string &error);

/// What a run gives back.
struct RunResults {
  /// The program's results, in order.
  SmallVector<NpyArray> results;
  /// The memref arguments the program writes (by position) and their
  /// contents after the run.
  SmallVector<std::pair<unsigned, NpyArray>> writtenArguments;
};

/// How long a program took on the device.
struct RunTimings {
  /// Each step (kernel launch or copy) of the program, in order: its name
  /// ("@kernels::@matmul_0", "copy") and its mean time in microseconds over
  /// the timed runs.
  SmallVector<std::pair<std::string, double>> steps;
  /// The mean time of a whole run on the device, from the start of the first
  /// step to the end of the last, in microseconds (measured without
  /// timestamps between the steps).
  double totalMicroseconds = 0;
  /// The mean time of a whole run on the host, from its submission to the
  /// return of the wait for it (0 where the host runners run it).
  double hostMicroseconds = 0;
  unsigned runs = 0;
};

/// A Vulkan device that runs compiled programs.
class Device {
public:
  /// Opens device `index` (-1: the kind of device `target` is for: the
  /// CPU device for `cpu-lavapipe`, else the first GPU).
  static FailureOr<std::unique_ptr<Device>> open(MLIRContext *context,
                                                 int index, StringRef target);
  ~Device();

  /// "NVIDIA H100 (NVIDIA 580.65)".
  std::string describe() const;

  /// Runs `program` once on `arguments` (one array per program argument, in
  /// order; bf16 as 16-bit unsigned integers). With `timings`, the program
  /// then runs `repeat` more times, timed on the device.
  FailureOr<RunResults> run(CompiledProgram &program,
                            ArrayRef<NpyArray> arguments,
                            RunTimings *timings = nullptr, unsigned repeat = 0);

  /// Evaluates `program` for `arguments`' shapes and writes what the device
  /// runs (binaries, buffers, launches, outputs) and the arguments
  /// (input_<i>.npy) into `directory`, where sm-plan-runner runs it on a
  /// machine without this project's toolchain.
  static LogicalResult writePlan(CompiledProgram &program,
                                 ArrayRef<NpyArray> arguments,
                                 StringRef directory);

private:
  Device() = default;
  /// Runs a program of a host backend through its CPU runner, which runs
  /// the whole device plan.
  FailureOr<RunResults> runOnHost(CompiledProgram &program,
                                  ArrayRef<NpyArray> arguments);
  /// Checks `arguments` against the host function, evaluates it for their
  /// shapes into `plan` and returns what the device runs.
  static FailureOr<sm_runner::DevicePlan>
  planDevice(CompiledProgram &program, ArrayRef<NpyArray> arguments,
             ExecutionPlan &plan);
  static FailureOr<sm_runner::DevicePlan>
  buildDevicePlan(CompiledProgram &program, const ExecutionPlan &plan,
                  ArrayRef<NpyArray> arguments);
  struct State;
  std::unique_ptr<State> state;
};

/// The .npy type code that carries elements of `type` ("f2" for f16, "u2"
/// for bf16, "i1" for i8, ...), or "" for types the runtime cannot pass.
std::string getNpyTypeCode(Type type);

} // namespace mlir::subgroup_matrix::runtime

#endif // SUBGROUPMATRIX_RUNTIME_RUNTIME_H
