//===- AccumulateInF32.cpp - linalg reductions into f16/bf16 in f32 -------===//
//
// The precision policy of sm-linalg-to-gpu written as a rewrite of linalg,
// for the upstream reference (test/Integration/Reference): a reduction into
// f16 or bf16 sums in f32 and rounds once, as the compiled products do.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Transforms/AccumulateInF32.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_ACCUMULATEINF32PASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

static bool isNarrowFloat(Type type) {
  return isa<Float16Type, BFloat16Type>(type);
}

/// A value of `shaped`'s shape with `element`s: a new tensor, or a new
/// buffer, its dynamic sizes read off `shaped`.
static Value createLike(OpBuilder &b, Location loc, Value shaped,
                        Type element) {
  auto type = cast<ShapedType>(shaped.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    if (isa<RankedTensorType>(type))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, shaped, dim));
    else
      dynamicSizes.push_back(memref::DimOp::create(b, loc, shaped, dim));
  }
  if (isa<RankedTensorType>(type))
    return tensor::EmptyOp::create(b, loc, type.getShape(), element,
                                   dynamicSizes);
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), element), dynamicSizes);
}

/// `input` converted element by element into `output` (same shape) with
/// `CastOp`; the converted tensor, or null on buffers.
template <typename CastOp>
static Value castInto(OpBuilder &b, Location loc, Value input, Value output) {
  auto type = cast<ShapedType>(output.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, isa<RankedTensorType>(type) ? TypeRange{type} : TypeRange{},
      ValueRange{input}, ValueRange{output},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value element =
            CastOp::create(nested, nestedLoc, type.getElementType(), args[0]);
        linalg::YieldOp::create(nested, nestedLoc, element);
      });
  return generic->getNumResults() ? generic->getResult(0) : Value();
}

namespace {
/// Clones a generic's body with every f16/bf16 value computed in f32.
class WideBodyBuilder {
public:
  WideBodyBuilder(OpBuilder &builder) : b(builder) {}

  /// Whether `body` can compute in f32: no regions, no bitcasts of narrow
  /// values.
  static bool canWiden(Block &body) {
    return llvm::all_of(body.without_terminator(), [](Operation &op) {
      if (op.getNumRegions())
        return false;
      if (isa<arith::BitcastOp>(op))
        return !llvm::any_of(op.getOperandTypes(), isNarrowFloat) &&
               !llvm::any_of(op.getResultTypes(), isNarrowFloat);
      return true;
    });
  }

  /// `value` (an f16/bf16 value of the old body, mapped) as f32.
  Value getWide(Value value, Location loc) {
    Value mapped = mapping.lookupOrDefault(value);
    if (!isNarrowFloat(mapped.getType()))
      return mapped;
    return arith::ExtFOp::create(b, loc, b.getF32Type(), mapped);
  }

  /// `value` (mapped) converted to `type`, which is f32 where its type was
  /// narrow, else its own type.
  Value convertTo(Value value, Type type, Location loc) {
    Type from = value.getType();
    if (from == type)
      return value;
    if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, type, value);
    return arith::TruncFOp::create(b, loc, type, value);
  }

  /// Clones `op` into the new body, in f32 where it was narrow.
  void clone(Operation &op) {
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    // Conversions between narrow floats and f32 (or wider) become
    // conversions from and to f32, or nothing.
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      Value source = getWide(op.getOperand(0), loc);
      Type type = op.getResult(0).getType();
      mapping.map(op.getResult(0),
                  convertTo(source, isNarrowFloat(type) ? f32 : type, loc));
      return;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto value = dyn_cast<FloatAttr>(constant.getValue());
          value && isNarrowFloat(value.getType())) {
        mapping.map(op.getResult(0),
                    arith::ConstantOp::create(
                        b, loc, FloatAttr::get(f32, value.getValueAsDouble())));
        return;
      }
    }
    // arith and math ops compute on the widened operands; anything else
    // (tensor.extract of a captured tensor, linalg.index) is cloned as it
    // is and its narrow results extended.
    bool computes =
        isa<arith::ArithDialect, math::MathDialect>(op.getDialect());
    if (!computes) {
      Operation *copy = b.clone(op, mapping);
      for (auto [old, result] : llvm::zip(op.getResults(), copy->getResults()))
        mapping.map(old, isNarrowFloat(result.getType())
                             ? Value(arith::ExtFOp::create(b, loc, f32, result))
                             : result);
      return;
    }
    for (Value operand : op.getOperands())
      if (isNarrowFloat(mapping.lookupOrDefault(operand).getType()))
        mapping.map(operand, getWide(operand, loc));
    Operation *copy = b.clone(op, mapping);
    for (OpResult result : copy->getResults())
      if (isNarrowFloat(result.getType()))
        result.setType(f32);
  }

  OpBuilder &b;
  IRMapping mapping;
};
} // namespace

