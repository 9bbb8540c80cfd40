//===- KernelBuilder.cpp - what this library's kernels build with ---------===//
//
// The index arithmetic and the global-to-workgroup tile copy that the
// contraction and attention kernels share (KernelBuilder.h).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

Value KernelBuilder::index(int64_t value) {
  if (!constantBlock)
    return arith::ConstantIndexOp::create(b, loc, value);
  Value &constant = indexConstants[value];
  if (!constant) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(constantBlock);
    constant = arith::ConstantIndexOp::create(b, loc, value);
  }
  return constant;
}

Value KernelBuilder::zeroOf(Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

Type KernelBuilder::getCopyType(const WorkgroupTileCopy &copy) {
  if (copy.width == 1)
    return copy.storage.isBF16() ? b.getI16Type() : copy.storage;
  int64_t words = copy.width * copy.storage.getIntOrFloatBitWidth() / 32;
  return VectorType::get({words}, b.getI32Type());
}

void KernelBuilder::computeRowMajorCopyPositions(WorkgroupTileCopy &copy,
                                                 Value threadId,
                                                 int64_t threads) {
  int64_t vectorsPerRow = copy.tileCols / copy.width;
  int64_t vectors = copy.tileRows * vectorsPerRow;
  for (int64_t first = 0; first < vectors; first += threads) {
    Value row, column, active;
    if (threads % vectorsPerRow == 0) {
      // Every invocation stays in one column: cheaper index arithmetic.
      Value threadRow =
          arith::DivUIOp::create(b, loc, threadId, index(vectorsPerRow));
      row = add(threadRow, first / vectorsPerRow);
      column = arith::RemUIOp::create(b, loc, threadId, index(vectorsPerRow));
      // Vector `threadId + first` is in the tile when its row is.
      if (first + threads > vectors)
        active = lessThan(row, copy.tileRows);
    } else {
      Value vector = add(threadId, first);
      row = arith::DivUIOp::create(b, loc, vector, index(vectorsPerRow));
      column = arith::RemUIOp::create(b, loc, vector, index(vectorsPerRow));
      if (first + threads > vectors)
        active = lessThan(vector, vectors);
    }
    column = mul(column, copy.width);
    copy.rows.push_back(row);
    copy.columns.push_back(column);
    copy.sharedOffsets.push_back(add(mul(row, copy.sharedStride), column));
    copy.active.push_back(active);
  }
}

Value KernelBuilder::loadCopy(const WorkgroupTileCopy &copy, Value row,
                              Value column, Value inBounds,
                              function_ref<Value(Value)> transform) {
  Type copyType = getCopyType(copy);
  Value address = add(
      mul(row, copy.globalStride ? copy.globalStride : copy.colsValue), column);
  // Rather than branch around the load, read an element that is always
  // there and replace it by zero.
  if (inBounds)
    address = arith::SelectOp::create(b, loc, inBounds, address, index(0));
  if (copy.batchBase)
    address = add(copy.batchBase, address);
  Value value;
  if (copy.width == 1) {
    value = memref::LoadOp::create(b, loc, copy.global, address);
    if (value.getType() != copyType)
      value = arith::BitcastOp::create(b, loc, copyType, value);
  } else {
    auto vectorType = VectorType::get({copy.width}, copy.storage);
    Value vector =
        vector::LoadOp::create(b, loc, vectorType, copy.global, address);
    value = vector::BitCastOp::create(b, loc, copyType, vector);
  }
  if (transform)
    value = transform(value);
  if (inBounds)
    value = arith::SelectOp::create(b, loc, inBounds, value, zeroOf(copyType));
  return value;
}

void KernelBuilder::storeCopies(const WorkgroupTileCopy &copy,
                                Value stageOffset,
                                function_ref<Value(size_t)> valueOf) {
  for (auto [i, offset] : llvm::enumerate(copy.sharedOffsets)) {
    OpBuilder::InsertionGuard guard(b);
    if (Value active = copy.active[i]) {
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    Value value = valueOf(i);
    Value address = stageOffset ? add(stageOffset, offset) : offset;
    if (copy.width == 1) {
      if (value.getType() != copy.storage)
        value = arith::BitcastOp::create(b, loc, copy.storage, value);
      memref::StoreOp::create(b, loc, value, copy.shared, address);
      continue;
    }
    auto vectorType = VectorType::get({copy.width}, copy.storage);
    Value vector = vector::BitCastOp::create(b, loc, vectorType, value);
    vector::StoreOp::create(b, loc, vector, copy.shared, address);
  }
}

Value KernelBuilder::applyEpilogueToScalar(
    const Contraction &problem, Value value,
    function_ref<Value(unsigned)> loadOperand) {
  for (const EpilogueStep &step : problem.epilogue) {
    Block &body = step.op.getRegion().front();
    IRMapping mapping;
    for (auto [position, operand] : llvm::enumerate(step.operandOf))
      mapping.map(body.getArgument(position),
                  operand < 0 ? value : loadOperand(unsigned(operand)));
    value = cloneScalarBody(b, body, mapping);
  }
  return value;
}

gpu::GPUFuncOp KernelBuilder::createKernelFunction(OpBuilder &moduleBuilder,
                                                   StringRef name,
                                                   ArrayRef<Type> arguments,
                                                   ArrayRef<Type> attributions,
                                                   int64_t threads) {
  auto kernel = gpu::GPUFuncOp::create(
      moduleBuilder, loc, name,
      FunctionType::get(moduleBuilder.getContext(), arguments, {}),
      attributions);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  moduleBuilder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(threads), 1, 1}));
  constantBlock = &kernel.getBody().front();
  b.setInsertionPointToEnd(constantBlock);
  return kernel;
}

Value KernelBuilder::addAcrossLanes(Value value, int64_t lanes,
                                    int64_t subgroupSize) {
  Type type = value.getType();
  Value width =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), subgroupSize);
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
    Value distance =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    // Shuffled as 32-bit words, which every path moves (the Intel host
    // runner's OpenCL library has no float shuffles).
    Value word = type == b.getI32Type()
                     ? value
                     : arith::BitcastOp::create(b, loc, b.getI32Type(), value)
                           .getResult();
    Value other = gpu::ShuffleOp::create(b, loc, word, distance, width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    if (other.getType() != type)
      other = arith::BitcastOp::create(b, loc, type, other);
    value = isa<FloatType>(type)
                ? arith::AddFOp::create(b, loc, value, other).getResult()
                : arith::AddIOp::create(b, loc, value, other).getResult();
  }
  return value;
}
