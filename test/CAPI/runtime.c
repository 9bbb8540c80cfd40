/*===- runtime.c - the runtime's C API, from C ----------------------------===*\
|*                                                                            *|
|* Compiles a matrix product for lavapipe, runs it on host arrays, checks    *|
|* every element of the written argument against a double-precision          *|
|* reference, and shows that a bad call is a diagnostic, not an exit.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "SubgroupMatrix-c/Runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program =
    "func.func @accumulate(%a: memref<32x64xf16>, %b: memref<64x16xf16>,\n"
    "                      %c: memref<32x16xf32>) {\n"
    "  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x16xf16>)\n"
    "                outs(%c : memref<32x16xf32>)\n"
    "  return\n"
    "}\n";

static MlirStringRef stringRef(const char *text) {
  return mlirStringRefCreate(text, strlen(text));
}

static void printDiagnostic(MlirStringRef text, void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: %.*s\n", (int)text.length, text.data);
}

/* The f16 bits of small integers divided by 8 (exact in f16). */
static uint16_t halfOf(int eighths) {
  if (eighths == 0)
    return 0;
  float value = eighths / 8.0f;
  uint16_t sign = value < 0 ? 0x8000 : 0;
  value = fabsf(value);
  int exponent = 0;
  while (value >= 2.0f) {
    value /= 2.0f;
    ++exponent;
  }
  while (value < 1.0f) {
    value *= 2.0f;
    --exponent;
  }
  uint16_t mantissa = (uint16_t)((value - 1.0f) * 1024.0f + 0.5f);
  return sign | (uint16_t)((exponent + 15) << 10) | mantissa;
}

int main(void) {
  MlirContext context = smContextCreate();
  MlirModule module =
      smModuleParse(context, stringRef(program), printDiagnostic, NULL);
  MlirStringRef target = stringRef("cpu-lavapipe");
  SmProgram compiled =
      smProgramCompile(module, target, stringRef(""), printDiagnostic, NULL);
  if (!compiled)
    return 1;
  // CHECK: arguments: 3
  printf("arguments: %ld\n", (long)smProgramGetNumArguments(compiled));
  SmDevice device = smDeviceOpen(context, -1, target, printDiagnostic, NULL);
  if (!device)
    return 1;

  enum { M = 32, N = 16, K = 64 };
  static uint16_t a[M * K], b[K * N];
  static float c[M * N];
  int aValues[M * K], bValues[K * N];
  srand(7);
  for (int i = 0; i < M * K; ++i)
    a[i] = halfOf(aValues[i] = rand() % 17 - 8);
  for (int i = 0; i < K * N; ++i)
    b[i] = halfOf(bValues[i] = rand() % 17 - 8);
  for (int i = 0; i < M * N; ++i)
    c[i] = (float)(i % 7) - 3.0f;
  int64_t aShape[] = {M, K}, bShape[] = {K, N}, cShape[] = {M, N};
  SmArray arguments[] = {{"f2", 2, aShape, a, sizeof(a)},
                         {"f2", 2, bShape, b, sizeof(b)},
                         {"f4", 2, cShape, c, sizeof(c)}};
  SmRun run =
      smDeviceRun(device, compiled, arguments, 3, 2, printDiagnostic, NULL);
  if (!run)
    return 1;
  // CHECK: outputs: 1
  printf("outputs: %ld\n", (long)smRunGetNumOutputs(run));
  intptr_t argument = -2;
  SmArray output = smRunGetOutput(run, 0, &argument);
  // CHECK: output 0: argument 2, f4, 32x16, 2048 bytes
  printf("output 0: argument %ld, %s, %ldx%ld, %ld bytes\n", (long)argument,
         output.dtype, (long)output.shape[0], (long)output.shape[1],
         (long)output.sizeInBytes);
  const float *result = (const float *)output.data;
  int mismatches = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = c[i * N + j];
      for (int k = 0; k < K; ++k)
        want += (aValues[i * K + k] / 8.0) * (bValues[k * N + j] / 8.0);
      if (fabs(result[i * N + j] - want) > 1e-3 * fmax(1.0, fabs(want)))
        ++mismatches;
    }
  // CHECK: 512 elements, 0 mismatches
  printf("%d elements, %d mismatches\n", M * N, mismatches);
  // CHECK: timed steps: 1, @kernels::@matmul_0
  MlirStringRef name;
  double micros = smRunGetStepMicroseconds(run, 0, &name);
  printf("timed steps: %ld, %.*s\n", (long)smRunGetNumSteps(run),
         (int)name.length, name.data);
  if (!(micros > 0) || !(smRunGetTotalMicroseconds(run) > 0))
    printf("no time measured\n");
  smRunDestroy(run);

  // A bad call: its diagnostic comes to the callback and the call returns
  // null; the process goes on.
  // CHECK: diagnostic: {{.*}}error: 'accumulate' takes 3 arguments, but 2
  // CHECK: bad call returned null
  SmRun bad =
      smDeviceRun(device, compiled, arguments, 2, 0, printDiagnostic, NULL);
  printf("bad call returned %s\n", bad ? "a run" : "null");
  // CHECK-NOT: no time measured

  // The launches the host function makes, planned without running: the
  // product's kernel on the three arguments, byte for byte.
  MlirLogicalResult lowered =
      smRunPipeline(module, stringRef("sm-linalg-to-gpu{target=cpu-lavapipe}"),
                    printDiagnostic, NULL);
  if (mlirLogicalResultIsFailure(lowered))
    return 1;
  SmPlan plan =
      smPlanLaunches(module, stringRef(""), NULL, -1, printDiagnostic, NULL);
  if (!plan)
    return 1;
  // CHECK: launches: 1
  printf("launches: %ld\n", (long)smPlanGetNumLaunches(plan));
  SmLaunch launch = smPlanGetLaunch(plan, 0);
  // CHECK: @kernels::@matmul_0 grid {{[0-9]+x[0-9]+}}x1, 3 arguments
  printf("@%.*s::@%.*s grid %ux%ux%u, %ld arguments\n",
         (int)launch.kernelModule.length, launch.kernelModule.data,
         (int)launch.kernel.length, launch.kernel.data, launch.grid[0],
         launch.grid[1], launch.grid[2], (long)launch.numArguments);
  // CHECK: buffer 0: f2, bytes 0..4096
  // CHECK: buffer 1: f2, bytes 0..2048
  // CHECK: buffer 2: f4, bytes 0..2048
  for (intptr_t i = 0; i < launch.numArguments; ++i) {
    SmLaunchArgument value = smPlanGetLaunchArgument(plan, 0, i);
    printf("buffer %ld: %.*s, bytes %ld..%ld\n", (long)value.buffer,
           (int)value.dtype.length, value.dtype.data, (long)value.offsetInBytes,
           (long)(value.offsetInBytes + value.sizeInBytes));
  }
  smPlanDestroy(plan);

  smDeviceDestroy(device);
  smProgramDestroy(compiled);
  smModuleDestroy(module);
  smContextDestroy(context);
  return 0;
}
