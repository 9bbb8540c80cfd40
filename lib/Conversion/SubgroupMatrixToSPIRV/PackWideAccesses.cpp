//===- PackWideAccesses.cpp - buffers of words for wide accesses ----------===//
//
// Logical SPIR-V cannot reinterpret a pointer to f16 as a pointer to four
// 32-bit words, so a 16-byte copy through an f16 buffer would be eight
// scalar accesses. When a buffer is only ever accessed in whole, aligned
// groups of W elements, it is retyped here as a buffer of words and every
// access addresses words: one 128-bit load or store each.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// A number that divides `value` on every execution (0 when `value` is 0),
/// found through the index arithmetic the tiling emits; 1 when unknown.
static int64_t getKnownDivisor(Value value, unsigned depth = 0) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::abs(constant.getSExtValue());
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return 1;
  auto divisorOf = [&](Value operand) {
    return getKnownDivisor(operand, depth + 1);
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinUIOp, arith::MaxUIOp>(op))
    return std::gcd(divisorOf(op->getOperand(0)), divisorOf(op->getOperand(1)));
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return std::gcd(divisorOf(select.getTrueValue()),
                    divisorOf(select.getFalseValue()));
  if (isa<arith::MulIOp>(op)) {
    int64_t x = divisorOf(op->getOperand(0)), y = divisorOf(op->getOperand(1));
    if (x == 0 || y == 0)
      return 0;
    // Keep the product small enough not to overflow; any divisor will do.
    return std::gcd(x * y, int64_t(1) << 30);
  }
  if (isa<arith::RemUIOp>(op))
    return std::gcd(divisorOf(op->getOperand(0)), divisorOf(op->getOperand(1)));
  return 1;
}

static bool isMultipleOf(Value value, int64_t factor) {
  int64_t divisor = getKnownDivisor(value);
  return divisor == 0 || divisor % factor == 0;
}

namespace {
/// How a buffer is packed: `width` elements per word vector of `wordType`.
struct Packing {
  int64_t width = 0;
  VectorType wordType;
};
} // namespace

/// Decides whether `buffer` can be packed; reports on the first vector access
/// that cannot and returns failure, returns std::nullopt when the buffer has
/// no vector access at all.
static FailureOr<std::optional<Packing>> planPacking(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  // Runtime-sized kernel arguments pack too: the kernel's vector accesses
  // never straddle a word, so their length is whole words.
  bool runtimeSized =
      type && !type.hasStaticShape() && isa<BlockArgument>(buffer);
  if (!type || type.getRank() != 1 ||
      (!type.hasStaticShape() && !runtimeSized) ||
      !type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat())
    return std::optional<Packing>();
  unsigned elementBits = type.getElementType().getIntOrFloatBitWidth();
  std::optional<Packing> packing;
  // First, the width of the vector accesses; all must agree.
  for (Operation *user : buffer.getUsers()) {
    VectorType vectorType;
    if (auto load = dyn_cast<vector::LoadOp>(user))
      vectorType = load.getVectorType();
    else if (auto store = dyn_cast<vector::StoreOp>(user))
      vectorType = store.getVectorType();
    else
      continue;
    int64_t bits = vectorType.getNumElements() * elementBits;
    if (vectorType.getRank() != 1 || (bits != 64 && bits != 128))
      return user->emitOpError("cannot be lowered to SPIR-V: only 64- and "
                               "128-bit vector accesses are supported, got ")
                 << vectorType,
             failure();
    if (packing && packing->width != vectorType.getNumElements())
      return user->emitOpError("cannot be lowered to SPIR-V: the buffer is "
                               "also accessed with vectors of ")
                 << packing->width << " elements",
             failure();
    packing = Packing{
        vectorType.getNumElements(),
        VectorType::get({bits / 32}, IntegerType::get(type.getContext(), 32))};
  }
  if (!packing)
    return packing;
  if (!runtimeSized && type.getNumElements() % packing->width)
    return emitError(buffer.getLoc())
               << "a buffer of " << type.getNumElements()
               << " elements cannot be packed into words of " << packing->width
               << " elements",
           failure();
  // Then, that every access addresses whole, aligned words.
  for (Operation *user : buffer.getUsers()) {
    auto misaligned = [&](StringRef what) {
      return user->emitOpError("cannot be lowered to SPIR-V with ")
                 << packing->width
                 << "-element accesses to its buffer: " << what
                 << " is not provably a multiple of " << packing->width,
             failure();
    };
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      if (!isMultipleOf(load.getIndices()[0], packing->width))
        return misaligned("the index");
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      if (!isMultipleOf(store.getIndices()[0], packing->width))
        return misaligned("the index");
    } else if (auto load = dyn_cast<LoadOp>(user)) {
      if (!isMultipleOf(load.getIndices()[0], packing->width))
        return misaligned("the index");
      if (!isMultipleOf(load.getStride(), packing->width))
        return misaligned("the stride");
    } else if (auto store = dyn_cast<StoreOp>(user)) {
      if (!isMultipleOf(store.getIndices()[0], packing->width))
        return misaligned("the index");
      if (!isMultipleOf(store.getStride(), packing->width))
        return misaligned("the stride");
    } else {
      return user->emitOpError("cannot be lowered to SPIR-V: it accesses a "
                               "buffer that vector accesses need as words"),
             failure();
    }
  }
  return packing;
}

