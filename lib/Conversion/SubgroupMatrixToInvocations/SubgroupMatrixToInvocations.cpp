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

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// Whether `operand` (of an `mma` or `multiply`) can be read in place: see
/// findOperandsReadInPlace.
static bool canReadInPlace(OpOperand &operand) {
  Operation *multiply = operand.getOwner();
  auto load = operand.get().getDefiningOp<LoadOp>();
  if (!load || load->getBlock() != multiply->getBlock())
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
      load.getMemRefType().getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return false;
  for (Operation *between = load->getNextNode(); between != multiply;
       between = between->getNextNode()) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(between);
    if (!effects)
      return false;
    for (const MemoryEffects::EffectInstance &effect : *effects)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        return false;
  }
  return true;
}

DenseSet<OpOperand *>
mlir::subgroup_matrix::findOperandsReadInPlace(Operation *root) {
  DenseSet<OpOperand *> readInPlace;
  root->walk([&](Operation *op) {
    if (!isa<MmaOp, MultiplyOp>(op))
      return;
    // The left and right operands come first in both ops.
    for (OpOperand &operand : op->getOpOperands().take_front(2))
      if (canReadInPlace(operand))
        readInPlace.insert(&operand);
  });
  return readInPlace;
}

int64_t mlir::subgroup_matrix::getEmulatedExchangeWords(
    Operation *root, unsigned subgroupSize,
    const DenseSet<OpOperand *> &readInPlace) {
  int64_t words = 0;
  root->walk([&](Operation *op) {
    if (!isa<MmaOp, MultiplyOp>(op))
      return;
    OpOperand &left = op->getOpOperand(0), &right = op->getOpOperand(1);
    std::string error;
    FailureOr<InvocationLayout> leftLayout = InvocationLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(left.get().getType()), subgroupSize,
        error);
    FailureOr<InvocationLayout> rightLayout = InvocationLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(right.get().getType()), subgroupSize,
        error);
    if (succeeded(leftLayout) && succeeded(rightLayout))
      words = std::max(words, getExchangeWords(*leftLayout, *rightLayout,
                                               readInPlace.contains(&left),
                                               readInPlace.contains(&right)));
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

/// Gives `function` the workgroup scratch its emulated multiplications
/// exchange operands through: one region per subgroup of the workgroup
/// (its size from `known_block_size`), for the operands it does not read in
/// place (`readInPlace`). Returns an exchange without scratch when there
/// are none; fails when its workgroup size is unknown.
static FailureOr<EmulatedOperandExchange>
createWorkgroupExchange(Operation *function, unsigned subgroupSize,
                        DenseSet<OpOperand *> readInPlace) {
  int64_t words = getEmulatedExchangeWords(function, subgroupSize, readInPlace);
  EmulatedOperandExchange exchange;
  exchange.readInPlace = std::move(readInPlace);
  if (!words)
    return exchange;
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function);
  std::optional<ArrayRef<int32_t>> blockSize =
      kernel ? kernel.getKnownBlockSize() : std::nullopt;
  if (!blockSize)
    return function->emitOpError(
               "cannot exchange emulated operands through workgroup memory "
               "without a known_block_size, which sizes the scratch buffer; "
               "use emulated-exchange=subgroup"),
           failure();
  int64_t invocations = 1;
  for (int32_t size : *blockSize)
    invocations *= size;
  int64_t subgroups = llvm::divideCeil(invocations, subgroupSize);
  OpBuilder builder = OpBuilder::atBlockBegin(&kernel.getBody().front());
  MLIRContext *context = function->getContext();
  auto type = MemRefType::get(
      {subgroups * words}, IntegerType::get(context, 32),
      MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
  exchange.scratch = memref::AllocOp::create(builder, kernel.getLoc(), type);
  exchange.wordsPerSubgroup = words;
  return exchange;
}

LogicalResult mlir::subgroup_matrix::emulateSubgroupMatrices(
    Operation *function, unsigned subgroupSize, bool exchangeThroughWorkgroup) {
  if (failed(checkPerInvocationForm(function, subgroupSize,
                                    /*emulated=*/true)))
    return failure();
  // Operands staged in workgroup memory are read there in place wherever
  // the exchange would go through workgroup memory too; with broadcasts
  // (lavapipe, where a broadcast is a register move and a workgroup-memory
  // read a gather) they are exchanged as before.
  EmulatedOperandExchange exchange;
  if (exchangeThroughWorkgroup) {
    FailureOr<EmulatedOperandExchange> created = createWorkgroupExchange(
        function, subgroupSize, findOperandsReadInPlace(function));
    if (failed(created))
      return failure();
    exchange = std::move(*created);
  }

  MLIRContext *context = function->getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  populateEmulatedSubgroupMatrixTypeConversion(converter, subgroupSize);
  ConversionTarget target(*context);
  target.addIllegalDialect<SubgroupMatrixDialect>();
  // A barrier holds no matrix: the SPIR-V conversion lowers it.
  target.addLegalOp<SubgroupBarrierOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(context);
  populateEmulatedSubgroupMatrixPatterns(converter, patterns, subgroupSize,
                                         exchange);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(function, target, std::move(patterns))))
    return failure();
  // The emulation computes bf16 in f32; its conversions become integer
  // arithmetic on the bits, since devices without matrix units have no bf16.
  RewritePatternSet expansions(context);
  arith::populateExpandBFloat16Patterns(expansions);
  return applyPatternsGreedily(function, std::move(expansions));
}
