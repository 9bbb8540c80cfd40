//===- ScalarAccesses.cpp - host reads and writes of single elements ------===//
//
// `sm-scalar-accesses-to-generics`: the elements a host function stores
// (tensor.from_elements, tensor.insert) and the elements that linalg ops
// read through host loads (tensor.extract of a scale, an argmax's index)
// are moved by kernels: the runtime moves whole buffers only.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_SCALARACCESSESTOGENERICSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;

/// Whether `op` runs on the host: not in a kernel, not in a linalg body.
static bool isHostOp(Operation *op) {
  return !op->getParentOfType<gpu::GPUModuleOp>() &&
         !op->getParentOfType<linalg::LinalgOp>();
}

/// The ops of `block` that compute `value` from device data: the host
/// loads it reads and the arith and math ops on their results, in program
/// order (empty where the host knows `value`). Failure where device data
/// reaches `value` through any other op (a branch, a loop).
static FailureOr<SmallVector<Operation *>> getDeviceSlice(Value value,
                                                          Block *block) {
  llvm::SetVector<Operation *> slice;
  DenseMap<Value, bool> known;
  std::function<FailureOr<bool>(Value)> readsDevice =
      [&](Value v) -> FailureOr<bool> {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return false;
    if (auto found = known.find(v); found != known.end())
      return found->second;
    bool reads = false;
    if (isa<memref::LoadOp>(def)) {
      reads = true;
    } else {
      for (Value operand : def->getOperands()) {
        FailureOr<bool> operandReads = readsDevice(operand);
        if (failed(operandReads))
          return failure();
        reads |= *operandReads;
      }
      if (reads &&
          (!isa<arith::ArithDialect, math::MathDialect>(def->getDialect()) ||
           def->getNumRegions() || !isPure(def)))
        return failure();
    }
    if (reads)
      slice.insert(def);
    known[v] = reads;
    return reads;
  };
  if (failed(readsDevice(value)))
    return failure();
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Whether no op after `from` and before `to` (in one block) may write
/// memory, so that a load moved from `from` to `to` reads the same value.
static bool nothingWritesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return false;
  }
  return true;
}

/// Whether the loads of `slice` can move to `point`: their buffers are
/// static row-major arrays (what a kernel's gathers read) and nothing
/// writes memory in between.
static bool canMoveLoads(ArrayRef<Operation *> slice, Operation *point) {
  return llvm::all_of(slice, [&](Operation *op) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load)
      return true;
    MemRefType type = load.getMemRefType();
    return type.hasStaticShape() && type.getLayout().isIdentity() &&
           !type.getMemorySpace() && nothingWritesBetween(load, point);
  });
}

/// The map from `loops` loops to the constant position `indices` spell,
/// or none where one is not a constant.
static std::optional<AffineMap>
getConstantPosition(ValueRange indices, unsigned loops, MLIRContext *context) {
  std::optional<SmallVector<int64_t>> position =
      getConstantIntValues(getAsOpFoldResult(indices));
  if (!position)
    return std::nullopt;
  SmallVector<AffineExpr> results;
  for (int64_t index : *position)
    results.push_back(getAffineConstantExpr(index, context));
  return AffineMap::get(loops, 0, results, context);
}

/// A host store of one element becomes a generic of no loops that writes
/// it: the stored value's device slice is computed in its body, the loads
/// in it read by the kernel.
static void rewriteStore(RewriterBase &rewriter, memref::StoreOp store) {
  std::optional<AffineMap> map =
      getConstantPosition(store.getIndices(), 0, rewriter.getContext());
  FailureOr<SmallVector<Operation *>> slice =
      getDeviceSlice(store.getValueToStore(), store->getBlock());
  if (!map || failed(slice) || !canMoveLoads(*slice, store) ||
      !store.getMemRefType().getLayout().isIdentity())
    return;
  rewriter.setInsertionPoint(store);
  linalg::GenericOp::create(
      rewriter, store.getLoc(), TypeRange{}, ValueRange{},
      ValueRange{store.getMemRef()}, ArrayRef<AffineMap>{*map},
      ArrayRef<utils::IteratorType>{},
      [&](OpBuilder &builder, Location bodyLoc, ValueRange) {
        IRMapping mapping;
        for (Operation *op : *slice)
          builder.clone(*op, mapping);
        linalg::YieldOp::create(
            builder, bodyLoc, mapping.lookupOrDefault(store.getValueToStore()));
      });
  rewriter.eraseOp(store);
}

