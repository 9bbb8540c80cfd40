//===- PackWideAccesses.cpp - buffers of words for wide accesses ----------===//
//
// Logical SPIR-V cannot reinterpret a pointer to f16 as a pointer to four
// 32-bit words, so a 16-byte copy through an f16 buffer would be eight
// scalar accesses. When a buffer is only ever accessed in whole, aligned
// groups of W elements, it is retyped here as a buffer of words and every
// access addresses words: one 128-bit load or store each.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_PACKWIDEACCESSESPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// A number that divides `value` on every execution (0 when `value` is 0),
/// found through the index arithmetic the tiling emits; 1 when unknown.
static int64_t getKnownDivisor(Value value, unsigned depth = 0) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::abs(constant.getSExtValue());
  auto divisorOf = [&](Value operand) {
    return getKnownDivisor(operand, depth + 1);
  };
  // A loop's induction variable steps from its lower bound (a K loop that
  // walks a row in whole vectors).
  if (auto loop = scf::getForInductionVarOwner(value))
    return depth > 16 ? 1
                      : std::gcd(divisorOf(loop.getLowerBound()),
                                 divisorOf(loop.getStep()));
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return 1;
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
  // A division by a constant that divides a known divisor (a packed
  // weight's byte index, k / 2).
  if (isa<arith::DivUIOp>(op)) {
    APInt denominator;
    int64_t x = divisorOf(op->getOperand(0));
    if (matchPattern(op->getOperand(1), m_ConstantInt(&denominator)) &&
        denominator.getSExtValue() > 0 && x % denominator.getSExtValue() == 0)
      return x / denominator.getSExtValue();
  }
  return 1;
}

static bool isMultipleOf(Value value, int64_t factor) {
  int64_t divisor = getKnownDivisor(value);
  return divisor == 0 || divisor % factor == 0;
}

namespace {
/// How a buffer is packed: `width` elements per word of `wordType` (i32 for
/// 32-bit accesses, a vector of i32 for 64 and 128 bits).
struct Packing {
  int64_t width = 0;
  Type wordType;
};

/// Reports why a buffer cannot be packed, or, when quiet, only fails.
class PackingRejection {
public:
  explicit PackingRejection(bool quiet) : quiet(quiet) {}

  /// Reports `parts` as an error of `op` and fails.
  template <typename... Parts>
  LogicalResult reject(Operation *op, const Parts &...parts) const {
    if (!quiet)
      (op->emitOpError() << ... << parts);
    return failure();
  }
  /// Reports `parts` as an error at `loc` and fails.
  template <typename... Parts>
  LogicalResult reject(Location loc, const Parts &...parts) const {
    if (!quiet)
      (emitError(loc) << ... << parts);
    return failure();
  }

private:
  bool quiet;
};
} // namespace

