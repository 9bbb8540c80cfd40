/*===-- SubgroupMatrix-c/Runtime.h - the runtime's C API -----------*- C
-*-===*\
|*                                                                            *|
|* Compile a program once, open a Vulkan device, run the program on host      *|
|* arrays and read its results: the C face of SubgroupMatrix/Runtime. Every   *|
|* call that can fail reports MLIR diagnostics to a callback and returns a    *|
|* null handle or false; nothing exits.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SUBGROUPMATRIX_C_RUNTIME_H
#define SUBGROUPMATRIX_C_RUNTIME_H

#include "SubgroupMatrix-c/SubgroupMatrix.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SmProgramImpl *SmProgram;
typedef struct SmDeviceImpl *SmDevice;
typedef struct SmRunImpl *SmRun;
typedef struct SmPlanImpl *SmPlan;

/// A host array: NumPy's type code without the byte order ("f2", "f4",
/// "u2" for bf16 bits, "i1", ...), its shape, and its elements in C order.
typedef struct {
  const char *dtype;
  intptr_t rank;
  const int64_t *shape;
  const void *data;
  intptr_t sizeInBytes;
} SmArray;

/// Compiles a copy of `module` for `target` (a linalg program through
/// sm-linalg-to-gpu, then its kernels through sm-lower-to-vulkan). `entry`
/// names the function to run; an empty name picks the only one that
/// launches kernels.
MLIR_CAPI_EXPORTED SmProgram smProgramCompile(MlirModule module,
                                              MlirStringRef target,
                                              MlirStringRef entry,
                                              SmTextCallback diagnostics,
                                              void *userData);
MLIR_CAPI_EXPORTED void smProgramDestroy(SmProgram program);
/// The number of arguments the program's function takes.
MLIR_CAPI_EXPORTED intptr_t smProgramGetNumArguments(SmProgram program);

/// Opens Vulkan device `index` (-1: the kind of device `target` is for).
MLIR_CAPI_EXPORTED SmDevice smDeviceOpen(MlirContext context, int index,
                                         MlirStringRef target,
                                         SmTextCallback diagnostics,
                                         void *userData);
MLIR_CAPI_EXPORTED void smDeviceDestroy(SmDevice device);
/// "NVIDIA H100 (NVIDIA 580.65)", to `callback`.
MLIR_CAPI_EXPORTED void
smDeviceDescribe(SmDevice device, SmTextCallback callback, void *userData);

/// Runs `program` on `arguments` (one per function argument), then
/// `repeat` more times timed on the device. The arrays are copied before
/// the call returns.
MLIR_CAPI_EXPORTED SmRun smDeviceRun(SmDevice device, SmProgram program,
                                     const SmArray *arguments,
                                     intptr_t numArguments, unsigned repeat,
                                     SmTextCallback diagnostics,
                                     void *userData);
MLIR_CAPI_EXPORTED void smRunDestroy(SmRun run);
/// The outputs of a run: the function's results, then each argument the
/// program writes, in argument order. The arrays live as long as `run`.
MLIR_CAPI_EXPORTED intptr_t smRunGetNumOutputs(SmRun run);
/// Output `index`; `argument` gets the argument it was written to, or -1
/// for a result.
MLIR_CAPI_EXPORTED SmArray smRunGetOutput(SmRun run, intptr_t index,
                                          intptr_t *argument);
/// The timed runs' mean time of each step and of the whole program, in
/// microseconds (0 steps when nothing was timed).
MLIR_CAPI_EXPORTED intptr_t smRunGetNumSteps(SmRun run);
MLIR_CAPI_EXPORTED double smRunGetStepMicroseconds(SmRun run, intptr_t index,
                                                   MlirStringRef *name);
MLIR_CAPI_EXPORTED double smRunGetTotalMicroseconds(SmRun run);
/// The timed runs' mean time on the host, from submission to completion
/// (0 where the CPU host runners ran the program).
MLIR_CAPI_EXPORTED double smRunGetHostMicroseconds(SmRun run);

/// A kernel launch of a plan: the kernel (`@module::@kernel`), its grid and
/// workgroup size, and how many arguments it takes.
typedef struct {
  MlirStringRef kernelModule;
  MlirStringRef kernel;
  uint32_t grid[3];
  uint32_t block[3];
  intptr_t numArguments;
} SmLaunch;

/// An argument of a launch: a byte range of one of the plan's buffers, or
/// a scalar. `dtype` is the buffer's element type or the scalar's type, as
/// for SmArray ("i8" for index).
typedef struct {
  bool isBuffer;
  intptr_t buffer;
  int64_t offsetInBytes;
  int64_t sizeInBytes;
  MlirStringRef dtype;
  int64_t integerValue;
  double floatValue;
} SmLaunchArgument;

/// Evaluates the host function `entry` of `module` (a program after
/// sm-linalg-to-gpu; an empty name picks the only function that launches
/// kernels) for arguments of the shapes of `arguments` (their data is not
/// read and may be null), as the runtime does before a run, and returns
/// the launches it makes in order. With `numArguments` < 0, the shapes are
/// those of the arguments' types, which must all be static.
MLIR_CAPI_EXPORTED SmPlan smPlanLaunches(MlirModule module, MlirStringRef entry,
                                         const SmArray *arguments,
                                         intptr_t numArguments,
                                         SmTextCallback diagnostics,
                                         void *userData);
MLIR_CAPI_EXPORTED void smPlanDestroy(SmPlan plan);
MLIR_CAPI_EXPORTED intptr_t smPlanGetNumLaunches(SmPlan plan);
/// Launch `index`; its strings live as long as `plan`.
MLIR_CAPI_EXPORTED SmLaunch smPlanGetLaunch(SmPlan plan, intptr_t index);
MLIR_CAPI_EXPORTED SmLaunchArgument smPlanGetLaunchArgument(SmPlan plan,
                                                            intptr_t launch,
                                                            intptr_t index);

#ifdef __cplusplus
}
#endif

#endif /* SUBGROUPMATRIX_C_RUNTIME_H */
