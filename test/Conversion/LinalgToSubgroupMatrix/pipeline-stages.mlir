// sm-linalg-to-gpu is its stages, in this order, each shown by name.
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 -mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// Running the stages by hand gives the same program as the pipeline.
// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 tile-m=64 attention-subgroups=2" -o %t.pipeline.mlir
// RUN: sm-opt %s --pass-pipeline="builtin.module(inline{default-pipeline=}, sm-raise-softmax, sm-fuse-elementwise, sm-fold-batch-loops, sm-normalize-contractions, sm-bufferize-program, sm-insert-shape-checks, sm-unit-convolutions-to-contractions, sm-apply-precision-policy, sm-plan-kernels{target=nvidia-h100 tile-m=64 attention-subgroups=2}, sm-attention-to-kernels{target=nvidia-h100}, sm-contractions-to-kernels{target=nvidia-h100}, sm-elementwise-to-kernels{target=nvidia-h100})" -o %t.stages.mlir
// RUN: diff %t.pipeline.mlir %t.stages.mlir

// CHECK: IR Dump After Inliner (inline)
// CHECK: IR Dump After RaiseSoftmaxPass (sm-raise-softmax)
// CHECK: IR Dump After FuseElementwisePass (sm-fuse-elementwise)
// CHECK: IR Dump After FoldBatchLoopsPass (sm-fold-batch-loops)
// CHECK: IR Dump After NormalizeContractionsPass (sm-normalize-contractions)
// CHECK: IR Dump After BufferizeProgramPass (sm-bufferize-program)
// CHECK: IR Dump After InsertShapeChecksPass (sm-insert-shape-checks)
// CHECK: IR Dump After UnitConvolutionsToContractionsPass (sm-unit-convolutions-to-contractions)
// CHECK: IR Dump After ApplyPrecisionPolicyPass (sm-apply-precision-policy)
// CHECK: IR Dump After PlanKernelsPass (sm-plan-kernels)
// CHECK: IR Dump After AttentionToKernelsPass (sm-attention-to-kernels)
// CHECK: IR Dump After ContractionsToKernelsPass (sm-contractions-to-kernels)
// CHECK: IR Dump After ElementwiseToKernelsPass (sm-elementwise-to-kernels)
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer(%x: tensor<?x256xf16>, %w: tensor<256x512xf16>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>)
                      outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x512xf32>) outs(%e : tensor<?x512xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x512xf32>
  %s = tensor.empty(%m) : tensor<?x512xf32>
  %p = linalg.softmax dimension(1) ins(%y : tensor<?x512xf32>) outs(%s : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %p : tensor<?x512xf32>
}
