// A matmul with M, N and K all known only at run time (B stored N x K, as
// a linear layer's weight): one kernel, built once, takes the three sizes
// after its buffers, bounds every copy and store by them, and its launch
// computes the grid from A's and B's sizes. The same binary runs at sizes
// that are and are not multiples of the tiles (1x1x1, 7x90x72, 33x17x5,
// 130x90x100) against the runners' GEMM reference, with C random so
// unwritten elements show; the Vulkan binary records its launch with size
// expressions (run on the H100 by utils/gpu-conformance.sh with --size).
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | sm-opt --sm-lower-to-intel | sm-translate --emit-intel-host-llvm -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 1,1,1 --arg f16:1:random --arg f16:1:random --arg f32:1:random --scalar i32:1 --scalar i32:1 --scalar i32:1 --check gemm:M=1,N=1,K=1,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=ONE
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,1,1 --arg f16:504:random --arg f16:6480:random --arg f32:630:random --scalar i32:7 --scalar i32:90 --scalar i32:72 --check gemm:M=7,N=90,K=72,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=DECODE
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 1,2,1 --arg f16:165:random --arg f16:85:random --arg f32:561:random --scalar i32:33 --scalar i32:17 --scalar i32:5 --check gemm:M=33,N=17,K=5,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=RAGGED
// RUN: sm-intel-host-runner %t.ll --entry matmul_0 --grid 2,5,1 --arg f16:13000:random --arg f16:9000:random --arg f32:11700:random --scalar i32:130 --scalar i32:90 --scalar i32:100 --check gemm:M=130,N=90,K=100,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=LARGE
// A grid one column short leaves columns unwritten, and the check sees it.
// RUN: not sm-intel-host-runner %t.ll --entry matmul_0 --grid 1,5,1 --arg f16:13000:random --arg f16:9000:random --arg f32:11700:random --scalar i32:130 --scalar i32:90 --scalar i32:100 --check gemm:M=130,N=90,K=100,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=SHORT
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | sm-opt --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.intel.spv
// RUN: spirv-val %t.intel.spv
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: sed 's/f16/f32/g' %s | sm-opt --sm-linalg-to-gpu=target=apple-m1 | sm-translate --emit-msl -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry matmul_0 --grid 3,5,1 --arg f32:13000:random --arg f32:9000:random --arg f32:11700:random --scalar i32:130 --scalar i32:90 --scalar i32:100 --check gemm:M=130,N=90,K=100,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=METAL
// RUN: sed 's/f16/f32/g' %s | sm-opt --sm-linalg-to-gpu=target=apple-m1 | sm-translate --emit-msl -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry matmul_0 --grid 1,1,1 --arg f32:21:random --arg f32:15:random --arg f32:35:random --scalar i32:7 --scalar i32:5 --scalar i32:3 --check gemm:M=7,N=5,K=3,A=0,B=1,C=2,b-col-major,acc=2 | FileCheck %s --check-prefix=METAL-TINY

// ONE: check gemm 1x1x1 (C = argument 2, f32): PASSED
// DECODE: check gemm 7x90x72 (C = argument 2, f32): PASSED
// RAGGED: check gemm 33x17x5 (C = argument 2, f32): PASSED
// LARGE: check gemm 130x90x100 (C = argument 2, f32): PASSED
// SHORT: check gemm 130x90x100 (C = argument 2, f32): FAILED
// METAL: check gemm 130x90x100 (C = argument 2, f32): PASSED
// METAL-TINY: check gemm 7x5x3 (C = argument 2, f32): PASSED

func.func @linear(%a: memref<?x?xf16>, %w: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}