/// Decides whether `buffer` can be packed; fails (reporting on the first
/// access that prevents it unless `rejection` is quiet) when it cannot and
/// returns std::nullopt when the buffer has no vector access at all.
static FailureOr<std::optional<Packing>>
planPacking(Value buffer, const PackingRejection &rejection) {
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
    if (vectorType.getRank() != 1 || !llvm::is_contained({32, 64, 128}, bits))
      return rejection.reject(user,
                              "cannot be lowered to SPIR-V: only 32-, 64- and "
                              "128-bit vector accesses are supported, got ",
                              vectorType);
    if (packing && packing->width != vectorType.getNumElements())
      return rejection.reject(user,
                              "cannot be lowered to SPIR-V: the buffer is "
                              "also accessed with vectors of ",
                              packing->width, " elements");
    Type word = IntegerType::get(type.getContext(), 32);
    packing = Packing{vectorType.getNumElements(),
                      bits == 32 ? word : VectorType::get({bits / 32}, word)};
  }
  if (!packing)
    return packing;
  if (!runtimeSized && type.getNumElements() % packing->width)
    return rejection.reject(buffer.getLoc(), "a buffer of ",
                            type.getNumElements(),
                            " elements cannot be packed into words of ",
                            packing->width, " elements");
  // Then, that every access addresses whole, aligned words.
  for (Operation *user : buffer.getUsers()) {
    auto misaligned = [&](StringRef what) {
      return rejection.reject(
          user, "cannot be lowered to SPIR-V with ", packing->width,
          "-element accesses to its buffer: ", what,
          " is not provably a multiple of ", packing->width);
    };
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      if (!isMultipleOf(load.getIndices()[0], packing->width))
        return misaligned("the index");
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      if (!isMultipleOf(store.getIndices()[0], packing->width))
        return misaligned("the index");
    } else if (isa<LoadOp, StoreOp>(user) &&
               !isa<VectorType>(packing->wordType)) {
      // Matrices address packed buffers through vectors of words only.
      return rejection.reject(
          user, "cannot be lowered to SPIR-V: its buffer is accessed with ",
          packing->width,
          "-element vectors, which would make it a buffer of single i32 "
          "words; subgroup matrices address packed buffers as vectors of "
          "words (64- or 128-bit accesses)");
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
      return rejection.reject(user,
                              "cannot be lowered to SPIR-V: it accesses a "
                              "buffer that vector accesses need as words");
    }
  }
  return packing;
}

/// `index / divisor` for an index that is a multiple of `divisor`,
/// divided term by term where the terms are multiples too: the copies'
/// addresses stay a base plus constants, which the driver folds into the
/// accesses' immediate offsets instead of keeping a register per address
/// (a division of a sum must be computed whole).
static Value divideExactly(OpBuilder &b, Location loc, Value index,
                           int64_t divisor, unsigned depth = 0) {
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)) &&
      constant.getSExtValue() % divisor == 0)
    return arith::ConstantIndexOp::create(b, loc,
                                          constant.getSExtValue() / divisor);
  Operation *op = index.getDefiningOp();
  if (op && depth < 8) {
    if (auto addOp = dyn_cast<arith::AddIOp>(op)) {
      if (isMultipleOf(addOp.getLhs(), divisor) &&
          isMultipleOf(addOp.getRhs(), divisor))
        return arith::AddIOp::create(
            b, loc, divideExactly(b, loc, addOp.getLhs(), divisor, depth + 1),
            divideExactly(b, loc, addOp.getRhs(), divisor, depth + 1));
    }
    if (auto mulOp = dyn_cast<arith::MulIOp>(op)) {
      for (auto [factor, other] : {std::pair(mulOp.getRhs(), mulOp.getLhs()),
                                   std::pair(mulOp.getLhs(), mulOp.getRhs())}) {
        if (!matchPattern(factor, m_ConstantInt(&constant)) ||
            constant.getSExtValue() % divisor)
          continue;
        if (constant.getSExtValue() == divisor)
          return other;
        return arith::MulIOp::create(
            b, loc, other,
            arith::ConstantIndexOp::create(b, loc,
                                           constant.getSExtValue() / divisor));
      }
    }
  }
  return arith::DivUIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, divisor));
}

