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
