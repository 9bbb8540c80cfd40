// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// (The numbers: the corpus's embedding_rmsnorm_llama_torch.)

// An embedding lookup as torch-mlir writes it: the body reads its token's
// id and gathers the table's element with tensor.extract. The table is an
// argument of the kernel, flat, and the element's index is linearized from
// the id and the column; not a scalar argument too.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%[[IDS:.*]]: memref<8xi64>, %[[OUT:.*]]: memref<128xf32>, %[[TABLE:.*]]: memref<1600xf32>)
// CHECK-SAME: kernel
// CHECK: %[[COLUMN:.*]] = arith.remui %{{.*}}, %c16
// CHECK: %[[ID:.*]] = memref.load %[[IDS]]
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[ROW_START:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[ROW_START]], %c16{{.*}} : index
// CHECK: %[[INDEX:.*]] = arith.addi %[[SCALED]], %[[COLUMN]] : index
// CHECK: %[[V:.*]] = memref.load %[[TABLE]][%[[INDEX]]] : memref<1600xf32>
// CHECK: memref.store %[[V]], %[[OUT]]
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS_ARG:.*]]: memref<8xi64>, %[[TABLE_ARG:.*]]: memref<100x16xf32>)
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[TABLE_ARG]]
// CHECK: gpu.launch_func @kernels::@elementwise_0 {{.*}} args(%[[IDS_ARG]] : memref<8xi64>, %{{.*}} : memref<128xf32>, %[[FLAT]] : memref<1600xf32>)
func.func @embedding(%ids: tensor<8xi64>, %table: tensor<100x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xi64>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A padding generic (an importer's tensor.pad): the input is read only
// inside its bounds, in a branch, which the kernel keeps as a branch.
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%[[OUT:.*]]: memref<100xf32>, %[[IN:.*]]: memref<64xf32>)
// CHECK: %[[VALUE:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: %[[READ:.*]] = memref.load %[[IN]][%{{.*}}] : memref<64xf32>
// CHECK-NEXT: scf.yield %[[READ]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: memref.store %[[VALUE]], %[[OUT]]
func.func @index_padding(%x: tensor<8x8xf32>) -> tensor<10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %e = tensor.empty() : tensor<10x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(h, w) -> (h, w)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<10x10xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 0 : index
    %w = linalg.index 1 : index
    %h0 = arith.cmpi uge, %h, %c1 : index
    %h1 = arith.cmpi ult, %h, %c9 : index
    %w0 = arith.cmpi uge, %w, %c1 : index
    %w1 = arith.cmpi ult, %w, %c9 : index
    %a = arith.andi %h0, %h1 : i1
    %b = arith.andi %w0, %w1 : i1
    %inside = arith.andi %a, %b : i1
    %v = scf.if %inside -> f32 {
      %y = arith.subi %h, %c1 : index
      %x1 = arith.subi %w, %c1 : index
      %read = tensor.extract %x[%y, %x1] : tensor<8x8xf32>
      scf.yield %read : f32
    } else {
      scf.yield %zero : f32
    }
    linalg.yield %v : f32
  } -> tensor<10x10xf32>
  return %r : tensor<10x10xf32>
}