/// Rewrites every access of `buffer` (already retyped to words) per
/// `packing`.
static void rewriteAccesses(Value buffer, const Packing &packing,
                            Type elementType) {
  auto toWords = [&](OpBuilder &b, Location loc, Value index) -> Value {
    return divideExactly(b, loc, index, packing.width);
  };
  auto elementVector = VectorType::get({packing.width}, elementType);
  // vector.bitcast takes vectors only: a 32-bit word passes as vector<1xi32>.
  auto singleWord = VectorType::get({1}, packing.wordType);
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      Value words = memref::LoadOp::create(
          b, loc, buffer, toWords(b, loc, load.getIndices()[0]));
      if (!isa<VectorType>(packing.wordType))
        words = vector::BroadcastOp::create(b, loc, singleWord, words);
      Value elements = vector::BitCastOp::create(b, loc, elementVector, words);
      load.replaceAllUsesWith(elements);
      load.erase();
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      Value words;
      if (isa<VectorType>(packing.wordType)) {
        words = vector::BitCastOp::create(b, loc, packing.wordType,
                                          store.getValueToStore());
      } else {
        words = vector::ExtractOp::create(
            b, loc,
            vector::BitCastOp::create(b, loc, singleWord,
                                      store.getValueToStore()),
            0);
      }
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

/// Replaces every extract of a constant position from `vector` by the
/// matching scalar of `elements`; returns whether `vector` is now unused.
static bool forwardExtracts(Value vector, ArrayRef<Value> elements) {
  for (Operation *user : llvm::make_early_inc_range(vector.getUsers()))
    if (auto extract = dyn_cast<vector::ExtractOp>(user)) {
      ArrayRef<int64_t> position = extract.getStaticPosition();
      if (position.size() == 1 && !ShapedType::isDynamic(position[0])) {
        extract.replaceAllUsesWith(elements[position[0]]);
        extract.erase();
      }
    }
  return vector.use_empty();
}

/// Element `i` of the 1-D `vector`: the operand that built it, where a
/// vector.from_elements did, else an extract.
static Value getElement(OpBuilder &b, Location loc, Value vector, int64_t i) {
  if (auto fromElements = vector.getDefiningOp<vector::FromElementsOp>())
    return fromElements.getElements()[i];
  return vector::ExtractOp::create(b, loc, vector, i);
}

/// Erases `op` when nothing uses it any more.
static void eraseIfUnused(Operation *op) {
  if (op && op->use_empty())
    op->erase();
}

/// Splits the vector accesses of `buffer` into scalar ones, for buffers that
/// cannot be packed; extracts from a loaded vector take the scalars directly.
static void scalarizeAccesses(Value buffer) {
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    auto elementAddress = [&](Value index, int64_t i) -> Value {
      return arith::AddIOp::create(b, loc, index,
                                   arith::ConstantIndexOp::create(b, loc, i));
    };
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      SmallVector<Value> elements;
      for (int64_t i = 0, e = load.getVectorType().getNumElements(); i < e; ++i)
        elements.push_back(memref::LoadOp::create(
            b, loc, buffer, elementAddress(load.getIndices()[0], i)));
      if (!forwardExtracts(load, elements))
        load.replaceAllUsesWith(vector::FromElementsOp::create(
                                    b, loc, load.getVectorType(), elements)
                                    .getResult());
      load.erase();
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      Value value = store.getValueToStore();
      for (int64_t i = 0, e = store.getVectorType().getNumElements(); i < e;
           ++i)
        memref::StoreOp::create(b, loc, getElement(b, loc, value, i), buffer,
                                elementAddress(store.getIndices()[0], i));
      store.erase();
      eraseIfUnused(value.getDefiningOp<vector::FromElementsOp>());
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

/// The most elements a SPIR-V vector holds without the Vector16 capability.
static constexpr int64_t kMaxSPIRVVectorElements = 4;

/// Where one side of a copy was packed and the other split into scalars, a
/// bit cast between words and more elements than a SPIR-V vector holds
/// (vector<4xi32> and vector<8xf16>) remains; this casts word by word.
static void splitLongBitCasts(gpu::GPUFuncOp kernel) {
  SmallVector<vector::BitCastOp> casts;
  kernel.walk([&](vector::BitCastOp cast) {
    if (cast.getResultVectorType().getNumElements() > kMaxSPIRVVectorElements ||
        cast.getSourceVectorType().getNumElements() > kMaxSPIRVVectorElements)
      casts.push_back(cast);
  });
  for (vector::BitCastOp cast : casts) {
    VectorType source = cast.getSourceVectorType();
    VectorType result = cast.getResultVectorType();
    OpBuilder b(cast);
    Location loc = cast.getLoc();
    bool fromWords = source.getNumElements() <= kMaxSPIRVVectorElements;
    VectorType words = fromWords ? source : result;
    VectorType elements = fromWords ? result : source;
    int64_t perWord = elements.getNumElements() / words.getNumElements();
    auto wordElements = VectorType::get({perWord}, elements.getElementType());
    auto singleWord = VectorType::get({1}, words.getElementType());
    if (fromWords) {
      SmallVector<Value> parts;
      for (int64_t w = 0; w < words.getNumElements(); ++w) {
        Value word = vector::ExtractOp::create(b, loc, cast.getSource(), w);
        Value part = vector::BitCastOp::create(
            b, loc, wordElements,
            vector::BroadcastOp::create(b, loc, singleWord, word));
        for (int64_t i = 0; i < perWord; ++i)
          parts.push_back(vector::ExtractOp::create(b, loc, part, i));
      }
      // The scalarized accesses only extract elements.
      if (forwardExtracts(cast, parts))
        cast.erase();
      continue;
    }
    Value elementSource = cast.getSource();
    SmallVector<Value> packedWords;
    for (int64_t w = 0; w < words.getNumElements(); ++w) {
      SmallVector<Value> part;
      for (int64_t i = w * perWord; i < (w + 1) * perWord; ++i)
        part.push_back(getElement(b, loc, elementSource, i));
      Value bits = vector::BitCastOp::create(
          b, loc, singleWord,
          vector::FromElementsOp::create(b, loc, wordElements, part));
      packedWords.push_back(vector::ExtractOp::create(b, loc, bits, 0));
    }
    cast.replaceAllUsesWith(
        vector::FromElementsOp::create(b, loc, words, packedWords).getResult());
    cast.erase();
    eraseIfUnused(elementSource.getDefiningOp<vector::FromElementsOp>());
  }
}

void mlir::subgroup_matrix::scalarizeWideAccesses(Operation *function) {
  llvm::SetVector<Value> buffers;
  function->walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op))
      buffers.insert(load.getBase());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      buffers.insert(store.getBase());
  });
  for (Value buffer : buffers)
    if (cast<MemRefType>(buffer.getType()).getElementType().isIntOrFloat())
      scalarizeAccesses(buffer);
}