/// Values from device data that a host linalg op's body uses (captured
/// from outside) are computed in the body instead, the loads in them read
/// by the kernel; a scalar input that is a load of a constant position
/// becomes an input of the loaded buffer at that position.
static void rewriteReader(RewriterBase &rewriter, linalg::LinalgOp op) {
  Block *block = op->getBlock();
  // Scalar inputs (a fill's value) first, as generics' inputs.
  bool readsLoad = llvm::any_of(op.getDpsInputs(), [&](Value input) {
    return input.getDefiningOp<memref::LoadOp>() &&
           input.getDefiningOp()->getBlock() == block;
  });
  if (readsLoad && !isa<linalg::GenericOp>(op)) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return;
    op = *generic;
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      auto load = input->get().getDefiningOp<memref::LoadOp>();
      if (!load || load->getBlock() != block)
        continue;
      std::optional<AffineMap> map = getConstantPosition(
          load.getIndices(), generic.getNumLoops(), rewriter.getContext());
      if (!map || !canMoveLoads({load}, op) ||
          !load.getMemRefType().getLayout().isIdentity())
        continue;
      maps[input->getOperandNumber()] = *map;
      rewriter.modifyOpInPlace(generic, [&]() {
        input->set(load.getMemRef());
        generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
    }
  }
  // Captured values, computed at the start of the body.
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *inner) {
    if (inner == op.getOperation())
      return;
    for (Value operand : inner->getOperands())
      if (operand.getParentBlock() == block)
        captured.insert(operand);
  });
  Block &body = op->getRegion(0).front();
  for (Value value : captured) {
    FailureOr<SmallVector<Operation *>> slice = getDeviceSlice(value, block);
    if (failed(slice) || slice->empty() || !canMoveLoads(*slice, op))
      continue;
    rewriter.setInsertionPointToStart(&body);
    IRMapping mapping;
    for (Operation *sliceOp : *slice)
      rewriter.clone(*sliceOp, mapping);
    Value computed = mapping.lookup(value);
    rewriter.replaceUsesWithIf(value, computed, [&](OpOperand &use) {
      return op->isProperAncestor(use.getOwner());
    });
  }
}

namespace {
struct ScalarAccessesToGenericsPass
    : public subgroup_matrix::impl::ScalarAccessesToGenericsPassBase<
          ScalarAccessesToGenericsPass> {
  using ScalarAccessesToGenericsPassBase::ScalarAccessesToGenericsPassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::StoreOp> stores;
    getOperation().walk([&](memref::StoreOp store) {
      if (isHostOp(store))
        stores.push_back(store);
    });
    for (memref::StoreOp store : stores)
      rewriteStore(rewriter, store);
    SmallVector<linalg::LinalgOp> readers;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isHostOp(op) && op.hasPureBufferSemantics())
        readers.push_back(op);
    });
    for (linalg::LinalgOp op : readers)
      rewriteReader(rewriter, op);
    // What moved into kernels leaves unused copies on the host (the
    // runtime would still read them).
    SmallVector<Operation *> unused;
    getOperation().walk<WalkOrder::PostOrder, mlir::ReverseIterator>(
        [&](Operation *op) {
          if (isHostOp(op) && op->use_empty() && op->getNumResults() &&
              (isa<memref::LoadOp>(op) || isPure(op)))
            rewriter.eraseOp(op);
        });
    // Kernels address buffers by position: the scalars the new generics
    // write and read get one-element views.
    subgroup_matrix::viewScalarsAsVectors(getOperation());
  }
};
} // namespace
