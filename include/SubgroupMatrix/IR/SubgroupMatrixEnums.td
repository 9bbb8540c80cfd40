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
      I32EnumAttrCase<"All", 2, "all">,
      I32EnumAttrCase<"Blocks2x2", 3, "blocks2x2">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
}

def SubgroupMatrix_MatrixScope : I32EnumAttr<"MatrixScope",
    "the invocations that hold a matrix together and execute its ops", [
      I32EnumAttrCase<"Subgroup", 0, "subgroup">,
      I32EnumAttrCase<"Workgroup", 1, "workgroup">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
  let genSpecializedAttr = 0;
}

def SubgroupMatrix_CooperativeMatrix2Feature
    : I32BitEnumAttr<"CooperativeMatrix2Feature",
    "the VK_NV_cooperative_matrix2 features of a device", [
      I32BitEnumAttrCaseNone<"None", "none">,
      I32BitEnumAttrCaseBit<"WorkgroupScope", 0, "workgroup_scope">,
      I32BitEnumAttrCaseBit<"FlexibleDimensions", 1, "flexible_dimensions">,
      I32BitEnumAttrCaseBit<"Reductions", 2, "reductions">,
      I32BitEnumAttrCaseBit<"Conversions", 3, "conversions">,
      I32BitEnumAttrCaseBit<"PerElementOperations", 4,
                            "per_element_operations">,
      I32BitEnumAttrCaseBit<"TensorAddressing", 5, "tensor_addressing">,
      I32BitEnumAttrCaseBit<"BlockLoads", 6, "block_loads">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
  let separator = ", ";
  let genSpecializedAttr = 0;
}

def SubgroupMatrix_Vendor : I32EnumAttr<"Vendor",
    "who made a target's device (its driver's vendor ID)", [
      I32EnumAttrCase<"Unknown", 0, "unknown">,
      I32EnumAttrCase<"Nvidia", 1, "nvidia">,
      I32EnumAttrCase<"Amd", 2, "amd">,
      I32EnumAttrCase<"Intel", 3, "intel">,
      I32EnumAttrCase<"Apple", 4, "apple">,
      I32EnumAttrCase<"Mesa", 5, "mesa">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
  let genSpecializedAttr = 0;
}

def SubgroupMatrix_TargetBackend : I32EnumAttr<"TargetBackend",
    "what a target's kernels are lowered to and run by", [
      I32EnumAttrCase<"Vulkan", 0, "vulkan">,
      I32EnumAttrCase<"OpenCL", 1, "opencl">,
      I32EnumAttrCase<"Metal", 2, "metal">
    ]> {
  let cppNamespace = "::mlir::subgroup_matrix";
  let genSpecializedAttr = 0;
}

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXENUMS_TD