LogicalResult
mlir::subgroup_matrix::packWideAccesses(gpu::GPUFuncOp kernel,
                                        bool scalarizeUnpackable) {
  SmallVector<Value> buffers(kernel.getArguments());
  kernel.walk([&](memref::AllocOp alloc) { buffers.push_back(alloc); });
  bool changed = false;
  PackingRejection rejection(/*quiet=*/scalarizeUnpackable);
  for (Value buffer : buffers) {
    FailureOr<std::optional<Packing>> packing = planPacking(buffer, rejection);
    if (failed(packing)) {
      if (!scalarizeUnpackable)
        return failure();
      scalarizeAccesses(buffer);
      continue;
    }
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
  // The element indices the word indices were divided from, where nothing
  // else uses them (last uses first, so that whole chains go).
  kernel.walk<WalkOrder::PostOrder, mlir::ReverseIterator>([](Operation *op) {
    if (isa<arith::ArithDialect>(op->getDialect()) && isOpTriviallyDead(op))
      op->erase();
  });
  if (scalarizeUnpackable)
    splitLongBitCasts(kernel);
  return success();
}

namespace {
struct PackWideAccessesPass
    : public subgroup_matrix::impl::PackWideAccessesPassBase<
          PackWideAccessesPass> {
  using PackWideAccessesPassBase::PackWideAccessesPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      // The emulation's vector accesses are worth having only where the
      // buffer can be retyped; elsewhere they become scalars.
      WalkResult packed = kernels.walk([&](gpu::GPUFuncOp function) {
        if (function.isKernel() &&
            failed(packWideAccesses(function, isEmulated(function))))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (packed.wasInterrupted())
        return signalPassFailure();
      kernels.walk([&](FunctionOpInterface function) {
        auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
        if (isEmulated(function) && (!kernel || !kernel.isKernel()))
          scalarizeWideAccesses(function);
      });
    }
  }
};
} // namespace
