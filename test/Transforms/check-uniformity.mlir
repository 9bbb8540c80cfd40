// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-uniformity

!A = !subgroup_matrix.left<16x16xf16>
!C = !subgroup_matrix.result<16x16xf32>

gpu.module @kernels {
  // Branching on the thread id diverges: the store runs on some invocations.
  gpu.func @if_on_thread_id(%buf: memref<?xf32>, %m: !C, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %tid = gpu.thread_id x
    %cond = arith.cmpi ult, %tid, %c16 : index
    // expected-note @+1 {{control flow diverges here, on a value that depends on the invocation}}
    scf.if %cond {
      // expected-error @+1 {{'subgroup_matrix.store' op may execute in control flow that diverges within a subgroup; subgroup matrix operations must be reached by every invocation of the subgroup}}
      subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    }
    gpu.return
  }

  // A condition every invocation agrees on is fine.
  gpu.func @if_on_uniform_values(%buf: memref<?xf32>, %m: !C, %s: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %bid = gpu.block_id x
    %sg = gpu.subgroup_id : index
    %a = arith.cmpi ult, %bid, %n : index
    %b = arith.cmpi ult, %sg, %n : index
    %cond = arith.andi %a, %b : i1
    scf.if %cond {
      subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    }
    gpu.return
  }

  // A loop over a thread-dependent range diverges inside, but the code after
  // it (here behind a barrier) runs on every invocation again.
  gpu.func @loop_then_barrier(%wg: memref<4096xf16, #gpu.address_space<workgroup>>,
                              %src: memref<?xf16>, %n: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    // expected-note @+1 {{control flow diverges here}}
    scf.for %i = %tid to %n step %c128 {
      %v = memref.load %src[%i] : memref<?xf16>
      memref.store %v, %wg[%i] : memref<4096xf16, #gpu.address_space<workgroup>>
      // expected-error @+1 {{'subgroup_matrix.load' op may execute in control flow that diverges within a subgroup}}
      %bad = subgroup_matrix.load %wg[%c0] stride %s : memref<4096xf16, #gpu.address_space<workgroup>> -> !A
    }
    gpu.barrier
    %a = subgroup_matrix.load %wg[%c0] stride %s : memref<4096xf16, #gpu.address_space<workgroup>> -> !A
    gpu.return
  }

  // Uniform loops over matrices, with loop-carried accumulators, are fine.
  gpu.func @uniform_k_loop(%src: memref<?xf16>, %out: memref<?xf32>, %k: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %sg = gpu.subgroup_id : index
    %row = arith.muli %sg, %c16 : index
    %init = subgroup_matrix.splat %zero : f32 -> !C
    %acc = scf.for %i = %c0 to %k step %c16 iter_args(%c = %init) -> (!C) {
      %a = subgroup_matrix.load %src[%i] stride %s : memref<?xf16> -> !A
      %b = subgroup_matrix.load %src[%row] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
      %d = subgroup_matrix.mma %a, %b, %c : !A, !subgroup_matrix.right<16x16xf16> -> !C
      scf.yield %d : !C
    }
    subgroup_matrix.store %acc, %out[%row] stride %s : !C, memref<?xf32>
    gpu.return
  }

  // A uniform loop may carry per-invocation values (a copy loaded ahead)
  // beside its matrices: only the results they flow into vary.
  gpu.func @loop_carrying_varying_value(%src: memref<?xf16>, %out: memref<?xf32>, %k: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %first = memref.load %src[%tid] : memref<?xf16>
    %init = subgroup_matrix.splat %zero : f32 -> !C
    %acc, %ahead = scf.for %i = %c0 to %k step %c16 iter_args(%c = %init, %v = %first) -> (!C, f16) {
      %a = subgroup_matrix.load %src[%i] stride %s : memref<?xf16> -> !A
      %b = subgroup_matrix.load %src[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
      %d = subgroup_matrix.mma %a, %b, %c : !A, !subgroup_matrix.right<16x16xf16> -> !C
      %next = memref.load %src[%tid] : memref<?xf16>
      scf.yield %d, %next : !C, f16
    }
    subgroup_matrix.store %acc, %out[%c0] stride %s : !C, memref<?xf32>
    %offset = arith.fptoui %ahead : f16 to i32
    %index = arith.index_cast %offset : i32 to index
    // expected-error @+1 {{'subgroup_matrix.store' op operand #2 may differ between the invocations of a subgroup}}
    subgroup_matrix.store %acc, %out[%index] stride %s : !C, memref<?xf32>
    gpu.return
  }

  // The same for a while loop whose exit is uniform.
  gpu.func @while_carrying_varying_value(%src: memref<?xf16>, %out: memref<?xf32>, %n: index, %s: index, %m: !C) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %first = memref.load %src[%tid] : memref<?xf16>
    %count, %acc, %ahead = scf.while (%i = %c0, %c = %m, %v = %first) : (index, !C, f16) -> (index, !C, f16) {
      %go = arith.cmpi ult, %i, %n : index
      scf.condition(%go) %i, %c, %v : index, !C, f16
    } do {
    ^bb0(%j: index, %d: !C, %w: f16):
      %a = subgroup_matrix.load %src[%j] stride %s : memref<?xf16> -> !A
      %b = subgroup_matrix.load %src[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
      %e = subgroup_matrix.mma %a, %b, %d : !A, !subgroup_matrix.right<16x16xf16> -> !C
      %next = memref.load %src[%tid] : memref<?xf16>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1, %e, %next : index, !C, f16
    }
    subgroup_matrix.store %acc, %out[%count] stride %s : !C, memref<?xf32>
    gpu.return
  }

  // A loop whose exit depends on the invocation, and the value it carries out.
  gpu.func @while_on_loaded_value(%flags: memref<?xi32>, %buf: memref<?xf32>, %m: !C, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %tid = gpu.thread_id x
    // expected-note @+1 {{control flow diverges here}}
    %last = scf.while (%i = %tid) : (index) -> index {
      %flag = memref.load %flags[%i] : memref<?xi32>
      %go = arith.cmpi ne, %flag, %zero : i32
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      // expected-error @+1 {{'subgroup_matrix.store' op may execute in control flow that diverges}}
      subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
      %next = arith.addi %j, %c1 : index
      scf.yield %next : index
    }
    // expected-error @+1 {{'subgroup_matrix.store' op operand #2 may differ between the invocations of a subgroup; subgroup matrix operands must be subgroup uniform}}
    subgroup_matrix.store %m, %buf[%last] stride %s : !C, memref<?xf32>
    gpu.return
  }
}

// -----

!C = !subgroup_matrix.result<16x16xf32>

gpu.module @operands {
  gpu.func @varying_operands(%buf: memref<?xf32>, %idx: memref<?xindex>, %m: !C, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %lane = gpu.lane_id
    // expected-error @+1 {{'subgroup_matrix.load' op operand #1 may differ between the invocations of a subgroup}}
    %a = subgroup_matrix.load %buf[%lane] stride %s : memref<?xf32> -> !C
    // A value read at an invocation-dependent address varies too.
    %off = memref.load %idx[%lane] : memref<?xindex>
    // expected-error @+1 {{'subgroup_matrix.store' op operand #3 may differ between the invocations of a subgroup}}
    subgroup_matrix.store %m, %buf[%c0] stride %off : !C, memref<?xf32>
    %gid = gpu.global_id x
    %f = arith.index_cast %gid : index to i32
    %x = arith.sitofp %f : i32 to f32
    // expected-error @+1 {{'subgroup_matrix.splat' op operand #0 may differ}}
    %b = subgroup_matrix.splat %x : f32 -> !C
    // expected-error @+1 {{'subgroup_matrix.scalar_mul' op operand #1 may differ}}
    %c = subgroup_matrix.scalar_mul %m, %x : !C, f32
    // A subgroup reduction hands every invocation the same value.
    %sum = gpu.subgroup_reduce add %x : (f32) -> f32
    %d = subgroup_matrix.scalar_add %m, %sum : !C, f32
    // So does a value read at a uniform address.
    %u = memref.load %idx[%c0] : memref<?xindex>
    subgroup_matrix.store %d, %buf[%u] stride %s : !C, memref<?xf32>
    gpu.return
  }

  // A matrix chosen by a divergent branch differs between invocations.
  gpu.func @matrix_from_divergent_if(%buf: memref<?xf32>, %m: !C, %n: !C, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %c = arith.index_cast %tid : index to i1
    %r = arith.select %c, %m, %n : !C
    // expected-error @+1 {{'subgroup_matrix.store' op operand #0 may differ}}
    subgroup_matrix.store %r, %buf[%c0] stride %s : !C, memref<?xf32>
    gpu.return
  }
}

// -----

!C = !subgroup_matrix.result<16x16xf32>

gpu.module @unstructured {
  gpu.func @branch_and_join(%buf: memref<?xf32>, %m: !C, %s: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %cond = arith.cmpi ult, %tid, %n : index
    // expected-note @+1 {{control flow diverges here}}
    cf.cond_br %cond, ^then, ^join
  ^then:
    // expected-error @+1 {{'subgroup_matrix.store' op may execute in control flow that diverges}}
    subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    cf.br ^join
  ^join:
    // The paths met again: every invocation runs this.
    subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    gpu.return
  }

  // Invocations that return early leave the rest to a partial subgroup.
  gpu.func @early_return(%buf: memref<?xf32>, %m: !C, %s: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %lane = gpu.lane_id
    %cond = arith.cmpi ult, %lane, %n : index
    // expected-note @+1 {{control flow diverges here}}
    cf.cond_br %cond, ^exit, ^rest
  ^exit:
    gpu.return
  ^rest:
    // expected-error @+1 {{'subgroup_matrix.store' op may execute in control flow that diverges}}
    subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    gpu.return
  }
}

// -----

!C = !subgroup_matrix.result<16x16xf32>

gpu.module @calls {
  func.func @store_tile(%buf: memref<?xf32>, %m: !C, %s: index) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.store' op may execute in control flow that diverges}}
    subgroup_matrix.store %m, %buf[%c0] stride %s : !C, memref<?xf32>
    return
  }
  func.func @load_at(%buf: memref<?xf32>, %i: index, %s: index) -> !C {
    // One caller passes a thread id.
    // expected-error @+1 {{'subgroup_matrix.load' op operand #1 may differ}}
    %m = subgroup_matrix.load %buf[%i] stride %s : memref<?xf32> -> !C
    return %m : !C
  }
  gpu.func @caller(%buf: memref<?xf32>, %m: !C, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %cond = arith.index_cast %tid : index to i1
    scf.if %cond {
      // The callee runs divergent as a whole; the note points at the call.
      // expected-note @+1 {{control flow diverges here}}
      func.call @store_tile(%buf, %m, %s) : (memref<?xf32>, !C, index) -> ()
    }
    %a = func.call @load_at(%buf, %c0, %s) : (memref<?xf32>, index, index) -> !C
    %b = func.call @load_at(%buf, %tid, %s) : (memref<?xf32>, index, index) -> !C
    gpu.return
  }
}


