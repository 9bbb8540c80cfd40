//===- SubgroupMatrixToInvocations.cpp - the per-invocation form ---------===//
//
// Lowers subgroup matrices to the per-invocation form, first the one
// SPV_INTEL_subgroup_matrix_multiply_accumulate works on: every invocation
// holds its own slice of each matrix (InvocationLayout says which), loads and
// stores move each invocation's elements with the op's stride and layout,
// and `mma` becomes calls of __spirv_SubgroupMatrixMultiplyAccumulateINTEL,
// one per 8-row chunk and per subgroup-wide column tile.
//
// The same patterns build the emulated form for devices without matrix units
// (InvocationLayout::getEmulated): every matrix is a list of scalars per
// invocation (a 1:N type conversion, since Vulkan shaders have no vectors
// longer than four) and `mma` is a sequence of multiply-adds whose operands
// come from other invocations by subgroup shuffles.
//
//===----------------------------------------------------------------------===//

#include "InvocationBuilder.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::per_invocation;

LogicalResult mlir::subgroup_matrix::checkPerInvocationForm(
    Operation *root, unsigned subgroupSize, bool emulated) {
  StringRef cannot = emulated ? "cannot be emulated: "
                              : "cannot be lowered to the Intel form: ";
  bool expressible = true;
  root->walk([&](Operation *op) {
    if (!isa<SubgroupMatrixDialect>(op->getDialect()))
      return;
    if (isa<SubgroupBarrierOp>(op))
      return;
    // Packed memrefs (i32 words holding several components) are a Vulkan
    // lowering detail; per-invocation accesses address components.
    MemRefType memref;
    if (auto load = dyn_cast<LoadOp>(op))
      memref = load.getMemRefType();
    else if (auto store = dyn_cast<StoreOp>(op))
      memref = store.getMemRefType();
    if (memref && isa<VectorType>(memref.getElementType())) {
      op->emitOpError(cannot)
          << memref
          << " packs components into words; use a memref of the storage "
             "type";
      expressible = false;
      return;
    }
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type type : types) {
      auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
      std::string error;
      if (matrix && failed(InvocationLayout::get(matrix, subgroupSize, emulated,
                                                 error))) {
        // The Intel form's messages name the instruction's rule already.
        op->emitOpError(emulated ? cannot : StringRef()) << error;
        expressible = false;
        return;
      }
    }
  });
  return success(expressible);
}

void mlir::subgroup_matrix::populateEmulatedSubgroupMatrixTypeConversion(
    TypeConverter &converter, unsigned subgroupSize) {
  converter.addConversion([subgroupSize](SubgroupMatrixTypeInterface type,
                                         SmallVectorImpl<Type> &results)
                              -> std::optional<LogicalResult> {
    std::string error;
    FailureOr<InvocationLayout> layout =
        InvocationLayout::getEmulated(type, subgroupSize, error);
    if (failed(layout))
      return std::nullopt;
    results.append(layout->packedCount, layout->packedElement);
    return success();
  });
}

int64_t mlir::subgroup_matrix::getEmulatedExchangeWords(Operation *root,
                                                        unsigned subgroupSize) {
  int64_t words = 0;
  root->walk([&](Operation *op) {
    Value left, right;
    if (auto mma = dyn_cast<MmaOp>(op))
      left = mma.getLeft(), right = mma.getRight();
    else if (auto multiply = dyn_cast<MultiplyOp>(op))
      left = multiply.getLeft(), right = multiply.getRight();
    else
      return;
    std::string error;
    FailureOr<InvocationLayout> leftLayout = InvocationLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(left.getType()), subgroupSize, error);
    FailureOr<InvocationLayout> rightLayout = InvocationLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(right.getType()), subgroupSize,
        error);
    if (succeeded(leftLayout) && succeeded(rightLayout))
      words = std::max(words, getExchangeWords(*leftLayout, *rightLayout));
  });
  return words;
}

void mlir::subgroup_matrix::populateEmulatedSubgroupMatrixPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, const EmulatedOperandExchange &exchange) {
  populateMemoryPatterns(converter, patterns, subgroupSize,
                         /*emulated=*/true);
  populateScalarOpPatterns(converter, patterns, subgroupSize,
                           /*emulated=*/true);
  populateRegisterPatterns(converter, patterns, subgroupSize,
                           /*emulated=*/true);
  populateEmulatedMultiplyPatterns(converter, patterns, subgroupSize, exchange);
}

void mlir::subgroup_matrix::populateSubgroupMatrixToIntelTypeConversion(
    TypeConverter &converter, unsigned subgroupSize) {
  converter.addConversion(
      [subgroupSize](SubgroupMatrixTypeInterface type) -> std::optional<Type> {
        std::string error;
        FailureOr<InvocationLayout> layout =
            InvocationLayout::get(type, subgroupSize, error);
        if (failed(layout))
          return std::nullopt;
        return layout->getVectorType();
      });
}

void mlir::subgroup_matrix::populateSubgroupMatrixToIntelPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize) {
  populateMemoryPatterns(converter, patterns, subgroupSize,
                         /*emulated=*/false);
  populateMultiplyPatterns(converter, patterns, subgroupSize,
                           /*emulated=*/false);
  populateScalarOpPatterns(converter, patterns, subgroupSize,
                           /*emulated=*/false);
  populateRegisterPatterns(converter, patterns, subgroupSize,
                           /*emulated=*/false);
}
