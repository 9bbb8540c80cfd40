// A matmul whose M (the rows of A and C: tokens of a decode step, a dynamic
// batch of rows) is known only at run time: one kernel, built once, takes M
// as its last argument and bounds its rows by it; the launch computes its
// grid from A's leading size. The same binary runs for M = 1, 7, 16, 100
// and 130 (f16 -> f32 on Xe-HPC, f32 on apple-m1) against the runners'
// GEMM reference, with C random so unwritten rows show.
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | FileCheck %s --check-prefix=HOST
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | sm-opt --sm-lower-to-intel | sm-translate --emit-intel-host-llvm -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,1,1 --arg f16:72:random --arg f16:6480:random --arg f32:90:random --scalar i32:1 --check gemm:M=1,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=M1
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,1,1 --arg f16:504:random --arg f16:6480:random --arg f32:630:random --scalar i32:7 --check gemm:M=7,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=M7
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,1,1 --arg f16:1152:random --arg f16:6480:random --arg f32:1440:random --scalar i32:16 --check gemm:M=16,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=M16
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,3,1 --arg f16:9360:random --arg f16:6480:random --arg f32:11700:random --scalar i32:130 --check gemm:M=130,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=M130
// A grid one row short leaves rows unwritten, and the check sees it.
// RUN: not sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,2,1 --arg f16:9360:random --arg f16:6480:random --arg f32:11700:random --scalar i32:130 --check gemm:M=130,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=SHORT
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | sm-opt --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.intel.spv
// RUN: spirv-val %t.intel.spv
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: sed 's/f16/f32/g' %s | sm-opt --sm-linalg-to-gpu=target=apple-m1 | sm-translate --emit-msl -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry matmul_0 --grid 3,4,1 --arg f32:7200:random --arg f32:6480:random --arg f32:9000:random --scalar i32:100 --check gemm:M=100,N=90,K=72,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=METAL

// HOST-LABEL: func.func @decode
// First, that C has as many rows as A (the kernel reads M off A only).
// HOST: %[[C_ROWS:.*]] = memref.dim %arg2, %{{.*}} : memref<?x90xf32>
// HOST: %[[A_ROWS:.*]] = memref.dim %arg0, %{{.*}} : memref<?x72xf16>
// HOST: %[[SAME:.*]] = arith.cmpi eq, %[[A_ROWS]], %[[C_ROWS]] : index
// HOST: cf.assert %[[SAME]], "the shapes of the arrays disagree: dimension 0 of operand 2 (memref<?x90xf32>) and dimension 0 of operand 0 (memref<?x72xf16>) are the same loop of 'linalg.matmul'"
// HOST: %[[M:.*]] = memref.dim %arg0, %{{.*}} : memref<?x72xf16>
// HOST: %[[ROWS:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// HOST: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %[[ROWS]], %{{[a-z0-9_]+}})
// HOST-SAME: %[[M]] : index)

// M1: check gemm 1x90x72 (C = argument 2, f32): PASSED
// M7: check gemm 7x90x72 (C = argument 2, f32): PASSED
// M16: check gemm 16x90x72 (C = argument 2, f32): PASSED
// M130: check gemm 130x90x72 (C = argument 2, f32): PASSED
// SHORT: check gemm 130x90x72 (C = argument 2, f32): FAILED
// METAL: check gemm 100x90x72 (C = argument 2, f32): PASSED

func.func @decode(%a: memref<?x72xf16>, %b: memref<72x90xf16>, %c: memref<?x90xf32>) {
  linalg.matmul ins(%a, %b : memref<?x72xf16>, memref<72x90xf16>) outs(%c : memref<?x90xf32>)
  return
}