/// Rewrites every access of `buffer` (already retyped to words) per
/// `packing`.
static void rewriteAccesses(Value buffer, const Packing &packing,
                            Type elementType) {
  auto toWords = [&](OpBuilder &b, Location loc, Value index) -> Value {
    return arith::DivUIOp::create(
        b, loc, index, arith::ConstantIndexOp::create(b, loc, packing.width));
  };
  auto elementVector = VectorType::get({packing.width}, elementType);
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      Value words = memref::LoadOp::create(
          b, loc, buffer, toWords(b, loc, load.getIndices()[0]));
      Value elements = vector::BitCastOp::create(b, loc, elementVector, words);
      load.replaceAllUsesWith(elements);
      load.erase();
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      Value words = vector::BitCastOp::create(b, loc, packing.wordType,
                                              store.getValueToStore());
      memref::StoreOp::create(b, loc, words, buffer,
                              toWords(b, loc, store.getIndices()[0]));
      store.erase();
    } else if (auto load = dyn_cast<LoadOp>(user)) {
      load.getIndicesMutable()[0].set(toWords(b, loc, load.getIndices()[0]));
      load.getStrideMutable().set(toWords(b, loc, load.getStride()));
    } else if (auto store = dyn_cast<StoreOp>(user)) {
      store.getIndicesMutable()[0].set(toWords(b, loc, store.getIndices()[0]));
      store.getStrideMutable().set(toWords(b, loc, store.getStride()));
    }
  }
}

/// Removes the bit casts to elements and back that packing leaves between a
/// word load and a word store.
static void foldBitCastPairs(gpu::GPUFuncOp kernel) {
  kernel.walk([](vector::BitCastOp cast) {
    auto inner = cast.getSource().getDefiningOp<vector::BitCastOp>();
    if (inner && inner.getSource().getType() == cast.getType())
      cast.replaceAllUsesWith(inner.getSource());
  });
  // Casts feeding only dead casts die too: erase users before sources.
  SmallVector<vector::BitCastOp> casts;
  kernel.walk([&](vector::BitCastOp cast) { casts.push_back(cast); });
  for (vector::BitCastOp cast : llvm::reverse(casts))
    if (cast->use_empty())
      cast.erase();
}

LogicalResult mlir::subgroup_matrix::packWideAccesses(gpu::GPUFuncOp kernel) {
  SmallVector<Value> buffers(kernel.getArguments());
  kernel.walk([&](memref::AllocOp alloc) { buffers.push_back(alloc); });
  bool changed = false;
  for (Value buffer : buffers) {
    FailureOr<std::optional<Packing>> packing = planPacking(buffer);
    if (failed(packing))
      return failure();
    if (!*packing)
      continue;
    auto type = cast<MemRefType>(buffer.getType());
    int64_t words = type.hasStaticShape()
                        ? type.getNumElements() / (*packing)->width
                        : ShapedType::kDynamic;
    auto packedType =
        MemRefType::get({words}, (*packing)->wordType,
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    if (auto alloc = buffer.getDefiningOp<memref::AllocOp>()) {
      OpBuilder b(alloc);
      Value packed = memref::AllocOp::create(b, alloc.getLoc(), packedType);
      alloc.replaceAllUsesWith(packed);
      alloc.erase();
      buffer = packed;
    } else {
      buffer.setType(packedType);
    }
    rewriteAccesses(buffer, **packing, type.getElementType());
    changed = true;
  }
  if (!changed)
    return success();
  // The kernel's signature follows its retyped arguments.
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  for (auto [i, argument] : llvm::enumerate(kernel.getArguments()))
    inputs[i] = argument.getType();
  kernel.setFunctionType(
      FunctionType::get(kernel.getContext(), inputs, kernel.getResultTypes()));
  foldBitCastPairs(kernel);
  return success();
}
