// A graph compiler's matmul: C (1024x1024, f32) += A (1024x512, f16) *
// B (512x1024, f16), on row-major memrefs. `sm-opt --sm-tile-matmul` turns it
// into a tiled subgroup-matrix kernel and its launch for any target.
func.func @matmul(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                  %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}
