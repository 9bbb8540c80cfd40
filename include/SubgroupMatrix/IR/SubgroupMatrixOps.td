//===- SubgroupMatrixOps.td - subgroup_matrix operations ---*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD

include "SubgroupMatrix/IR/SubgroupMatrixBase.td"
include "SubgroupMatrix/IR/SubgroupMatrixTypes.td"
include "SubgroupMatrix/IR/SubgroupMatrixAttrs.td"
include "SubgroupMatrix/IR/SubgroupMatrixEnums.td"
include "mlir/Dialect/Arith/IR/ArithBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class SubgroupMatrix_Op<string mnemonic, list<Trait> traits = []>
    : Op<SubgroupMatrix_Dialect, mnemonic, traits>;

/// The scalar types a program can hand to `splat` and the scalar ops: the
/// float component type itself, or `i32` for every integer component type.
def SubgroupMatrix_ScalarType : AnyTypeOf<[F16, BF16, F32, I32]>;

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

def SubgroupMatrix_LoadOp : SubgroupMatrix_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "load a subgroup matrix from memory";
  let description = [{
    Loads a matrix from `source`. The indices (one per memref dimension)
    address the element where matrix element [0, 0] is stored; `stride` is
    the distance, in memref elements, between the starts of consecutive rows,
    or of consecutive columns when `col_major` is present. With row-major
    layout, element [r, c] is read from `stride * r + c` elements after
    [0, 0]; with column-major layout from `stride * c + r` elements after it.

    The memref must live in global (default) or workgroup memory, its element
    type must be the storage type of the matrix components (the float type
    itself, `i8` for `si8`/`ui8`, `i32` for `si32`/`ui32`) and its innermost
    dimension must be contiguous. `source`, the indices and `stride` must be
    subgroup uniform.

    The memref may instead hold packed 32-bit words (`vector<4xi32>`, for
    example, holds eight f16 or sixteen i8 components): indices and `stride`
    then count those vectors, as GLSL's `coopMatLoad` does with an array of
    `uvec4`. The Vulkan lowering produces this form for workgroup buffers
    that are copied 16 bytes at a time; the Intel and Metal paths do not
    take it.

    With `bounds [%rows, %columns]`, only the matrix's first `%rows` rows
    and first `%columns` columns lie in memory (a tile at the ragged edge of
    a larger matrix): the other elements are zero and their memory is not
    read. A bound at or above the matrix's extent covers all of it, one at
    or below zero none. The bounds must be subgroup uniform, and the memref
    must hold the storage type itself (not packed words). On devices with
    VK_NV_cooperative_matrix2's tensor addressing, a bounded load of a
    kernel's buffer or workgroup allocation is one instruction; elsewhere a
    load that is not whole goes through workgroup memory (or, for
    per-invocation matrices, element by element).

    ```mlir
    func.func @loads(%buf: memref<64x64xf16>,
                     %wg: memref<4096xf16, #gpu.address_space<workgroup>>,
                     %words: memref<512xvector<4xi32>,
                                    #gpu.address_space<workgroup>>,
                     %i: index, %j: index, %off: index, %s: index)
        -> (!subgroup_matrix.left<16x16xf16>,
            !subgroup_matrix.right<16x16xf16>,
            !subgroup_matrix.left<16x16xf16>) {
      %a = subgroup_matrix.load %buf[%i, %j] stride %s
          : memref<64x64xf16> -> !subgroup_matrix.left<16x16xf16>
      %b = subgroup_matrix.load %wg[%off] stride %s col_major
          : memref<4096xf16, #gpu.address_space<workgroup>>
            -> !subgroup_matrix.right<16x16xf16>
      // Rows of 16 f16 are two vector<4xi32> apart.
      %c2 = arith.constant 2 : index
      %p = subgroup_matrix.load %words[%off] stride %c2
          : memref<512xvector<4xi32>, #gpu.address_space<workgroup>>
            -> !subgroup_matrix.left<16x16xf16>
      return %a, %b, %p : !subgroup_matrix.left<16x16xf16>,
          !subgroup_matrix.right<16x16xf16>, !subgroup_matrix.left<16x16xf16>
    }

    // The last tile of a 64 x 40 matrix: 16 rows, of which 8 columns are
    // in memory.
    func.func @edge(%buf: memref<2560xf16>, %off: index)
        -> !subgroup_matrix.left<16x16xf16> {
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c40 = arith.constant 40 : index
      %a = subgroup_matrix.load %buf[%off] stride %c40 bounds [%c16, %c8]
          : memref<2560xf16> -> !subgroup_matrix.left<16x16xf16>
      return %a : !subgroup_matrix.left<16x16xf16>
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the memory to read", [MemRead]>:$source,
                       Variadic<Index>:$indices, Index:$stride,
                       Variadic<Index>:$bounds, UnitAttr:$col_major);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` `stride` $stride (`col_major` $col_major^)?
    (`bounds` `[` $bounds^ `]`)? attr-dict `:` type($source) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    // The unbounded load.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$source,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$stride,
                   "bool":$colMajor), [{
      build($_builder, $_state, result, source, indices, stride,
            ::mlir::ValueRange(), colMajor);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether only the first rows and columns given by `bounds` are read.
    bool isBounded() { return !getBounds().empty(); }
    ::mlir::Value getBoundRows() { return getBounds()[0]; }
    ::mlir::Value getBoundColumns() { return getBounds()[1]; }
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
    ::mlir::MemRefType getMemRefType() {
      return ::llvm::cast<::mlir::MemRefType>(getSource().getType());
    }
  }];
}

