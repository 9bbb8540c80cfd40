//===- SubgroupMatrixOps.td - subgroup_matrix operations ---*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD

include "SubgroupMatrix/IR/SubgroupMatrixBase.td"
include "SubgroupMatrix/IR/SubgroupMatrixTypes.td"
include "SubgroupMatrix/IR/SubgroupMatrixAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class SubgroupMatrix_Op<string mnemonic, list<Trait> traits = []>
    : Op<SubgroupMatrix_Dialect, mnemonic, traits>;

/// The scalar types a program can hand to `splat` and the scalar ops: the
/// float component type itself, or `i32` for every integer component type.
def SubgroupMatrix_ScalarType : AnyTypeOf<[F16, BF16, F32, I32]>;

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

def SubgroupMatrix_LoadOp : SubgroupMatrix_Op<"load"> {
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

    ```mlir
    %a = subgroup_matrix.load %buf[%i, %j] stride %s
        : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
    %b = subgroup_matrix.load %wg[%off] stride %s col_major
        : memref<4096xf16, #gpu.address_space<workgroup>>
          -> !subgroup_matrix.right<16x16xf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the memory to read", [MemRead]>:$source,
                       Variadic<Index>:$indices, Index:$stride,
                       UnitAttr:$col_major);
  let results = (outs SubgroupMatrix_AnyMatrix:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` `stride` $stride (`col_major` $col_major^)?
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::subgroup_matrix::SubgroupMatrixTypeInterface getMatrixType() {
      return ::llvm::cast<::mlir::subgroup_matrix::SubgroupMatrixTypeInterface>(
          getResult().getType());
    }
    ::mlir::MemRefType getMemRefType() {
      return ::llvm::cast<::mlir::MemRefType>(getSource().getType());
    }
  }];
}

def SubgroupMatrix_StoreOp : SubgroupMatrix_Op<"store"> {
  let summary = "store a subgroup matrix to memory";
  let description = [{
    Stores `value` to `target`, with the addressing of `subgroup_matrix.load`:
    the indices address where element [0, 0] goes and `stride` counts memref
    elements between consecutive rows (or columns with `col_major`).

    ```mlir
    subgroup_matrix.store %d, %out[%i, %j] stride %s
        : !subgroup_matrix.result<16x16xf32>, memref<?x?xf32>
    ```
  }];
  let arguments = (ins SubgroupMatrix_AnyMatrix:$value,
                       Arg<AnyMemRef, "the memory to write", [MemWrite]>:$target,
                       Variadic<Index>:$indices, Index:$stride,
                       UnitAttr:$col_major);
  let assemblyFormat = [{
    $value `,` $target `[` $indices `]` `stride` $stride
    (`col_major` $col_major^)? attr-dict `:` type($value) `,` type($target)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
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
    %zero = arith.constant 0.0 : f32
    %c = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
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
    %d = subgroup_matrix.mma %a, %b, %c
        : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
          -> !subgroup_matrix.result<16x16xf32>
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
    %e = subgroup_matrix.multiply %a, %b
        : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
          -> !subgroup_matrix.result<16x16xf32>
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
    %r = subgroup_matrix.}] # mnemonic # [{ %m, %s
        : !subgroup_matrix.result<16x16xf32>, f32
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

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXOPS_TD
