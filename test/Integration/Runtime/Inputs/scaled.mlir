func.func @scaled(%x: memref<64x48xf32>, %scale: f32) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<64x48xf32>) {
  ^bb0(%v: f32):
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  }
  return
}
