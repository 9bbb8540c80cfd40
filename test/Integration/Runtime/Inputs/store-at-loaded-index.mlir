// A store at a position read from device data (a scatter): what moves
// single elements with kernels (sm-scalar-accesses-to-generics) takes
// constant positions only, so the load stays on the host.
func.func @mark(%x: memref<8xi64>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %i = memref.load %x[%c0] : memref<8xi64>
  %at = arith.index_cast %i : i64 to index
  memref.store %one, %y[%at] : memref<16xf32>
  return
}