bool mlir::subgroup_matrix::reducesIntoNarrowFloat(linalg::LinalgOp op) {
  return op.getNumReductionLoops() &&
         llvm::any_of(op.getDpsInits(), [](Value init) {
           return isNarrowFloat(getElementTypeOrSelf(init.getType()));
         });
}

bool mlir::subgroup_matrix::accumulateInF32(linalg::GenericOp op) {
  Block &body = *op.getBody();
  if (!WideBodyBuilder::canWiden(body))
    return false;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();

  SmallVector<Value> inits;
  SmallVector<bool> widened;
  for (Value init : op.getDpsInits()) {
    bool narrow = isNarrowFloat(getElementTypeOrSelf(init.getType()));
    widened.push_back(narrow);
    if (!narrow) {
      inits.push_back(init);
      continue;
    }
    Value wide = createLike(b, loc, init, f32);
    Value extended = castInto<arith::ExtFOp>(b, loc, init, wide);
    inits.push_back(extended ? extended : wide);
  }

  SmallVector<Type> resultTypes;
  for (Value init : inits)
    if (isa<RankedTensorType>(init.getType()))
      resultTypes.push_back(init.getType());
  auto wideOp = linalg::GenericOp::create(
      b, loc, resultTypes, op.getDpsInputs(), inits, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        WideBodyBuilder builder(nested);
        for (auto [old, arg] : llvm::zip(body.getArguments(), args))
          builder.mapping.map(old, arg);
        for (Operation &inner : body.without_terminator())
          builder.clone(inner);
        SmallVector<Value> yielded;
        for (auto [value, init] :
             llvm::zip(body.getTerminator()->getOperands(), inits)) {
          Value mapped = builder.mapping.lookupOrDefault(value);
          yielded.push_back(builder.convertTo(
              mapped, getElementTypeOrSelf(init.getType()), nestedLoc));
        }
        linalg::YieldOp::create(nested, nestedLoc, yielded);
      });

  // Each widened output rounded once into the original one.
  unsigned resultIndex = 0;
  for (auto [index, init] : llvm::enumerate(op.getDpsInits())) {
    bool isTensor = isa<RankedTensorType>(init.getType());
    Value wide = isTensor ? wideOp->getResult(resultIndex) : inits[index];
    if (widened[index]) {
      if (isTensor) {
        Value rounded = castInto<arith::TruncFOp>(
            b, loc, wide,
            createLike(b, loc, init, getElementTypeOrSelf(init.getType())));
        op->getResult(resultIndex).replaceAllUsesWith(rounded);
      } else {
        castInto<arith::TruncFOp>(b, loc, wide, init);
        memref::DeallocOp::create(b, loc, wide);
      }
    } else if (isTensor) {
      op->getResult(resultIndex).replaceAllUsesWith(wide);
    }
    resultIndex += isTensor;
  }
  op->erase();
  return true;
}

namespace {
struct AccumulateInF32Pass
    : public subgroup_matrix::impl::AccumulateInF32PassBase<
          AccumulateInF32Pass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (reducesIntoNarrowFloat(op))
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions)
      accumulateInF32(op);
  }
};
} // namespace