def SubgroupMatrix_DecodeLoadOp : SubgroupMatrix_Op<"decode_load",
    [SingleBlock, RecursiveMemoryEffects]> {
  let summary = "a matrix whose elements a function computes from memory";
  let description = [{
    Builds a matrix from a tile of a `rows` x `columns` tensor whose elements
    are stored in some other form (quantized weights with their scales and
    zero points, packed sub-byte values, a block layout): element [i, j] is
    what `body` yields for the tensor position (`row` + i, `column` + j),
    and zero where that position lies outside the tensor (`row` + i >=
    `rows` or `column` + j >= `columns`), where the body is not run. The
    block receives the position (two `index` values) and yields the element
    in the storage type of the matrix component.

    The body computes with `arith` and `math` ops and reads memory with
    `memref.load` from buffers in global memory (not workgroup or private
    memory); it has no regions and writes nothing. It may run more than once
    for an element, and in any invocation of the subgroup. `row`, `column`,
    `rows`, `columns` and every value the body uses from outside must be
    subgroup uniform.

    On devices with VK_NV_cooperative_matrix2's block loads and tensor
    addressing, a decode load whose body uses only constants and the
    kernel's arguments (buffers and scalars) from outside, and reads at
    least one buffer, is one `OpCooperativeMatrixLoadTensorNV` with the body
    as its decode function; elsewhere each invocation decodes
    its share of the elements into workgroup memory (or, for per-invocation
    matrices, into its own slots).

    ```mlir
    // A 16 x 16 tile of K x N int8 weights, each column with its own f16
    // scale: w[k, n] * scale[n].
    func.func @dequantize(%q: memref<?xi8>, %scale: memref<?xf16>,
                          %k0: index, %n0: index, %k: index, %n: index)
        -> !subgroup_matrix.right<16x16xf16> {
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
    ```
  }];
  let arguments = (ins Index:$row, Index:$column, Index:$rows,
                       Index:$columns);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    ` ` `[` $row `,` $column `]` `within` ` ` `[` $rows `,` $columns `]`
    attr-dict `:` type($result) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The block arguments holding the element's row and column in the
    /// tensor.
    ::mlir::BlockArgument getTensorRow() {
      return getBodyBlock().getArgument(0);
    }
    ::mlir::BlockArgument getTensorColumn() {
      return getBodyBlock().getArgument(1);
    }
    /// The value the body yields.
    ::mlir::Value getYieldedValue();
  }];
}

