// RUN: sm-opt %s -split-input-file -verify-diagnostics

func.func @load_wrong_index_count(%buf: memref<?x?xf16>, %i: index, %s: index) {
  // expected-error @+1 {{expected 2 indices for a memref of rank 2, got 1}}
  %a = subgroup_matrix.load %buf[%i] stride %s : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @store_wrong_index_count(%m: !subgroup_matrix.result<16x16xf32>, %buf: memref<?xf32>, %i: index, %s: index) {
  // expected-error @+1 {{expected 1 indices for a memref of rank 1, got 2}}
  subgroup_matrix.store %m, %buf[%i, %i] stride %s : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
  return
}

// -----

func.func @load_rank_zero(%buf: memref<f16>, %s: index) {
  // expected-error @+1 {{expected a memref of rank 1 or more, got 'memref<f16>'}}
  %a = subgroup_matrix.load %buf[] stride %s : memref<f16> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @load_element_type_mismatch(%buf: memref<?xf32>, %i: index, %s: index) {
  // expected-error @+1 {{memref element type 'f32' does not match the storage type 'f16' of matrix component type 'f16' (or a vector of i32 words packing it)}}
  %a = subgroup_matrix.load %buf[%i] stride %s : memref<?xf32> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @load_signed_memref(%buf: memref<?xsi8>, %i: index, %s: index) {
  // expected-error @+1 {{memref element type 'si8' does not match the storage type 'i8' of matrix component type 'si8' (or a vector of i32 words packing it)}}
  %a = subgroup_matrix.load %buf[%i] stride %s : memref<?xsi8> -> !subgroup_matrix.left<16x32xsi8>
  return
}

// -----

func.func @store_element_type_mismatch(%m: !subgroup_matrix.result<16x16xsi32>, %buf: memref<?xi8>, %i: index, %s: index) {
  // expected-error @+1 {{memref element type 'i8' does not match the storage type 'i32' of matrix component type 'si32' (or a vector of i32 words packing it)}}
  subgroup_matrix.store %m, %buf[%i] stride %s : !subgroup_matrix.result<16x16xsi32>, memref<?xi8>
  return
}

// -----

func.func @load_private_memory(%buf: memref<256xf16, #gpu.address_space<private>>, %i: index, %s: index) {
  // expected-error @+1 {{memref memory space #gpu.address_space<private> is not supported: subgroup matrices are loaded from and stored to global or workgroup memory}}
  %a = subgroup_matrix.load %buf[%i] stride %s : memref<256xf16, #gpu.address_space<private>> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @load_non_contiguous(%buf: memref<?x?xf16, strided<[?, 2]>>, %i: index, %s: index) {
  // expected-error @+1 {{memref must be contiguous in its innermost dimension (unit stride)}}
  %a = subgroup_matrix.load %buf[%i, %i] stride %s : memref<?x?xf16, strided<[?, 2]>> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @load_stride_below_columns(%buf: memref<?xf16>, %i: index) {
  %s = arith.constant 8 : index
  // expected-error @+1 {{stride 8 is smaller than the 16 columns of a row-major '!subgroup_matrix.left<16x16xf16>'}}
  %a = subgroup_matrix.load %buf[%i] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @load_stride_below_rows(%buf: memref<?xf16>, %i: index) {
  // A 8x16 matrix needs a column-major stride of at least 8 rows; 16 columns
  // would allow 16 in row-major order.
  %s = arith.constant 4 : index
  // expected-error @+1 {{stride 4 is smaller than the 8 rows of a column-major '!subgroup_matrix.right<8x16xf16>'}}
  %a = subgroup_matrix.load %buf[%i] stride %s col_major : memref<?xf16> -> !subgroup_matrix.right<8x16xf16>
  return
}

// -----

func.func @store_negative_stride(%m: !subgroup_matrix.result<16x16xf32>, %buf: memref<?xf32>, %i: index) {
  %s = arith.constant -16 : index
  // expected-error @+1 {{stride -16 is smaller than the 16 columns of a row-major '!subgroup_matrix.result<16x16xf32>'}}
  subgroup_matrix.store %m, %buf[%i] stride %s : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
  return
}

// -----

func.func @load_out_of_bounds(%buf: memref<16x16xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %s = arith.constant 16 : index
  // Starting at row 1, the last row of the matrix would be row 16.
  // expected-error @+1 {{the matrix reaches element 271 of a memref of 256 elements}}
  %a = subgroup_matrix.load %buf[%c1, %c0] stride %s : memref<16x16xf16> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @splat_scalar_type_mismatch(%x: f16) {
  // expected-error @+1 {{scalar type 'f16' does not match 'f32', the scalar type of component type 'f32'}}
  %m = subgroup_matrix.splat %x : f16 -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @splat_integer_needs_i32(%x: i8) {
  // expected-error @+1 {{operand #0 must be 16-bit float or bfloat16 type or 32-bit float or 32-bit signless integer, but got 'i8'}}
  %m = subgroup_matrix.splat %x : i8 -> !subgroup_matrix.left<16x32xsi8>
  return
}

// -----

func.func @splat_float_for_integer_matrix(%x: f32) {
  // expected-error @+1 {{scalar type 'f32' does not match 'i32', the scalar type of component type 'si32'}}
  %m = subgroup_matrix.splat %x : f32 -> !subgroup_matrix.result<16x16xsi32>
  return
}

// -----

func.func @mma_m_mismatch(%a: !subgroup_matrix.left<8x16xf16>, %b: !subgroup_matrix.right<16x16xf16>, %c: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{M mismatch: the left operand has 8 rows but the result has 16}}
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<8x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @mma_n_mismatch(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<16x8xf16>, %c: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{N mismatch: the right operand has 8 columns but the result has 16}}
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x8xf16> -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @multiply_k_mismatch(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<8x16xf16>) {
  // expected-error @+1 {{K mismatch: the left operand has 16 columns but the right operand has 8 rows}}
  %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<8x16xf16> -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @multiply_component_mismatch(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<16x16xbf16>) {
  // expected-error @+1 {{left and right component types must match, got 'f16' and 'bf16'}}
  %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xbf16> -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @mma_bad_accumulator(%a: !subgroup_matrix.left<16x16xbf16>, %b: !subgroup_matrix.right<16x16xbf16>, %c: !subgroup_matrix.result<16x16xbf16>) {
  // expected-error @+1 {{result component type 'bf16' cannot accumulate 'bf16' products}}
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<16x16xbf16>, !subgroup_matrix.right<16x16xbf16> -> !subgroup_matrix.result<16x16xbf16>
  return
}

// -----

func.func @multiply_signedness_mismatch(%a: !subgroup_matrix.left<16x32xsi8>, %b: !subgroup_matrix.right<32x16xsi8>) {
  // expected-error @+1 {{result component type 'ui32' cannot accumulate 'si8' products}}
  %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xsi8> -> !subgroup_matrix.result<16x16xui32>
  return
}

// -----

func.func @multiply_f16_into_bf16(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<16x16xf16>) {
  // expected-error @+1 {{result component type 'bf16' cannot accumulate 'f16' products}}
  %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xbf16>
  return
}

// -----

func.func @mma_wrong_operand_kind(%a: !subgroup_matrix.right<16x16xf16>, %b: !subgroup_matrix.right<16x16xf16>, %c: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{operand #0 must be left operand (A) of a matrix multiplication, M x K, but got '!subgroup_matrix.right<16x16xf16>'}}
  %d = "subgroup_matrix.mma"(%a, %b, %c) : (!subgroup_matrix.right<16x16xf16>, !subgroup_matrix.right<16x16xf16>, !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @mma_result_differs_from_accumulator(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<16x16xf16>, %c: !subgroup_matrix.result<16x16xf16>) {
  // expected-error @+1 {{all of {acc, result} have same type}}
  %d = "subgroup_matrix.mma"(%a, %b, %c) : (!subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>, !subgroup_matrix.result<16x16xf16>) -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @load_into_non_matrix(%buf: memref<?xf16>, %i: index, %s: index) {
  // expected-error @+1 {{result #0 must be any subgroup matrix, but got 'vector<16xf16>'}}
  %a = "subgroup_matrix.load"(%buf, %i, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (memref<?xf16>, index, index) -> vector<16xf16>
  return
}

// -----

func.func @scalar_type_mismatch(%m: !subgroup_matrix.result<16x16xf32>, %x: f16) {
  // expected-error @+1 {{scalar type 'f16' does not match 'f32', the scalar type of component type 'f32'}}
  %r = subgroup_matrix.scalar_add %m, %x : !subgroup_matrix.result<16x16xf32>, f16
  return
}

// -----

func.func @scalar_integer_needs_i32(%m: !subgroup_matrix.left<16x32xui8>, %x: f32) {
  // expected-error @+1 {{scalar type 'f32' does not match 'i32', the scalar type of component type 'ui8'}}
  %r = subgroup_matrix.scalar_mul %m, %x : !subgroup_matrix.left<16x32xui8>, f32
  return
}

// -----

func.func @scalar_div_integer(%m: !subgroup_matrix.result<16x16xsi32>, %x: i32) {
  // expected-error @+1 {{only float matrices can be divided, got component type 'si32'}}
  %r = subgroup_matrix.scalar_div %m, %x : !subgroup_matrix.result<16x16xsi32>, i32
  return
}

// -----

func.func @scalar_result_type_differs(%m: !subgroup_matrix.result<16x16xf32>, %x: f32) {
  // expected-error @+1 {{all of {matrix, result} have same type}}
  %r = "subgroup_matrix.scalar_sub"(%m, %x) : (!subgroup_matrix.result<16x16xf32>, f32) -> !subgroup_matrix.left<16x16xf32>
  return
}

// -----

// expected-error @+1 {{'subgroup_matrix.target' must be a #subgroup_matrix.target attribute, got "nvidia-h100"}}
module attributes {subgroup_matrix.target = "nvidia-h100"} {}

// -----

// expected-error @+1 {{unknown attribute 'subgroup_matrix.tagret' of the subgroup_matrix dialect}}
module attributes {subgroup_matrix.tagret = #subgroup_matrix.target<"nvidia-h100">} {}

// -----

// expected-error @+1 {{'subgroup_matrix.fusion_group' must be an integer attribute, got "matmul_0"}}
module attributes {subgroup_matrix.fusion_group = "matmul_0"} {}

// -----

// The launch description sm-tile-matmul writes, malformed.
// expected-error @+1 {{'subgroup_matrix.emulate' must be a unit attribute}}
module attributes {subgroup_matrix.emulate = true} {}

// -----

// expected-error @+1 {{'subgroup_matrix.launch' must be a #subgroup_matrix.launch}}
module attributes {subgroup_matrix.launch = {grid = array<i32: 1, 1, 1>, arguments = []}} {}

// -----

// expected-error @+1 {{a launch needs a grid of three counts, not 2}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = ["ceildiv(N,64)", "ceildiv(M,64)"], arguments = [], sizes = ["M", "N"]>} {}

// -----

// expected-error @+1 {{has a grid count of 0, not between 1 and 2147483647}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = [4, 0, 1], arguments = []>} {}

// -----

// expected-error @+1 {{has a grid count 'ceildiv(N,64' is not a size expression (integers and names, '*', ceildiv(X,Y), min(X,Y))}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = ["ceildiv(N,64", 1, 1], arguments = [], sizes = ["N"]>} {}

// -----

// Every size an expression names is one the launch takes.
// expected-error @+1 {{uses the size 'K', which is not one of its sizes}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = ["ceildiv(N,64)", 1, 1], arguments = ["f32:{N*K}:random"], sizes = ["N"]>} {}

// -----

// expected-error @+1 {{has an argument where 'f32:{N:random' has an unclosed '{'}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = [1, 1, 1], arguments = ["f32:{N:random"], sizes = ["N"]>} {}

// -----

// expected-error @+1 {{has a check where 'M=+' is not a size expression}}
module attributes {subgroup_matrix.launch = #subgroup_matrix.launch<grid = [1, 1, 1], arguments = ["f32:4:random"], check = "gemm:M={M=+}">} {}

// -----

// Packed words count in the stride: 1 vector<4xi32> is 8 f16, fewer than the
// 16 columns of a row.
func.func @packed_stride_too_small(%wg: memref<64xvector<4xi32>, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{stride 8 is smaller than the 16 columns of a row-major '!subgroup_matrix.left<16x16xf16>'}}
  %a = subgroup_matrix.load %wg[%c0] stride %c1 : memref<64xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

// 16 rows of 2 words (16 f16) need 32 words.
func.func @packed_out_of_bounds(%wg: memref<30xvector<4xi32>, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{the matrix reaches element 255 of a memref of 240 elements}}
  %a = subgroup_matrix.load %wg[%c0] stride %c2 : memref<30xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @convert_changes_shape(%m: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{converts a 16x16 matrix into a 16x8 one: a conversion keeps the shape}}
  %c = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x8xf16>
  return
}

// -----

func.func @convert_float_to_integer(%m: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{has no conversion from 'f32' to 'si8': float-to-integer rounding and overflow differ between devices; quantize with subgroup_matrix.map}}
  %c = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xsi8>
  return
}

// -----

func.func @map_without_inputs() {
  // expected-error @+1 {{needs at least one input matrix}}
  %r = "subgroup_matrix.map"() ({
  ^bb0(%row: index, %col: index):
    %z = arith.constant 0.0 : f32
    subgroup_matrix.yield %z : f32
  }) : () -> !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @map_of_different_kinds(%a: !subgroup_matrix.result<16x16xf32>, %b: !subgroup_matrix.left<16x16xf32>) {
  // expected-error @+1 {{input 1 is a left 16x16 matrix, input 0 a result 16x16 one: the inputs of a map share one kind and shape}}
  %r = subgroup_matrix.map %a, %b : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.left<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32, %y: f32):
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_of_different_shapes(%a: !subgroup_matrix.result<16x16xf32>, %b: !subgroup_matrix.result<16x8xf32>) {
  // expected-error @+1 {{input 1 is a result 16x8 matrix, input 0 a result 16x16 one}}
  %r = subgroup_matrix.map %a, %b : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x8xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32, %y: f32):
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_changes_kind(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{result is a left 16x16 matrix, the inputs result 16x16 ones: a map keeps the kind and shape (use convert to change the kind)}}
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_block_without_position(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{body must take 3 arguments (row, column and one element of each of 1 inputs), got 1}}
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%x: f32):
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_row_not_index(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{body argument 0 (the row) must be of type index, got 'i32'}}
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: i32, %col: index, %x: f32):
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_element_of_the_wrong_type(%a: !subgroup_matrix.result<16x16xsi32>) {
  // expected-error @+1 {{body argument 2 holds an element of input 0 and must be of its storage type 'i32', got 'si32'}}
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xsi32> {
  ^bb0(%row: index, %col: index, %x: si32):
    %z = arith.constant 0 : i32
    subgroup_matrix.yield %z : i32
  }
  return
}

// -----

func.func @map_yields_the_wrong_type(%a: !subgroup_matrix.result<16x16xf32>) {
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16> {
  ^bb0(%row: index, %col: index, %x: f32):
    // expected-error @+1 {{yields 'f32', but the map's result elements are of storage type 'f16'}}
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_body_with_side_effects(%a: !subgroup_matrix.result<16x16xf32>, %buf: memref<16xf32>) {
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    // expected-error @+1 {{cannot be part of a subgroup_matrix.map body: the body may only compute with arith and math ops}}
    memref.store %x, %buf[%row] : memref<16xf32>
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @map_body_with_a_vector(%a: !subgroup_matrix.result<16x16xf32>) {
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    // expected-error @+1 {{cannot be part of a subgroup_matrix.map body: it uses 'vector<4xf32>', and the body computes one scalar element at a time}}
    %v = arith.constant dense<1.0> : vector<4xf32>
    %w = arith.addf %v, %v : vector<4xf32>
    subgroup_matrix.yield %x : f32
  }
  return
}

// -----

func.func @yield_outside_a_map(%x: f32) {
  // expected-error @+1 {{expects parent op to be one of 'subgroup_matrix.map, subgroup_matrix.decode_load'}}
  subgroup_matrix.yield %x : f32
}

// -----

func.func @reduce_multiplies_8bit(%a: !subgroup_matrix.result<16x16xsi8>) {
  // expected-error @+1 {{cannot reduce 'si8' elements with mul: integer products are defined on 32-bit components only (8-bit ones overflow after two factors)}}
  %r = subgroup_matrix.reduce mul rows %a : !subgroup_matrix.result<16x16xsi8>
  return
}

// -----

func.func @reduce_integers_fastmath(%a: !subgroup_matrix.result<16x16xsi32>) {
  // expected-error @+1 {{has fastmath flags, which apply to float elements only, on 'si32' elements}}
  %r = subgroup_matrix.reduce max rows %a fastmath<nnan> : !subgroup_matrix.result<16x16xsi32>
  return
}

// -----

func.func @reduce_unknown_kind(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [add, mul, max, min]}}
  %r = subgroup_matrix.reduce avg rows %a : !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @reduce_changes_type(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{reduces over rows, whose result has the operand's type '!subgroup_matrix.result<16x16xf32>', not '!subgroup_matrix.result<16x16xf16>'}}
  %r = "subgroup_matrix.reduce"(%a) {kind = 0 : i32, dimensions = 0 : i32} : (!subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf16>
  return
}

// -----

func.func @reduce_rows_into_smaller(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{reduces over all, whose result has the operand's type '!subgroup_matrix.result<16x16xf32>', not '!subgroup_matrix.result<8x8xf32>'}}
  %r = subgroup_matrix.reduce add all %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<8x8xf32>
  return
}

// -----

func.func @reduce_blocks_of_odd_rows(%a: !subgroup_matrix.result<24x8xf32>, %b: !subgroup_matrix.result<9x16xf32>) {
  // expected-error @+1 {{reduces 2x2 blocks of a matrix of 9 rows and 16 columns: both must be even}}
  %r = subgroup_matrix.reduce max blocks2x2 %b : !subgroup_matrix.result<9x16xf32> -> !subgroup_matrix.result<4x8xf32>
  return
}

// -----

func.func @reduce_blocks_keeps_shape(%a: !subgroup_matrix.result<16x16xf32>) {
  // expected-error @+1 {{reduces 2x2 blocks of '!subgroup_matrix.result<16x16xf32>' into '!subgroup_matrix.result<8x8xf32>', not '!subgroup_matrix.result<16x16xf32>'}}
  %r = subgroup_matrix.reduce max blocks2x2 %a : !subgroup_matrix.result<16x16xf32>
  return
}

// -----

func.func @reduce_blocks_changes_kind(%a: !subgroup_matrix.result<16x16xf16>) {
  // expected-error @+1 {{reduces 2x2 blocks of '!subgroup_matrix.result<16x16xf16>' into '!subgroup_matrix.result<8x8xf16>', not '!subgroup_matrix.left<8x8xf16>'}}
  %r = subgroup_matrix.reduce add blocks2x2 %a : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.left<8x8xf16>
  return
}

// -----

func.func @load_one_bound(%buf: memref<?xf16>, %i: index, %s: index) {
  // expected-error @+1 {{expected 2 bounds (rows, then columns), got 1}}
  %a = subgroup_matrix.load %buf[%i] stride %s bounds [%i] : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

func.func @store_three_bounds(%m: !subgroup_matrix.result<16x16xf32>, %buf: memref<?xf32>, %i: index, %s: index) {
  // expected-error @+1 {{expected 2 bounds (rows, then columns), got 3}}
  subgroup_matrix.store %m, %buf[%i] stride %s bounds [%i, %i, %i] : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
  return
}

// -----

// Outside the bounds each element is read alone, which packed words cannot.
func.func @bounded_load_of_words(%buf: memref<512xvector<4xi32>>, %i: index, %s: index) {
  // expected-error @+1 {{bounds need a memref of the storage type 'f16', not of packed words 'vector<4xi32>'}}
  %a = subgroup_matrix.load %buf[%i] stride %s bounds [%i, %i] : memref<512xvector<4xi32>> -> !subgroup_matrix.left<16x16xf16>
  return
}

// -----

// Bounds say how much of the matrix is in memory: the static check that the
// whole matrix fits leaves a bounded load alone.
func.func @bounded_load_past_end(%buf: memref<256xf16>, %r: index) -> !subgroup_matrix.left<16x16xf16> {
  %c200 = arith.constant 200 : index
  %c16 = arith.constant 16 : index
  %a = subgroup_matrix.load %buf[%c200] stride %c16 bounds [%r, %c16] : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
  return %a : !subgroup_matrix.left<16x16xf16>
}

// -----

func.func @unbounded_load_past_end(%buf: memref<256xf16>) -> !subgroup_matrix.left<16x16xf16> {
  %c200 = arith.constant 200 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{the matrix reaches element 455 of a memref of 256 elements}}
  %a = subgroup_matrix.load %buf[%c200] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
  return %a : !subgroup_matrix.left<16x16xf16>
}

// -----

func.func @decode_load_without_position(%n: index) -> !subgroup_matrix.right<16x16xf16> {
  // expected-error @+1 {{body must take the element's tensor row and column (two index arguments)}}
  %b = subgroup_matrix.decode_load [%n, %n] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index):
    %zero = arith.constant 0.0 : f16
    subgroup_matrix.yield %zero : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @decode_load_yields_wrong_type(%n: index) -> !subgroup_matrix.left<16x16xsi8> {
  %b = subgroup_matrix.decode_load [%n, %n] within [%n, %n] : !subgroup_matrix.left<16x16xsi8> {
  ^bb0(%row: index, %col: index):
    %zero = arith.constant 0.0 : f16
    // expected-error @+1 {{yields 'f16', but the decoded matrix's elements are of storage type 'i8'}}
    subgroup_matrix.yield %zero : f16
  }
  return %b : !subgroup_matrix.left<16x16xsi8>
}

// -----

// A decode body only reads: the implementation may run it any number of
// times for an element.
func.func @decode_load_writes(%buf: memref<?xf16>, %n: index) -> !subgroup_matrix.right<16x16xf16> {
  %b = subgroup_matrix.decode_load [%n, %n] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    %v = memref.load %buf[%row] : memref<?xf16>
    // expected-error @+1 {{cannot be part of a subgroup_matrix.decode_load body: the body computes with arith and math ops and reads global memory with memref.load}}
    memref.store %v, %buf[%col] : memref<?xf16>
    subgroup_matrix.yield %v : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @decode_load_from_workgroup_memory(%tile: memref<256xf16, #gpu.address_space<workgroup>>, %n: index) -> !subgroup_matrix.right<16x16xf16> {
  %b = subgroup_matrix.decode_load [%n, %n] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    // expected-error @+1 {{cannot be part of a subgroup_matrix.decode_load body: the body computes with arith and math ops and reads global memory with memref.load}}
    %v = memref.load %tile[%row] : memref<256xf16, #gpu.address_space<workgroup>>
    subgroup_matrix.yield %v : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @decode_load_of_vectors(%buf: memref<?xvector<2xf16>>, %n: index) -> !subgroup_matrix.right<16x16xf16> {
  %b = subgroup_matrix.decode_load [%n, %n] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    // expected-error @+1 {{cannot be part of a subgroup_matrix.decode_load body: it uses 'vector<2xf16>', and the body decodes one scalar element at a time}}
    %v = memref.load %buf[%row] : memref<?xvector<2xf16>>
    %e = arith.constant 0.0 : f16
    subgroup_matrix.yield %e : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @mma_scope_mismatch(%a: !subgroup_matrix.left<32x16xf16, workgroup>, %b: !subgroup_matrix.right<16x16xf16>, %c: !subgroup_matrix.result<32x16xf32, workgroup>) {
  // expected-error @+1 {{operands and result must share one scope, got workgroup, subgroup and workgroup: a subgroup cannot multiply a workgroup's matrices}}
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<32x16xf16, workgroup>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<32x16xf32, workgroup>
  return
}

// -----

func.func @convert_scope_mismatch(%a: !subgroup_matrix.result<32x16xf32, workgroup>) {
  // expected-error @+1 {{converts a workgroup matrix into a subgroup one: a conversion keeps the scope}}
  %b = subgroup_matrix.convert %a : !subgroup_matrix.result<32x16xf32, workgroup> -> !subgroup_matrix.left<32x16xf16>
  return
}

// -----

func.func @map_scope_mismatch(%a: !subgroup_matrix.result<32x16xf32, workgroup>, %b: !subgroup_matrix.result<32x16xf32>) {
  // expected-error @+1 {{input 1 is a result 32x16 matrix, input 0 a result 32x16 workgroup one: the inputs of a map share one kind and shape}}
  %c = subgroup_matrix.map %a, %b : !subgroup_matrix.result<32x16xf32, workgroup>, !subgroup_matrix.result<32x16xf32> -> !subgroup_matrix.result<32x16xf32, workgroup> {
  ^bb0(%row: index, %col: index, %x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    subgroup_matrix.yield %s : f32
  }
  return
}

// -----

func.func @reduce_blocks_scope(%a: !subgroup_matrix.result<64x64xf32, workgroup>) {
  // expected-error @+1 {{reduces 2x2 blocks of '!subgroup_matrix.result<64x64xf32, workgroup>' into '!subgroup_matrix.result<32x32xf32, workgroup>', not '!subgroup_matrix.result<32x32xf32>'}}
  %b = subgroup_matrix.reduce max blocks2x2 %a : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.result<32x32xf32>
  return
}
