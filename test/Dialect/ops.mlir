// RUN: sm-opt %s | sm-opt | FileCheck %s
// RUN: sm-opt %s --mlir-print-op-generic | sm-opt | FileCheck %s
// RUN: sm-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// A tile at a ragged edge: only its first rows and columns are in memory.
// CHECK-LABEL: func.func @bounded_load_store
// CHECK-SAME: (%[[BUF:.*]]: memref<2560xf16>, %[[OFF:.*]]: index, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK: %[[S:.*]] = arith.constant 40 : index
// CHECK: %[[A:.*]] = subgroup_matrix.load %[[BUF]][%[[OFF]]] stride %[[S]] bounds[%[[R]], %[[C]]] : memref<2560xf16> -> !subgroup_matrix.result<16x16xf16>
// CHECK: %[[B:.*]] = subgroup_matrix.load %[[BUF]][%[[OFF]]] stride %[[S]] col_major bounds[%[[C]], %[[R]]] : memref<2560xf16> -> !subgroup_matrix.left<16x16xf16>
// CHECK: subgroup_matrix.store %[[A]], %[[BUF]][%[[OFF]]] stride %[[S]] bounds[%[[R]], %[[C]]] : !subgroup_matrix.result<16x16xf16>, memref<2560xf16>
// CHECK: subgroup_matrix.store %[[B]], %[[BUF]][%[[OFF]]] stride %[[S]] col_major bounds[%[[C]], %[[R]]] : !subgroup_matrix.left<16x16xf16>, memref<2560xf16>
// GENERIC-LABEL: sym_name = "bounded_load_store"
// GENERIC: "subgroup_matrix.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 2>}>
// GENERIC: "subgroup_matrix.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{col_major, operandSegmentSizes = array<i32: 1, 1, 1, 2>}>
// GENERIC: "subgroup_matrix.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 2>}>
func.func @bounded_load_store(%buf: memref<2560xf16>, %off: index, %r: index, %c: index) {
  %s = arith.constant 40 : index
  %a = subgroup_matrix.load %buf[%off] stride %s bounds [%r, %c] : memref<2560xf16> -> !subgroup_matrix.result<16x16xf16>
  %b = subgroup_matrix.load %buf[%off] stride %s col_major bounds [%c, %r] : memref<2560xf16> -> !subgroup_matrix.left<16x16xf16>
  subgroup_matrix.store %a, %buf[%off] stride %s bounds [%r, %c] : !subgroup_matrix.result<16x16xf16>, memref<2560xf16>
  subgroup_matrix.store %b, %buf[%off] stride %s col_major bounds [%c, %r] : !subgroup_matrix.left<16x16xf16>, memref<2560xf16>
  return
}

// CHECK-LABEL: func.func @load_store_row_and_column_major
// CHECK-SAME: (%[[BUF:.*]]: memref<?x?xf16>, %[[WG:.*]]: memref<4096xf16, #gpu.address_space<workgroup>>, %[[OUT:.*]]: memref<?x?xf16, #gpu.address_space<global>>, %[[I:.*]]: index, %[[S:.*]]: index)
func.func @load_store_row_and_column_major(
    %buf: memref<?x?xf16>, %wg: memref<4096xf16, #gpu.address_space<workgroup>>,
    %out: memref<?x?xf16, #gpu.address_space<global>>, %i: index, %s: index) {
  // CHECK: %[[A:.*]] = subgroup_matrix.load %[[BUF]][%[[I]], %[[I]]] stride %[[S]] : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
  %a = subgroup_matrix.load %buf[%i, %i] stride %s : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
  // CHECK: %[[B:.*]] = subgroup_matrix.load %[[WG]][%[[I]]] stride %[[S]] col_major : memref<4096xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x8xf16>
  %b = subgroup_matrix.load %wg[%i] stride %s col_major : memref<4096xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x8xf16>
  // CHECK: %[[C:.*]] = subgroup_matrix.load %[[BUF]][%[[I]], %[[I]]] stride %[[S]] : memref<?x?xf16> -> !subgroup_matrix.result<16x8xf16>
  %c = subgroup_matrix.load %buf[%i, %i] stride %s : memref<?x?xf16> -> !subgroup_matrix.result<16x8xf16>
  // CHECK: subgroup_matrix.store %[[A]], %[[WG]][%[[I]]] stride %[[S]] col_major : !subgroup_matrix.left<16x16xf16>, memref<4096xf16, #gpu.address_space<workgroup>>
  subgroup_matrix.store %a, %wg[%i] stride %s col_major : !subgroup_matrix.left<16x16xf16>, memref<4096xf16, #gpu.address_space<workgroup>>
  // CHECK: subgroup_matrix.store %[[B]], %[[OUT]][%[[I]], %[[I]]] stride %[[S]] : !subgroup_matrix.right<16x8xf16>, memref<?x?xf16, #gpu.address_space<global>>
  subgroup_matrix.store %b, %out[%i, %i] stride %s : !subgroup_matrix.right<16x8xf16>, memref<?x?xf16, #gpu.address_space<global>>
  // CHECK: subgroup_matrix.store %[[C]], %[[BUF]][%[[I]], %[[I]]] stride %[[S]] : !subgroup_matrix.result<16x8xf16>, memref<?x?xf16>
  subgroup_matrix.store %c, %buf[%i, %i] stride %s : !subgroup_matrix.result<16x8xf16>, memref<?x?xf16>
  return
}

