/*===- run_linear.c - a downstream C program on the runtime ---------------===*\
|*                                                                            *|
|* Compiles a TOSA linear layer with ReLU through the installed C API, runs  *|
|* it on lavapipe and checks every element of its result against a double-  *|
|* precision reference computed here.                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "SubgroupMatrix-c/Runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 24, K = 40, N = 32 };

static const char *program =
    "func.func @linear(%x: tensor<1x24x40xf32>, %w: tensor<1x40x32xf32>,\n"
    "                  %b: tensor<1x1x32xf32>) -> tensor<1x24x32xf32> {\n"
    "  %zp = \"tosa.const\"() <{values = dense<0.0> : tensor<1xf32>}>\n"
    "      : () -> tensor<1xf32>\n"
    "  %p = tosa.matmul %x, %w, %zp, %zp : (tensor<1x24x40xf32>,\n"
    "      tensor<1x40x32xf32>, tensor<1xf32>, tensor<1xf32>)\n"
    "      -> tensor<1x24x32xf32>\n"
    "  %s = tosa.add %p, %b : (tensor<1x24x32xf32>, tensor<1x1x32xf32>)\n"
    "      -> tensor<1x24x32xf32>\n"
    "  %y = tosa.clamp %s {min_val = 0.0 : f32, max_val = 3.4e38 : f32}\n"
    "      : (tensor<1x24x32xf32>) -> tensor<1x24x32xf32>\n"
    "  return %y : tensor<1x24x32xf32>\n"
    "}\n";

static MlirStringRef stringRef(const char *text) {
  return mlirStringRefCreate(text, strlen(text));
}

static void printDiagnostic(MlirStringRef text, void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: %.*s\n", (int)text.length, text.data);
}

static float uniform(void) { return (float)rand() / RAND_MAX * 2.0f - 1.0f; }

int main(void) {
  MlirContext context = smContextCreate();
  MlirModule module =
      smModuleParse(context, stringRef(program), printDiagnostic, NULL);
  if (mlirModuleIsNull(module))
    return 1;
  MlirStringRef target = stringRef("cpu-lavapipe");
  SmProgram compiled =
      smProgramCompile(module, target, stringRef(""), printDiagnostic, NULL);
  if (!compiled)
    return 1;
  SmDevice device = smDeviceOpen(context, -1, target, printDiagnostic, NULL);
  if (!device)
    return 1;

  static float x[M * K], w[K * N], b[N];
  srand(11);
  for (int i = 0; i < M * K; ++i)
    x[i] = uniform();
  for (int i = 0; i < K * N; ++i)
    w[i] = uniform();
  for (int i = 0; i < N; ++i)
    b[i] = uniform();
  int64_t xShape[] = {1, M, K}, wShape[] = {1, K, N}, bShape[] = {1, 1, N};
  SmArray arguments[] = {{"f4", 3, xShape, x, sizeof(x)},
                         {"f4", 3, wShape, w, sizeof(w)},
                         {"f4", 3, bShape, b, sizeof(b)}};
  SmRun run =
      smDeviceRun(device, compiled, arguments, 3, 0, printDiagnostic, NULL);
  if (!run)
    return 1;
  intptr_t argument = 0;
  SmArray output = smRunGetOutput(run, 0, &argument);
  printf("result: %s, %ldx%ldx%ld\n", output.dtype, (long)output.shape[0],
         (long)output.shape[1], (long)output.shape[2]);
  const float *y = (const float *)output.data;
  int mismatches = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = b[j];
      for (int k = 0; k < K; ++k)
        want += (double)x[i * K + k] * w[k * N + j];
      want = want > 0 ? want : 0;
      if (fabs(y[i * N + j] - want) > 1e-5 * fmax(1.0, fabs(want)))
        ++mismatches;
    }
  printf("%d elements, %d mismatches\n", M * N, mismatches);

  smRunDestroy(run);
  smDeviceDestroy(device);
  smProgramDestroy(compiled);
  smModuleDestroy(module);
  smContextDestroy(context);
  return mismatches != 0;
}