// -----

// convert, map and reduce are subgroup operations too.
func.func @divergent_reduce(%m: !subgroup_matrix.result<16x16xf32>, %buf: memref<1024xf32>, %s: index) {
  %t = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %small = arith.cmpi ult, %t, %c4 : index
  // expected-note @+1 {{control flow diverges here, on a value that depends on the invocation}}
  scf.if %small {
    // expected-error @+1 {{'subgroup_matrix.reduce' op may execute in control flow that diverges within a subgroup}}
    %r = subgroup_matrix.reduce max rows %m : !subgroup_matrix.result<16x16xf32>
  }
  return
}

// -----

func.func @map_of_a_varying_value(%m: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32> {
  // expected-note @+1 {{the value is defined here}}
  %t = gpu.thread_id x
  // expected-error @+1 {{'subgroup_matrix.map' op body uses a value from outside the map that may differ between the invocations of a subgroup; it must be subgroup uniform}}
  %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %i = arith.index_cast %t : index to i32
    %f = arith.sitofp %i : i32 to f32
    %y = arith.addf %x, %f : f32
    subgroup_matrix.yield %y : f32
  }
  return %r : !subgroup_matrix.result<16x16xf32>
}

// -----

// The row and column are the element's, not the invocation's: a map that
// uses them, or uniform values from outside, is fine.
func.func @map_of_positions_and_uniform_values(%m: !subgroup_matrix.result<16x16xf32>, %scale: f32) -> !subgroup_matrix.result<16x16xf32> {
  %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %above = arith.cmpi ugt, %col, %row : index
    %y = arith.mulf %x, %scale : f32
    %z = arith.select %above, %x, %y : f32
    subgroup_matrix.yield %z : f32
  }
  return %r : !subgroup_matrix.result<16x16xf32>
}

