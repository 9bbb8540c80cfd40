//===- SubgroupMatrixEnums.td - subgroup_matrix enums ------*- tablegen -*-===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXENUMS_TD
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXENUMS_TD

include "mlir/IR/EnumAttr.td"

def SubgroupMatrix_ReductionKind : I32EnumAttr<"ReductionKind",
    "the operation a reduction combines elements with", [
      I32EnumAttrCase<"Add", 0, "add">,
      I32EnumAttrCase<"Mul", 1, "mul">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
}

def SubgroupMatrix_ReductionDimensions : I32EnumAttr<"ReductionDimensions",
    "the elements a reduction combines", [
      I32EnumAttrCase<"Rows", 0, "rows">,
      I32EnumAttrCase<"Columns", 1, "columns">,
      I32EnumAttrCase<"All", 2, "all">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
}

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXENUMS_TD
