// A kernel that writes one element past the end of its buffer: the
// runtime's guard bytes catch it.
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {
      subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
    gpu.func @store_past_end(%buf: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 1, 1, 1>} {
      %one = arith.constant 1.0 : f32
      memref.store %one, %buf[%n] : memref<?xf32>
      gpu.return
    }
  }
  func.func @main(%x: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    gpu.launch_func @kernels::@store_past_end blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%x : memref<?xf32>, %n : index)
    return
  }
}