// -----

// A decode load's position and bounds, and what its body takes from
// outside, must be uniform; its body is not control flow (its yield is not
// reported), and the position it receives is the element's.
func.func @decode_load_at_a_varying_row(%q: memref<4096xi8>) -> !subgroup_matrix.right<16x16xf16> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %t = gpu.thread_id x
  // expected-error @+1 {{'subgroup_matrix.decode_load' op operand #0 may differ between the invocations of a subgroup; subgroup matrix operands must be subgroup uniform}}
  %b = subgroup_matrix.decode_load [%t, %c0] within [%c16, %c16] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    %start = arith.muli %row, %c16 : index
    %at = arith.addi %start, %col : index
    %byte = memref.load %q[%at] : memref<4096xi8>
    %value = arith.sitofp %byte : i8 to f16
    subgroup_matrix.yield %value : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @decode_load_of_a_varying_value(%q: memref<4096xi8>) -> !subgroup_matrix.right<16x16xf16> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // expected-note @+1 {{the value is defined here}}
  %t = gpu.thread_id x
  // expected-error @+1 {{'subgroup_matrix.decode_load' op body uses a value from outside the decode_load that may differ between the invocations of a subgroup; it must be subgroup uniform}}
  %b = subgroup_matrix.decode_load [%c0, %c0] within [%c16, %c16] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    %start = arith.muli %row, %t : index
    %at = arith.addi %start, %col : index
    %byte = memref.load %q[%at] : memref<4096xi8>
    %value = arith.sitofp %byte : i8 to f16
    subgroup_matrix.yield %value : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}

// -----

func.func @decode_load_of_uniform_values(%q: memref<4096xi8>, %scale: f16, %n: index) -> !subgroup_matrix.right<16x16xf16> {
  %c0 = arith.constant 0 : index
  %b = subgroup_matrix.decode_load [%c0, %c0] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
  ^bb0(%row: index, %col: index):
    %start = arith.muli %row, %n : index
    %at = arith.addi %start, %col : index
    %byte = memref.load %q[%at] : memref<4096xi8>
    %value = arith.sitofp %byte : i8 to f16
    %scaled = arith.mulf %value, %scale : f16
    subgroup_matrix.yield %scaled : f16
  }
  return %b : !subgroup_matrix.right<16x16xf16>
}