def SubgroupMatrix_StoreOp : SubgroupMatrix_Op<"store",
    [AttrSizedOperandSegments]> {
  let summary = "store a subgroup matrix to memory";
  let description = [{
    Stores `value` to `target`, with the addressing of `subgroup_matrix.load`:
    the indices address where element [0, 0] goes and `stride` counts memref
    elements between consecutive rows (or columns with `col_major`). With
    `bounds [%rows, %columns]` only the elements of the first `%rows` rows
    and `%columns` columns are written; the memory of the others is left
    as it was (the bounds read as in `subgroup_matrix.load`).

    ```mlir
    func.func @store(%d: !subgroup_matrix.result<16x16xf32>,
                     %out: memref<64x64xf32>, %i: index, %j: index) {
      %c64 = arith.constant 64 : index
      subgroup_matrix.store %d, %out[%i, %j] stride %c64
          : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32>
      // The transpose of %d, at the same place.
      subgroup_matrix.store %d, %out[%i, %j] stride %c64 col_major
          : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32>
      // Only the first 4 rows, as at the bottom edge of the output.
      %c4 = arith.constant 4 : index
      subgroup_matrix.store %d, %out[%i, %j] stride %c64 bounds [%c4, %c64]
          : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32>
      return
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_AnyMatrix:$value,
                       Arg<AnyMemRef, "the memory to write", [MemWrite]>:$target,
                       Variadic<Index>:$indices, Index:$stride,
                       Variadic<Index>:$bounds, UnitAttr:$col_major);
  let assemblyFormat = [{
    $value `,` $target `[` $indices `]` `stride` $stride
    (`col_major` $col_major^)? (`bounds` `[` $bounds^ `]`)? attr-dict `:`
    type($value) `,` type($target)
  }];
  let hasVerifier = 1;
  let builders = [
    // The unbounded store.
    OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$target,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$stride,
                   "bool":$colMajor), [{
      build($_builder, $_state, value, target, indices, stride,
            ::mlir::ValueRange(), colMajor);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether only the first rows and columns given by `bounds` are
    /// written.
    bool isBounded() { return !getBounds().empty(); }
    ::mlir::Value getBoundRows() { return getBounds()[0]; }
    ::mlir::Value getBoundColumns() { return getBounds()[1]; }
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getValue().getType());
    }
    ::mlir::MemRefType getMemRefType() {
      return ::llvm::cast<::mlir::MemRefType>(getTarget().getType());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

def SubgroupMatrix_SplatOp : SubgroupMatrix_Op<"splat", [Pure]> {
  let summary = "a subgroup matrix with every element set to one value";
  let description = [{
    Builds a matrix whose elements all equal `value`. The scalar type is the
    component type for float matrices and `i32` for integer matrices; an
    integer value is clamped to the range of the component type (for example
    to [-128, 127] for `si8`), as the WGSL proposal specifies. `value` must be
    subgroup uniform.

    ```mlir
    func.func @splats()
        -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.left<16x32xsi8>) {
      %zero = arith.constant 0.0 : f32
      %c = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      // Every element is 127, the largest si8.
      %c300 = arith.constant 300 : i32
      %m = subgroup_matrix.splat %c300 : i32 -> !subgroup_matrix.left<16x32xsi8>
      return %c, %m
          : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.left<16x32xsi8>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_ScalarType:$value);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def SubgroupMatrix_MmaOp
    : SubgroupMatrix_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate: left * right + acc";
  let description = [{
    Computes `left * right + acc` for an M x K `left`, a K x N `right` and an
    M x N `acc`. `left` and `right` share a component type `T`; the result
    type `R` must be an accumulator of `T`: `f16` accumulates into `f16` or
    `f32`, `bf16` into `f32`, `f32` into `f32`, `si8` into `si32`, `ui8` into
    `ui32`, and 32-bit integers into themselves. Integer arithmetic wraps
    (no saturation). The target must list the configuration
    (M, N, K, T, R).

    ```mlir
    func.func @mma(%a: !subgroup_matrix.left<16x16xf16>,
                   %b: !subgroup_matrix.right<16x16xf16>,
                   %c: !subgroup_matrix.result<16x16xf32>)
        -> !subgroup_matrix.result<16x16xf32> {
      %d = subgroup_matrix.mma %a, %b, %c
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
            -> !subgroup_matrix.result<16x16xf32>
      return %d : !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_LeftMatrixType:$left,
                       SubgroupMatrix_RightMatrixType:$right,
                       SubgroupMatrix_ResultMatrixType:$acc);
  let results = (outs SubgroupMatrix_ResultMatrixType:$result);
  let assemblyFormat = [{
    $left `,` $right `,` $acc attr-dict `:` qualified(type($left)) `,`
    qualified(type($right)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def SubgroupMatrix_MultiplyOp : SubgroupMatrix_Op<"multiply", [Pure]> {
  let summary = "matrix multiplication: left * right";
  let description = [{
    Computes `left * right`, defined as `mma` with an accumulator whose
    elements are all +0 (which is how every target lowers it). The shape and
    type rules are those of `subgroup_matrix.mma`.

    ```mlir
    func.func @multiply(%a: !subgroup_matrix.left<16x16xf16>,
                        %b: !subgroup_matrix.right<16x16xf16>)
        -> !subgroup_matrix.result<16x16xf32> {
      %e = subgroup_matrix.multiply %a, %b
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
            -> !subgroup_matrix.result<16x16xf32>
      return %e : !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_LeftMatrixType:$left,
                       SubgroupMatrix_RightMatrixType:$right);
  let results = (outs SubgroupMatrix_ResultMatrixType:$result);
  let assemblyFormat = [{
    $left `,` $right attr-dict `:` qualified(type($left)) `,`
    qualified(type($right)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

class SubgroupMatrix_ScalarOp<string mnemonic, string operation,
                              string identityDoc>
    : SubgroupMatrix_Op<mnemonic, [Pure, AllTypesMatch<["matrix", "result"]>]> {
  let summary = "element-wise " # operation # " of a matrix and a scalar";
  let description = [{
    Applies `}] # operation # [{` to every element of `matrix` and `scalar`.
    The scalar type is the component type for float matrices and `i32` for
    integer matrices; an integer scalar is clamped to the range of the
    component type first, and integer arithmetic wraps in the component
    type. }] # identityDoc # [{

    ```mlir
    func.func @}] # mnemonic # [{(%m: !subgroup_matrix.result<16x16xf32>, %s: f32)
        -> !subgroup_matrix.result<16x16xf32> {
      %r = subgroup_matrix.}] # mnemonic # [{ %m, %s
          : !subgroup_matrix.result<16x16xf32>, f32
      return %r : !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_AnyMatrix:$matrix,
                       SubgroupMatrix_ScalarType:$scalar);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = [{
    $matrix `,` $scalar attr-dict `:` type($matrix) `,` type($scalar)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getMatrix().getType());
    }
  }];
}

def SubgroupMatrix_ScalarAddOp : SubgroupMatrix_ScalarOp<"scalar_add",
    "addition", "Adding integer 0 or float -0.0 folds away.">;
def SubgroupMatrix_ScalarSubOp : SubgroupMatrix_ScalarOp<"scalar_sub",
    "subtraction (matrix - scalar)",
    "Subtracting integer 0 or float +0.0 folds away.">;
def SubgroupMatrix_ScalarMulOp : SubgroupMatrix_ScalarOp<"scalar_mul",
    "multiplication", "Multiplying by 1 folds away.">;
def SubgroupMatrix_ScalarDivOp : SubgroupMatrix_ScalarOp<"scalar_div",
    "division (matrix / scalar)",
    "Only float matrices can be divided. Dividing by 1.0 folds away.">;

//===----------------------------------------------------------------------===//
// Conversion, element-wise functions and reductions
//===----------------------------------------------------------------------===//

def SubgroupMatrix_ConvertOp : SubgroupMatrix_Op<"convert", [Pure]> {
  let summary = "change the kind or the component type of a matrix";
  let description = [{
    Returns a matrix of the same shape whose element [r, c] is element
    [r, c] of `source` converted to the result's component type. The kind
    may change too: a `result` becomes the `left` or `right` operand of the
    next multiplication (as in attention, `softmax(Q Kᵀ) V`), or any kind
    another.

    The conversions that exist:
    - between float types (`f16`, `bf16`, `f32`), rounding to nearest even;
    - from integer to float types, rounding to nearest even;
    - between integer types: widening extends according to the source's
      signedness (`si8 -> si32` sign-extends, `ui8 -> ui32` zero-extends),
      narrowing keeps the low bits (wraps), and equal widths reinterpret the
      bits (`si8 -> ui8`).

    There is no float-to-integer conversion: its rounding and its result out
    of range differ between devices. Quantize with `subgroup_matrix.map`
    instead, where the program says how. A conversion to the same type
    folds away.

    ```mlir
    func.func @converts(%s: !subgroup_matrix.result<16x16xf32>,
                        %acc: !subgroup_matrix.result<16x16xsi32>)
        -> (!subgroup_matrix.left<16x16xf16>, !subgroup_matrix.result<16x16xf32>) {
      %p = subgroup_matrix.convert %s
          : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
      %f = subgroup_matrix.convert %acc
          : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xf32>
      return %p, %f
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_AnyMatrix:$source);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getSourceType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getSource().getType());
    }
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getResultType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
    /// Converts one element, held in `from`'s storage type, to `to`'s
    /// storage type as this op does. Shared by the lowerings that convert
    /// element by element.
    static ::mlir::Value buildElementConversion(::mlir::OpBuilder &builder,
                                                ::mlir::Location loc,
                                                ::mlir::Value element,
                                                ::mlir::Type from,
                                                ::mlir::Type to);
  }];
}

def SubgroupMatrix_MapOp
    : SubgroupMatrix_Op<"map", [Pure, SingleBlock]> {
  let summary = "an element-wise function of one or more matrices";
  let description = [{
    Applies the function in `body` to every element position [r, c] of the
    `inputs`, which all have one kind and one shape (their component types
    may differ). The block receives the row `r` and column `c` (`index`),
    then element [r, c] of each input, typed as the input's storage type
    (the float type itself, `i8` for `si8`/`ui8`, `i32` for `si32`/`ui32`);
    it yields element [r, c] of the result with `subgroup_matrix.yield`. The
    result has the inputs' kind and shape and any component type.

    The body computes, it does not touch memory: its ops come from the
    `arith` and `math` dialects, have no regions and no side effects, and
    take and produce scalars. Values defined outside the map may be used
    inside it; like every subgroup matrix operation, the map runs in
    subgroup-uniform control flow.

    A map that yields one of its inputs unchanged folds to that input;
    inputs the body does not read are dropped, and a map that adds,
    subtracts, multiplies or divides a float matrix by a value defined
    outside becomes the scalar op.

    ```mlir
    func.func @maps(%s: !subgroup_matrix.result<16x16xf32>)
        -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>) {
      // exp(s - rowmax), the numerator of a softmax.
      %rowmax = subgroup_matrix.reduce max rows %s
          : !subgroup_matrix.result<16x16xf32>
      %p = subgroup_matrix.map %s, %rowmax
          : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
            -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32, %max: f32):
        %d = arith.subf %x, %max : f32
        %e = math.exp %d : f32
        subgroup_matrix.yield %e : f32
      }
      // A causal mask: -inf above the diagonal.
      %masked = subgroup_matrix.map %s : !subgroup_matrix.result<16x16xf32>
          -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32):
        %above = arith.cmpi ugt, %col, %row : index
        %ninf = arith.constant 0xFF800000 : f32
        %y = arith.select %above, %ninf, %x : f32
        subgroup_matrix.yield %y : f32
      }
      return %p, %masked
          : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<SubgroupMatrix_AnyMatrix>:$inputs);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($result) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getResultType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The block argument holding the row (0) or the column (1) index.
    ::mlir::BlockArgument getRow() { return getBodyBlock().getArgument(0); }
    ::mlir::BlockArgument getColumn() {
      return getBodyBlock().getArgument(1);
    }
    /// The block argument holding the element of input `i`.
    ::mlir::BlockArgument getInputElement(unsigned i) {
      return getBodyBlock().getArgument(2 + i);
    }
    /// The value the body yields.
    ::mlir::Value getYieldedValue();
  }];
}

def SubgroupMatrix_YieldOp : SubgroupMatrix_Op<"yield",
    [Pure, Terminator, ReturnLike, ParentOneOf<["MapOp", "DecodeLoadOp"]>]> {
  let summary = "the result element of a map or decode_load body";
  let description = [{
    Ends the body of `subgroup_matrix.map` or `subgroup_matrix.decode_load`
    with the element it computed, typed as the storage type of the result's
    component.

    ```mlir
    func.func @relu(%m: !subgroup_matrix.result<16x16xf32>)
        -> !subgroup_matrix.result<16x16xf32> {
      %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
          -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32):
        %zero = arith.constant 0.0 : f32
        %y = arith.maximumf %x, %zero : f32
        subgroup_matrix.yield %y : f32
      }
      return %r : !subgroup_matrix.result<16x16xf32>
    }
    ```
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def SubgroupMatrix_ReduceOp : SubgroupMatrix_Op<"reduce", [Pure]> {
  let summary = "a reduction over rows, columns, 2x2 blocks or the whole "
                "matrix";
  let description = [{
    Combines the elements of `matrix` with `add`, `mul`, `max` or `min` over
    each row (`rows`), each column (`columns`) or all of them (`all`). The
    result has the operand's type and holds, in every element, the
    reduction over that element's row (column, or the whole matrix): it is
    broadcast back to the operand's shape, so that it combines with the
    operand element-wise (through `subgroup_matrix.map`).

    `blocks2x2` combines each 2x2 block of elements (rows 2i and 2i+1,
    columns 2j and 2j+1) into element [i, j] of a matrix of the same kind
    and component type with half the rows and half the columns: the
    pooling step of a 2x2 max-pool on a product's result. Its result type
    follows an arrow; the operand's rows and columns must be even.

    Float reductions are computed in the component type in an order the
    target chooses. `max` and `min` propagate NaN (as `arith.maximumf` and
    `arith.minimumf` do) unless `fastmath` says otherwise: with `nnan` the
    reduction may assume that no element is NaN, which lets a target use
    its plain maximum (Vulkan's `FMax` is undefined for NaN, so without the
    flag every combining step tests for NaN). Integer reductions wrap in the component type; `add`,
    `max` and `min` exist for every integer type, `mul` only for 32-bit
    ones (a product of 8-bit values overflows after two factors). `max` and
    `min` of a matrix whose elements are already reduced the same way, or of
    a splat, fold away (not over 2x2 blocks, which change the shape).

    ```mlir
    func.func @reductions(%s: !subgroup_matrix.result<16x16xf32>)
        -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
            !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<8x8xf32>) {
      %rowmax = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<16x16xf32>
      %colsum = subgroup_matrix.reduce add columns %s : !subgroup_matrix.result<16x16xf32>
      %total = subgroup_matrix.reduce add all %s : !subgroup_matrix.result<16x16xf32>
      %fast = subgroup_matrix.reduce max rows %s fastmath<nnan>
          : !subgroup_matrix.result<16x16xf32>
      %pooled = subgroup_matrix.reduce max blocks2x2 %s
          : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<8x8xf32>
      return %rowmax, %colsum, %total, %pooled : !subgroup_matrix.result<16x16xf32>,
          !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
          !subgroup_matrix.result<8x8xf32>
    }
    ```
  }];
  let arguments = (ins SubgroupMatrix_ReductionKind:$kind,
                       SubgroupMatrix_ReductionDimensions:$dimensions,
                       SubgroupMatrix_AnyMatrix:$matrix,
                       DefaultValuedAttr<Arith_FastMathAttr,
                           "::mlir::arith::FastMathFlags::none">:$fastmath);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = [{
    $kind $dimensions $matrix (`fastmath` `` $fastmath^)? attr-dict `:`
    custom<ReducedType>(type($matrix), type($result))
  }];
  let builders = [
    // The reductions that keep the operand's type (all but blocks2x2).
    OpBuilder<(ins "::mlir::subgroup_matrix::ReductionKind":$kind,
                   "::mlir::subgroup_matrix::ReductionDimensions":$dimensions,
                   "::mlir::Value":$matrix,
                   CArg<"::mlir::arith::FastMathFlags",
                        "::mlir::arith::FastMathFlags::none">:$fastmath), [{
      build($_builder, $_state, matrix.getType(), kind, dimensions, matrix,
            fastmath);
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getMatrix().getType());
    }
    /// Combines two elements (of `component`'s storage type) as a
    /// reduction of `kind` does: wrapping integer arithmetic, signed or
    /// unsigned comparisons by the component's signedness, and the
    /// NaN-propagating float maximum and minimum, with the reduction's
    /// `fastmath` flags on the float arithmetic. Shared by the lowerings.
    ::mlir::Value buildCombine(::mlir::OpBuilder &builder,
                               ::mlir::Location loc, ::mlir::Type component,
                               ::mlir::Value x, ::mlir::Value y) {
      return buildCombine(builder, loc, getKind(), component, x, y,
                          getFastmath());
    }
    static ::mlir::Value buildCombine(::mlir::OpBuilder &builder,
                                      ::mlir::Location loc,
                                      ::mlir::subgroup_matrix::ReductionKind kind,
                                      ::mlir::Type component, ::mlir::Value x,
                                      ::mlir::Value y,
                                      ::mlir::arith::FastMathFlags fastmath =
                                          ::mlir::arith::FastMathFlags::none);
  }];
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

def SubgroupMatrix_SubgroupBarrierOp
    : SubgroupMatrix_Op<"subgroup_barrier"> {
  let summary = "wait for the subgroup; its workgroup-memory writes become "
                "visible to it";
  let description = [{
    Every invocation of the subgroup waits until all have arrived, and the
    writes each made to workgroup memory before it are visible to the
    others after it: the barrier between the steps of an operation that a
    target does through a per-subgroup tile of workgroup memory (see
    `sm-expand-through-workgroup-memory`), where a workgroup barrier would
    wait for subgroups that never reach it. It must be reached in
    subgroup-uniform control flow. Vulkan lowers it to `OpControlBarrier`
    at subgroup scope, Metal to `simdgroup_barrier(mem_flags::mem_threadgroup)`,
    Intel to `__spirv_ControlBarrier` at subgroup scope.

    ```mlir
    gpu.module @kernels {
      gpu.func @exchange(%out: memref<32xf32>) kernel
          attributes {known_block_size = array<i32: 32, 1, 1>} {
        %tile = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
        %lane = gpu.lane_id
        %c31 = arith.constant 31 : index
        %value = arith.index_cast %lane : index to i32
        %x = arith.sitofp %value : i32 to f32
        memref.store %x, %tile[%lane] : memref<32xf32, #gpu.address_space<workgroup>>
        subgroup_matrix.subgroup_barrier
        // Each invocation reads what another one wrote.
        %other = arith.subi %c31, %lane : index
        %y = memref.load %tile[%other] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%lane] : memref<32xf32>
        gpu.return
      }
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD
