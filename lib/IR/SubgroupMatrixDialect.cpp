//===- SubgroupMatrixDialect.cpp - subgroup_matrix dialect ----------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

#include "SubgroupMatrix/IR/SubgroupMatrixEnums.cpp.inc"
#include "SubgroupMatrix/IR/SubgroupMatrixOpsDialect.cpp.inc"

void SubgroupMatrixDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "SubgroupMatrix/IR/SubgroupMatrixOps.cpp.inc"
      >();
}

LogicalResult
SubgroupMatrixDialect::verifyOperationAttribute(Operation *op,
                                                NamedAttribute attribute) {
  if (attribute.getName() == getLaunchAttrName()) {
    if (!isa<LaunchAttr>(attribute.getValue()))
      return op->emitError() << "'" << getLaunchAttrName()
                             << "' must be a #subgroup_matrix.launch";
    return success();
  }
  if (attribute.getName() == getEmulatedAttrName() ||
      attribute.getName() == getEmulateAttrName()) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << attribute.getName().getValue()
                             << "' must be a unit attribute";
    return success();
  }
  if (attribute.getName() == getPlanAttrName()) {
    if (!isa<ContractionPlanAttr, DotProductPlanAttr, AttentionPlanAttr,
             DecodeAttentionPlanAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << getPlanAttrName()
             << "' must be a #subgroup_matrix.contraction_plan, "
                "#subgroup_matrix.dot_product_plan, "
                "#subgroup_matrix.attention_plan or "
                "#subgroup_matrix.decode_attention_plan attribute, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() == getFusionGroupAttrName()) {
    if (!isa<IntegerAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << getFusionGroupAttrName()
             << "' must be an integer attribute, got " << attribute.getValue();
    return success();
  }
  if (attribute.getName() != getTargetAttrName())
    return op->emitError() << "unknown attribute '"
                           << attribute.getName().strref()
                           << "' of the subgroup_matrix dialect";
  if (!isa<TargetAttr>(attribute.getValue()))
    return op->emitError()
           << "'" << getTargetAttrName()
           << "' must be a #subgroup_matrix.target attribute, got "
           << attribute.getValue();
  return success();
}

//===----------------------------------------------------------------------===//
// Type rules shared by types, attributes and ops
//===----------------------------------------------------------------------===//

StringRef mlir::subgroup_matrix::stringifyMatrixKind(MatrixKind kind) {
  switch (kind) {
  case MatrixKind::Left:
    return "left";
  case MatrixKind::Right:
    return "right";
  case MatrixKind::Result:
    return "result";
  }
  llvm_unreachable("unknown matrix kind");
}

bool mlir::subgroup_matrix::isValidComponentType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32())
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  return intType && !intType.isSignless() &&
         (intType.getWidth() == 8 || intType.getWidth() == 32);
}

bool mlir::subgroup_matrix::isValidAccumulatorType(Type component,
                                                   Type result) {
  if (component.isF16())
    return result.isF16() || result.isF32();
  if (component.isBF16() || component.isF32())
    return result.isF32();
  auto componentInt = dyn_cast<IntegerType>(component);
  auto resultInt = dyn_cast<IntegerType>(result);
  if (!componentInt || !resultInt || componentInt.isSignless())
    return false;
  // Integers accumulate into the 32-bit integer of the same signedness.
  return resultInt.getWidth() == 32 &&
         resultInt.getSignedness() == componentInt.getSignedness() &&
         (componentInt.getWidth() == 8 || componentInt.getWidth() == 32);
}

Type mlir::subgroup_matrix::getStorageType(Type component) {
  if (auto intType = dyn_cast<IntegerType>(component))
    return IntegerType::get(component.getContext(), intType.getWidth());
  return component;
}

Type mlir::subgroup_matrix::getScalarType(Type component) {
  if (isa<IntegerType>(component))
    return IntegerType::get(component.getContext(), 32);
  return component;
}

SubgroupMatrixTypeInterface
mlir::subgroup_matrix::getMatrixType(MatrixKind kind, unsigned rows,
                                     unsigned columns, Type component,
                                     MatrixScope scope) {
  MLIRContext *context = component.getContext();
  switch (kind) {
  case MatrixKind::Left:
    return LeftMatrixType::get(context, rows, columns, component, scope);
  case MatrixKind::Right:
    return RightMatrixType::get(context, rows, columns, component, scope);
  case MatrixKind::Result:
    return ResultMatrixType::get(context, rows, columns, component, scope);
  }
  llvm_unreachable("unknown matrix kind");
}

bool mlir::subgroup_matrix::isValidComponentConversion(Type from, Type to) {
  if (!isValidComponentType(from) || !isValidComponentType(to))
    return false;
  // Every integer and float type converts to a float type; integers convert
  // among themselves; nothing converts from float to integer.
  return isa<FloatType>(to) || isa<IntegerType>(from);
}

bool mlir::subgroup_matrix::isValidReduction(ReductionKind kind,
                                             Type component) {
  auto integer = dyn_cast<IntegerType>(component);
  return !integer || kind != ReductionKind::Mul || integer.getWidth() == 32;
}