// CHECK-LABEL: func.func @every_component_type
func.func @every_component_type(%f16buf: memref<?xf16>, %bf16buf: memref<?xbf16>,
    %f32buf: memref<?xf32>, %i8buf: memref<?xi8>, %i32buf: memref<?xi32>, %s: index) {
  %c0 = arith.constant 0 : index
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
  %0 = subgroup_matrix.load %f16buf[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xbf16> -> !subgroup_matrix.right<16x16xbf16>
  %1 = subgroup_matrix.load %bf16buf[%c0] stride %s : memref<?xbf16> -> !subgroup_matrix.right<16x16xbf16>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
  %2 = subgroup_matrix.load %f32buf[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xi8> -> !subgroup_matrix.left<16x32xsi8>
  %3 = subgroup_matrix.load %i8buf[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.left<16x32xsi8>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xi8> -> !subgroup_matrix.right<32x16xui8>
  %4 = subgroup_matrix.load %i8buf[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.right<32x16xui8>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xi32> -> !subgroup_matrix.result<16x16xsi32>
  %5 = subgroup_matrix.load %i32buf[%c0] stride %s : memref<?xi32> -> !subgroup_matrix.result<16x16xsi32>
  // CHECK: subgroup_matrix.load %{{.*}} : memref<?xi32> -> !subgroup_matrix.result<16x16xui32>
  %6 = subgroup_matrix.load %i32buf[%c0] stride %s : memref<?xi32> -> !subgroup_matrix.result<16x16xui32>
  return
}

// CHECK-LABEL: func.func @splat_and_multiplication
func.func @splat_and_multiplication(%a: !subgroup_matrix.left<16x16xf16>,
    %b: !subgroup_matrix.right<16x16xf16>, %x: f32, %h: f16) {
  // CHECK: %[[ACC:.*]] = subgroup_matrix.splat %{{.*}} : f32 -> !subgroup_matrix.result<16x16xf32>
  %acc = subgroup_matrix.splat %x : f32 -> !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.splat %{{.*}} : f16 -> !subgroup_matrix.left<16x16xf16>
  %sa = subgroup_matrix.splat %h : f16 -> !subgroup_matrix.left<16x16xf16>
  // CHECK: subgroup_matrix.splat %{{.*}} : f16 -> !subgroup_matrix.right<16x16xf16>
  %sb = subgroup_matrix.splat %h : f16 -> !subgroup_matrix.right<16x16xf16>
  // CHECK: %[[D:.*]] = subgroup_matrix.mma %{{.*}}, %{{.*}}, %[[ACC]] : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  %d = subgroup_matrix.mma %a, %b, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.multiply %{{.*}}, %{{.*}} : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf16>
  %e = subgroup_matrix.multiply %sa, %sb : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf16>
  return
}

// CHECK-LABEL: func.func @integer_multiplication
func.func @integer_multiplication(%a: !subgroup_matrix.left<16x32xsi8>,
    %b: !subgroup_matrix.right<32x8xsi8>, %ua: !subgroup_matrix.left<16x32xui8>,
    %ub: !subgroup_matrix.right<32x16xui8>, %v: i32) {
  // CHECK: subgroup_matrix.splat %{{.*}} : i32 -> !subgroup_matrix.result<16x8xsi32>
  %acc = subgroup_matrix.splat %v : i32 -> !subgroup_matrix.result<16x8xsi32>
  // CHECK: subgroup_matrix.mma {{.*}} : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x8xsi8> -> !subgroup_matrix.result<16x8xsi32>
  %d = subgroup_matrix.mma %a, %b, %acc : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x8xsi8> -> !subgroup_matrix.result<16x8xsi32>
  // CHECK: subgroup_matrix.multiply {{.*}} : !subgroup_matrix.left<16x32xui8>, !subgroup_matrix.right<32x16xui8> -> !subgroup_matrix.result<16x16xui32>
  %e = subgroup_matrix.multiply %ua, %ub : !subgroup_matrix.left<16x32xui8>, !subgroup_matrix.right<32x16xui8> -> !subgroup_matrix.result<16x16xui32>
  return
}

// CHECK-LABEL: func.func @scalar_ops
func.func @scalar_ops(%m: !subgroup_matrix.result<16x16xf32>, %l: !subgroup_matrix.left<16x32xsi8>,
    %r: !subgroup_matrix.right<16x16xbf16>, %x: f32, %y: bf16, %i: i32) {
  // CHECK: subgroup_matrix.scalar_add %{{.*}}, %{{.*}} : !subgroup_matrix.result<16x16xf32>, f32
  %0 = subgroup_matrix.scalar_add %m, %x : !subgroup_matrix.result<16x16xf32>, f32
  // CHECK: subgroup_matrix.scalar_sub %{{.*}}, %{{.*}} : !subgroup_matrix.result<16x16xf32>, f32
  %1 = subgroup_matrix.scalar_sub %0, %x : !subgroup_matrix.result<16x16xf32>, f32
  // CHECK: subgroup_matrix.scalar_mul %{{.*}}, %{{.*}} : !subgroup_matrix.result<16x16xf32>, f32
  %2 = subgroup_matrix.scalar_mul %1, %x : !subgroup_matrix.result<16x16xf32>, f32
  // CHECK: subgroup_matrix.scalar_div %{{.*}}, %{{.*}} : !subgroup_matrix.result<16x16xf32>, f32
  %3 = subgroup_matrix.scalar_div %2, %x : !subgroup_matrix.result<16x16xf32>, f32
  // CHECK: subgroup_matrix.scalar_mul %{{.*}}, %{{.*}} : !subgroup_matrix.left<16x32xsi8>, i32
  %4 = subgroup_matrix.scalar_mul %l, %i : !subgroup_matrix.left<16x32xsi8>, i32
  // CHECK: subgroup_matrix.scalar_sub %{{.*}}, %{{.*}} : !subgroup_matrix.right<16x16xbf16>, bf16
  %5 = subgroup_matrix.scalar_sub %r, %y : !subgroup_matrix.right<16x16xbf16>, bf16
  return
}

// Packed storage: 128-bit words of 8 f16 or 16 i8; indices and strides count
// words.
// CHECK-LABEL: func.func @packed_words
// CHECK: subgroup_matrix.load %{{.*}}[%{{.*}}] stride %{{.*}} : memref<64xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
// CHECK: subgroup_matrix.load %{{.*}}[%{{.*}}] stride %{{.*}} col_major : memref<64xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<32x16xsi8>
func.func @packed_words(%wg: memref<64xvector<4xi32>, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %a = subgroup_matrix.load %wg[%c0] stride %c2 : memref<64xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
  %b = subgroup_matrix.load %wg[%c2] stride %c2 col_major : memref<64xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<32x16xsi8>
  return
}

// GENERIC-LABEL: "func.func"() <{function_type = {{.*}}, sym_name = "load_store_row_and_column_major"}>
// GENERIC: "subgroup_matrix.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<?x?xf16>, index, index, index) -> !subgroup_matrix.left<16x16xf16>
// GENERIC: "subgroup_matrix.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{col_major, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (memref<4096xf16, #gpu.address_space<workgroup>>, index, index) -> !subgroup_matrix.right<16x8xf16>
// GENERIC: "subgroup_matrix.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{col_major, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}>
// GENERIC-LABEL: sym_name = "splat_and_multiplication"
// GENERIC: "subgroup_matrix.splat"(%{{.*}}) : (f32) -> !subgroup_matrix.result<16x16xf32>
// GENERIC: "subgroup_matrix.mma"(%{{.*}}, %{{.*}}, %{{.*}}) : (!subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>, !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32>
// GENERIC: "subgroup_matrix.multiply"(%{{.*}}, %{{.*}}) : (!subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>) -> !subgroup_matrix.result<16x16xf16>
// GENERIC-LABEL: sym_name = "scalar_ops"
// GENERIC: "subgroup_matrix.scalar_add"
// GENERIC: "subgroup_matrix.scalar_sub"
// GENERIC: "subgroup_matrix.scalar_mul"
// GENERIC: "subgroup_matrix.scalar_div"

// CHECK-LABEL: func.func @convert_map_reduce
// CHECK-SAME: (%[[S:.*]]: !subgroup_matrix.result<16x16xf32>, %[[I:.*]]: !subgroup_matrix.result<16x16xsi32>, %[[B:.*]]: !subgroup_matrix.result<16x16xf16>)
func.func @convert_map_reduce(%s: !subgroup_matrix.result<16x16xf32>,
    %i: !subgroup_matrix.result<16x16xsi32>, %b: !subgroup_matrix.result<16x16xf16>)
    -> (!subgroup_matrix.left<16x16xf16>, !subgroup_matrix.result<16x16xf32>,
        !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
        !subgroup_matrix.result<16x16xsi32>, !subgroup_matrix.result<16x16xf16>) {
  // CHECK: %[[P:.*]] = subgroup_matrix.convert %[[S]] : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
  %p = subgroup_matrix.convert %s : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
  // CHECK: %[[F:.*]] = subgroup_matrix.convert %[[I]] : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xf32>
  %f = subgroup_matrix.convert %i : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xf32>
  // CHECK: %[[MAX:.*]] = subgroup_matrix.reduce max rows %[[S]] : !subgroup_matrix.result<16x16xf32>
  %max = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.reduce max rows %[[S]] fastmath<nnan> : !subgroup_matrix.result<16x16xf32>
  %fastmax = subgroup_matrix.reduce max rows %s fastmath<nnan> : !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.reduce add columns %[[S]] : !subgroup_matrix.result<16x16xf32>
  %colsum = subgroup_matrix.reduce add columns %s : !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.reduce min all %[[I]] : !subgroup_matrix.result<16x16xsi32>
  %imin = subgroup_matrix.reduce min all %i : !subgroup_matrix.result<16x16xsi32>
  // CHECK: subgroup_matrix.reduce mul all %[[I]] : !subgroup_matrix.result<16x16xsi32>
  %iprod = subgroup_matrix.reduce mul all %i : !subgroup_matrix.result<16x16xsi32>
  // CHECK: subgroup_matrix.reduce max blocks2x2 %[[S]] : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<8x8xf32>
  %pooled = subgroup_matrix.reduce max blocks2x2 %s : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<8x8xf32>
  // CHECK: %[[E:.*]] = subgroup_matrix.map %[[S]], %[[MAX]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  // CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[COL:.*]]: index, %[[X:.*]]: f32, %[[M:.*]]: f32):
  // CHECK-NEXT:   %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
  // CHECK-NEXT:   %[[EXP:.*]] = math.exp %[[D]] : f32
  // CHECK-NEXT:   subgroup_matrix.yield %[[EXP]] : f32
  // CHECK-NEXT: }
  %e = subgroup_matrix.map %s, %max : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
      -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %exp = math.exp %d : f32
    subgroup_matrix.yield %exp : f32
  }
  // Inputs of different component types; the result of a third; row and
  // column used (a causal mask and a cast).
  // CHECK: subgroup_matrix.map %[[S]], %[[I]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xf16> {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: f32, %{{.*}}: i32):
  %masked = subgroup_matrix.map %s, %i : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xsi32>
      -> !subgroup_matrix.result<16x16xf16> {
  ^bb0(%row: index, %col: index, %x: f32, %n: i32):
    %above = arith.cmpi ugt, %col, %row : index
    %nf = arith.sitofp %n : i32 to f32
    %sum = arith.addf %x, %nf : f32
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %above, %ninf, %sum : f32
    %h = arith.truncf %y : f32 to f16
    subgroup_matrix.yield %h : f16
  }
  return %p, %f, %colsum, %e, %imin, %masked : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.result<16x16xf32>,
      !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
      !subgroup_matrix.result<16x16xsi32>, !subgroup_matrix.result<16x16xf16>
}

// CHECK-LABEL: func.func @map_of_8bit_elements
func.func @map_of_8bit_elements(%a: !subgroup_matrix.left<16x32xsi8>) -> !subgroup_matrix.left<16x32xui8> {
  // The block sees the storage type: i8 for si8 and ui8.
  // CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[V:.*]]: i8):
  %r = subgroup_matrix.map %a : !subgroup_matrix.left<16x32xsi8> -> !subgroup_matrix.left<16x32xui8> {
  ^bb0(%row: index, %col: index, %v: i8):
    %zero = arith.constant 0 : i8
    %relu = arith.maxsi %v, %zero : i8
    subgroup_matrix.yield %relu : i8
  }
  return %r : !subgroup_matrix.left<16x32xui8>
}

// CHECK-LABEL: func.func @decode_load
// CHECK-SAME: (%[[Q:.*]]: memref<?xi8>, %[[SCALE:.*]]: memref<?xf16>, %[[K0:.*]]: index, %[[N0:.*]]: index, %[[K:.*]]: index, %[[N:.*]]: index)
func.func @decode_load(%q: memref<?xi8>, %scale: memref<?xf16>, %k0: index,
                       %n0: index, %k: index, %n: index)
    -> !subgroup_matrix.right<16x16xf16> {
  // CHECK: subgroup_matrix.decode_load [%[[K0]], %[[N0]]] within [%[[K]], %[[N]]] : !subgroup_matrix.right<16x16xf16> {
  // CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[COL:.*]]: index):
  // CHECK-NEXT: %[[START:.*]] = arith.muli %[[ROW]], %[[N]] : index
  // CHECK-NEXT: %[[AT:.*]] = arith.addi %[[START]], %[[COL]] : index
  // CHECK-NEXT: %[[BYTE:.*]] = memref.load %[[Q]][%[[AT]]] : memref<?xi8>
  // CHECK-NEXT: %[[VALUE:.*]] = arith.sitofp %[[BYTE]] : i8 to f16
  // CHECK-NEXT: %[[S:.*]] = memref.load %[[SCALE]][%[[COL]]] : memref<?xf16>
  // CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[VALUE]], %[[S]] : f16
  // CHECK-NEXT: subgroup_matrix.yield %[[SCALED]] : f16
  // GENERIC: "subgroup_matrix.decode_load"
  %b = subgroup_matrix.decode_load [%k0, %n0] within [%k, %n]
      : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    %rowStart = arith.muli %row, %n : index
    %at = arith.addi %rowStart, %col : index
    %byte = memref.load %q[%at] : memref<?xi8>
    %value = arith.sitofp %byte : i8 to f16
    %s = memref.load %scale[%col] : memref<?xf16>
    %scaled = arith.mulf %value, %s : f16
    subgroup_matrix.yield %scaled : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// CHECK-LABEL: func.func @subgroup_barrier
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK-NEXT: return
func.func @subgroup_barrier() {
  subgroup_matrix.subgroup_barrier
  return
}

// Matrices held by a whole workgroup: the scope is part of the type, after
// the component type, and subgroup scope (the default) is not printed.
// CHECK-LABEL: func.func @workgroup_scope
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.left<64x32xf16, workgroup>, %[[B:.*]]: !subgroup_matrix.right<32x64xf16, workgroup>, %[[C:.*]]: !subgroup_matrix.result<64x64xf32, workgroup>, %[[S:.*]]: !subgroup_matrix.result<16x16xf32>)
// CHECK: %[[D:.*]] = subgroup_matrix.mma %[[A]], %[[B]], %[[C]] : !subgroup_matrix.left<64x32xf16, workgroup>, !subgroup_matrix.right<32x64xf16, workgroup> -> !subgroup_matrix.result<64x64xf32, workgroup>
// CHECK: %[[M:.*]] = subgroup_matrix.reduce max rows %[[D]] : !subgroup_matrix.result<64x64xf32, workgroup>
// CHECK: %[[P:.*]] = subgroup_matrix.reduce max blocks2x2 %[[D]] : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.result<32x32xf32, workgroup>
// CHECK: subgroup_matrix.convert %[[D]] : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.left<64x64xf16, workgroup>
// CHECK: return %[[S]] : !subgroup_matrix.result<16x16xf32>
// GENERIC-LABEL: sym_name = "workgroup_scope"
// GENERIC: "subgroup_matrix.mma"(%{{.*}}, %{{.*}}, %{{.*}}) : (!subgroup_matrix.left<64x32xf16, workgroup>, !subgroup_matrix.right<32x64xf16, workgroup>, !subgroup_matrix.result<64x64xf32, workgroup>) -> !subgroup_matrix.result<64x64xf32, workgroup>
func.func @workgroup_scope(%a: !subgroup_matrix.left<64x32xf16, workgroup>, %b: !subgroup_matrix.right<32x64xf16, workgroup>, %c: !subgroup_matrix.result<64x64xf32, workgroup>, %s: !subgroup_matrix.result<16x16xf32, subgroup>) -> !subgroup_matrix.result<16x16xf32> {
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<64x32xf16, workgroup>, !subgroup_matrix.right<32x64xf16, workgroup> -> !subgroup_matrix.result<64x64xf32, workgroup>
  %m = subgroup_matrix.reduce max rows %d : !subgroup_matrix.result<64x64xf32, workgroup>
  %p = subgroup_matrix.reduce max blocks2x2 %d : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.result<32x32xf32, workgroup>
  %l = subgroup_matrix.convert %d : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.left<64x64xf16, workgroup>
  return %s : !subgroup_matrix.result<16x16xf32>
}
