//===- SubgroupMatrixTypes.td - subgroup_matrix types ------*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXTYPES_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXTYPES_TD

include "SubgroupMatrix/IR/SubgroupMatrixBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class SubgroupMatrix_MatrixType<string name, string typeMnemonic,
                                string rowsName,
                                string colsName>
    : TypeDef<SubgroupMatrix_Dialect, name,
              [DeclareTypeInterfaceMethods<SubgroupMatrix_MatrixTypeInterface,
                                           ["getKind"]>]> {
  let mnemonic = typeMnemonic;
  let parameters = (ins "unsigned":$rows, "unsigned":$columns,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<
                            "::mlir::subgroup_matrix::MatrixScope",
                            "::mlir::subgroup_matrix::MatrixScope::Subgroup">
                            :$scope);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 0;
  let builders = [
    TypeBuilder<(ins "unsigned":$rows, "unsigned":$columns,
                     "::mlir::Type":$elementType), [{
      return $_get($_ctxt, rows, columns, elementType,
                   ::mlir::subgroup_matrix::MatrixScope::Subgroup);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Number of rows in the multiplication shape (M or K).
    unsigned get}] # rowsName # [{() const { return getRows(); }
    /// Number of columns in the multiplication shape (K or N).
    unsigned get}] # colsName # [{() const { return getColumns(); }
    /// Whether the whole workgroup holds the matrix (VK_NV_cooperative_matrix2's
    /// workgroup scope) rather than one subgroup.
    bool isWorkgroupScope() const {
      return getScope() == ::mlir::subgroup_matrix::MatrixScope::Workgroup;
    }
  }];
}

def SubgroupMatrix_LeftMatrixType
    : SubgroupMatrix_MatrixType<"LeftMatrix", "left", "M", "K"> {
  let summary = "left operand (A) of a matrix multiplication, M x K";
  let description = [{
    The left operand of `mma` and `multiply`: `M` rows and `K` columns of
    component type `T`, spread over the invocations of a subgroup. Maps to a
    `MatrixAKHR` cooperative matrix in SPIR-V and to a `simdgroup_matrix` in
    MSL.

    ```mlir
    !subgroup_matrix.left<16x32xsi8>   // M = 16, K = 32
    ```

    Every matrix type may end in `workgroup`: the matrix is then held by
    all the invocations of a workgroup together (SPIR-V's `Workgroup`
    scope, which `VK_NV_cooperative_matrix2` offers where the device lists
    `workgroup_scope`), every op on it runs in all of them, and the target
    says which shapes a workgroup of how many invocations may hold
    (`flexible_granularities` entries with `workgroup = N`).

    ```mlir
    !subgroup_matrix.left<64x32xf16, workgroup>
    ```
  }];
}

def SubgroupMatrix_RightMatrixType
    : SubgroupMatrix_MatrixType<"RightMatrix", "right", "K", "N"> {
  let summary = "right operand (B) of a matrix multiplication, K x N";
  let description = [{
    The right operand of `mma` and `multiply`: `K` rows and `N` columns of
    component type `T`. Maps to a `MatrixBKHR` cooperative matrix in SPIR-V.

    ```mlir
    !subgroup_matrix.right<32x16xsi8>  // K = 32, N = 16
    ```
  }];
}

def SubgroupMatrix_ResultMatrixType
    : SubgroupMatrix_MatrixType<"ResultMatrix", "result", "M", "N"> {
  let summary = "accumulator and result of a matrix multiplication, M x N";
  let description = [{
    The accumulator operand and the result of `mma` and `multiply`: `M` rows
    and `N` columns. Maps to a `MatrixAccumulatorKHR` cooperative matrix in
    SPIR-V.

    ```mlir
    !subgroup_matrix.result<16x16xsi32>
    ```
  }];
}

def SubgroupMatrix_AnyMatrix
    : Type<CPred<"::llvm::isa<::mlir::subgroup_matrix::"
                 "SubgroupMatrixTypeInterface>($_self)">,
           "any subgroup matrix",
           "::mlir::subgroup_matrix::SubgroupMatrixTypeInterface">;

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXTYPES_TD
