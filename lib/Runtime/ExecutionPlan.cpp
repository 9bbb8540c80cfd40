//===- ExecutionPlan.cpp - a host function evaluated for given shapes -----===//
//
// An interpreter of the ops a host function is made of: index and integer
// arithmetic, buffers and their views, loops and conditionals, calls, and
// kernel launches, which it records instead of running. Device memory is
// never read, so the plan for one set of shapes holds for any data.
//
// Why one file of this size: the interpreter is one class whose handlers,
// one per op (the TypeSwitch of `HostInterpreter::runOp`), share its
// values and buffers; splitting them across files would put that state in
// a header for no reader's benefit.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Runtime/ExecutionPlan.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::subgroup_matrix::runtime;

namespace {

/// A view of a plan buffer: the element at indices (i0, ..., in) is element
/// offset + sum(ik * strides[k]) of the buffer.
struct View {
  unsigned buffer = 0;
  int64_t offset = 0;
  SmallVector<int64_t> shape;
  SmallVector<int64_t> strides;
  Type elementType;

  int64_t getNumElements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
  bool isContiguous() const {
    int64_t expected = 1;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expected)
        return false;
      expected *= shape[d];
    }
    return true;
  }
};

/// A value of the host function: a number or a view.
struct Scalar {
  int64_t integer = 0;
  double real = 0;
  bool isFloat = false;
};
using HostValue = std::variant<Scalar, View>;

SmallVector<int64_t> getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The bits of one element; 0 for types a buffer cannot hold. Widths below
/// a byte (i4, i2) are packed, as kernels hold them in 32-bit words.
int64_t getElementBits(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * getElementBits(vector.getElementType());
  if (type.isIndex())
    return 64;
  if (!type.isIntOrFloat())
    return 0;
  // Booleans take a byte each in every kernel's buffers (MLIR's SPIR-V
  // lowering stores i1 as i8; LLVM and MSL as bool).
  if (type.isInteger(1))
    return 8;
  unsigned width = type.getIntOrFloatBitWidth();
  return width % 8 == 0 || (width < 8 && 8 % width == 0) ? width : 0;
}

/// The bytes `count` elements of `type` take: packed ones fill whole
/// 32-bit words, which is what the kernels' emulation of them reads.
int64_t getBytesOf(Type type, int64_t count) {
  int64_t bits = getElementBits(type);
  if (bits % 8 == 0)
    return count * (bits / 8);
  return llvm::divideCeil(count * bits, 32) * 4;
}

/// The byte offset of element `offset` of a buffer of `type`, or -1 when a
/// packed element does not start a 32-bit word (no binding can start there).
int64_t getByteOffsetOf(Type type, int64_t offset) {
  int64_t bits = getElementBits(type);
  if (bits % 8 == 0)
    return offset * (bits / 8);
  return (offset * bits) % 32 ? -1 : offset * bits / 8;
}

/// Bounds the sizes the host computes, so that a wrong shape is an error
/// and not an allocation of terabytes.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 40;

class HostInterpreter {
public:
  HostInterpreter() = default;

  LogicalResult run(func::FuncOp host,
                    ArrayRef<SmallVector<int64_t>> argumentShapes,
                    ArrayRef<double> scalarArguments, ExecutionPlan &result);

private:
  LogicalResult runFunction(func::FuncOp function,
                            ArrayRef<HostValue> arguments,
                            SmallVector<HostValue> &results, unsigned depth);
  /// Runs the ops of `block` up to its terminator, whose operands become
  /// `yielded`.
  LogicalResult runBlock(Block &block, SmallVector<HostValue> &yielded,
                         unsigned depth);
  LogicalResult runOp(Operation *op, unsigned depth);

  LogicalResult runArith(Operation *op);
  LogicalResult runAlloc(Operation *op, MemRefType type,
                         ValueRange dynamicSizes);
  LogicalResult runLaunch(gpu::LaunchFuncOp launch);
  LogicalResult runCopy(memref::CopyOp copy);
  LogicalResult runGetGlobal(memref::GetGlobalOp getGlobal);
  LogicalResult runViewOp(Operation *op);

  FailureOr<int64_t> integerOf(Value value) {
    auto found = values.find(value);
    if (found == values.end() || !std::holds_alternative<Scalar>(found->second))
      return failure();
    const Scalar &scalar = std::get<Scalar>(found->second);
    return scalar.isFloat ? int64_t(scalar.real) : scalar.integer;
  }
  const View *viewOf(Value value) {
    auto found = values.find(value);
    if (found == values.end())
      return nullptr;
    return std::get_if<View>(&found->second);
  }
  unsigned addBuffer(PlanBuffer buffer) {
    plan->buffers.push_back(std::move(buffer));
    return plan->buffers.size() - 1;
  }
  void noteWrite(unsigned buffer) {
    const PlanBuffer &written = plan->buffers[buffer];
    if (written.origin == PlanBuffer::Origin::Argument &&
        !llvm::is_contained(plan->writtenArguments, written.argument))
      plan->writtenArguments.push_back(written.argument);
  }
  /// Whether the kernel may write its argument `index`.
  bool kernelWritesArgument(gpu::LaunchFuncOp launch, unsigned index);

  SymbolTableCollection symbols;
  ExecutionPlan *plan = nullptr;
  DenseMap<Value, HostValue> values;
  llvm::StringMap<unsigned> globalBuffers;
};

} // namespace

LogicalResult
HostInterpreter::run(func::FuncOp host,
                     ArrayRef<SmallVector<int64_t>> argumentShapes,
                     ArrayRef<double> scalarArguments, ExecutionPlan &result) {
  plan = &result;
  FunctionType type = host.getFunctionType();
  if (argumentShapes.size() != type.getNumInputs())
    return host.emitError()
           << "'" << host.getSymName() << "' takes " << type.getNumInputs()
           << " arguments, but " << argumentShapes.size() << " were given";
  SmallVector<HostValue> arguments;
  for (auto [index, argumentType] : llvm::enumerate(type.getInputs())) {
    auto memref = dyn_cast<MemRefType>(argumentType);
    if (!memref) {
      if (!argumentType.isIntOrIndexOrFloat())
        return host.emitError()
               << "argument " << index << " has type " << argumentType
               << ", which the runtime cannot pass";
      Scalar scalar;
      double value =
          index < scalarArguments.size() ? scalarArguments[index] : 0.0;
      scalar.isFloat = isa<FloatType>(argumentType);
      scalar.real = value;
      scalar.integer = int64_t(value);
      arguments.push_back(scalar);
      continue;
    }
    ArrayRef<int64_t> shape = argumentShapes[index];
    if (int64_t(shape.size()) != memref.getRank())
      return host.emitError()
             << "argument " << index << " is " << memref << ", but an array of "
             << shape.size() << " dimensions was given";
    for (auto [dim, size] : llvm::enumerate(memref.getShape()))
      if (!ShapedType::isDynamic(size) && size != shape[dim])
        return host.emitError()
               << "argument " << index << " is " << memref << ", but dimension "
               << dim << " of the array given is " << shape[dim];
    if (!memref.getLayout().isIdentity())
      return host.emitError() << "argument " << index << " is " << memref
                              << ": the runtime passes row-major arrays only";
    if (!getElementBits(memref.getElementType()))
      return host.emitError() << "argument " << index << " is " << memref
                              << ", whose elements the runtime cannot hold";
    PlanBuffer buffer;
    buffer.origin = PlanBuffer::Origin::Argument;
    buffer.argument = index;
    buffer.elementType = memref.getElementType();
    buffer.shape.assign(shape.begin(), shape.end());
    View view;
    view.shape = buffer.shape;
    view.strides = getRowMajorStrides(view.shape);
    view.elementType = buffer.elementType;
    buffer.sizeInBytes = getBytesOf(buffer.elementType, view.getNumElements());
    view.buffer = addBuffer(std::move(buffer));
    arguments.push_back(view);
  }
  SmallVector<HostValue> results;
  if (failed(runFunction(host, arguments, results, 0)))
    return failure();
  for (auto [index, value] : llvm::enumerate(results)) {
    const View *view = std::get_if<View>(&value);
    if (!view)
      return host.emitError() << "result " << index
                              << " is not a buffer; the runtime returns "
                                 "buffers only";
    if (!view->isContiguous())
      return host.emitError() << "result " << index
                              << " is a strided view, which the runtime "
                                 "cannot return";
    PlanResult planned;
    planned.buffer = view->buffer;
    planned.offsetInBytes = getByteOffsetOf(view->elementType, view->offset);
    if (planned.offsetInBytes < 0)
      return host.emitError() << "result " << index
                              << " starts inside a 32-bit word of packed "
                                 "elements, which the runtime cannot return";
    planned.elementType = view->elementType;
    planned.shape = view->shape;
    plan->results.push_back(std::move(planned));
  }
  return success();
}

LogicalResult HostInterpreter::runFunction(func::FuncOp function,
                                           ArrayRef<HostValue> arguments,
                                           SmallVector<HostValue> &results,
                                           unsigned depth) {
  if (depth > 16)
    return function.emitError("calls nest more than 16 deep; the runtime "
                              "does not run recursive host functions");
  if (function.isExternal())
    return function.emitError()
           << "'" << function.getSymName()
           << "' has no body, so the runtime cannot run it";
  Block &entry = function.getBody().front();
  for (auto [argument, value] : llvm::zip(entry.getArguments(), arguments))
    values[argument] = value;
  return runBlock(entry, results, depth);
}

LogicalResult HostInterpreter::runBlock(Block &block,
                                        SmallVector<HostValue> &yielded,
                                        unsigned depth) {
  for (Operation &op : block.without_terminator())
    if (failed(runOp(&op, depth)))
      return failure();
  Operation *terminator = block.getTerminator();
  if (!isa<func::ReturnOp, scf::YieldOp>(terminator))
    return terminator->emitOpError(
        "ends a block in a way the runtime does not run (it runs structured "
        "control flow only)");
  yielded.clear();
  for (Value operand : terminator->getOperands()) {
    auto found = values.find(operand);
    if (found == values.end())
      return terminator->emitOpError("returns a value the runtime did not "
                                     "compute");
    yielded.push_back(found->second);
  }
  return success();
}

LogicalResult HostInterpreter::runOp(Operation *op, unsigned depth) {
  if (op->getDialect() && isa<arith::ArithDialect>(op->getDialect()))
    return runArith(op);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](memref::AllocOp alloc) {
        return runAlloc(op, alloc.getType(), alloc.getDynamicSizes());
      })
      .Case([&](memref::AllocaOp alloca) {
        return runAlloc(op, alloca.getType(), alloca.getDynamicSizes());
      })
      .Case([&](memref::DeallocOp) { return success(); })
      .Case([&](memref::AssumeAlignmentOp assume) {
        values[assume.getResult()] = values.lookup(assume.getMemref());
        return success();
      })
      .Case([&](memref::DimOp dim) -> LogicalResult {
        const View *view = viewOf(dim.getSource());
        FailureOr<int64_t> index = integerOf(dim.getIndex());
        if (!view || failed(index) || *index < 0 ||
            *index >= int64_t(view->shape.size()))
          return dim.emitOpError("reads a dimension the runtime cannot "
                                 "determine");
        values[dim.getResult()] = Scalar{view->shape[*index], 0, false};
        return success();
      })
      .Case([&](memref::CopyOp copy) { return runCopy(copy); })
      .Case([&](memref::GetGlobalOp getGlobal) {
        return runGetGlobal(getGlobal);
      })
      .Case<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
            memref::SubViewOp, memref::ReinterpretCastOp>(
          [&](Operation *view) { return runViewOp(view); })
      .Case([&](gpu::LaunchFuncOp launch) { return runLaunch(launch); })
      .Case([&](scf::ForOp loop) -> LogicalResult {
        FailureOr<int64_t> lower = integerOf(loop.getLowerBound());
        FailureOr<int64_t> upper = integerOf(loop.getUpperBound());
        FailureOr<int64_t> step = integerOf(loop.getStep());
        if (failed(lower) || failed(upper) || failed(step) || *step <= 0)
          return loop.emitOpError("has bounds the runtime cannot determine");
        SmallVector<HostValue> carried;
        for (Value init : loop.getInitArgs())
          carried.push_back(values.lookup(init));
        for (int64_t i = *lower; i < *upper; i += *step) {
          values[loop.getInductionVar()] = Scalar{i, 0, false};
          for (auto [argument, value] :
               llvm::zip(loop.getRegionIterArgs(), carried))
            values[argument] = value;
          if (failed(runBlock(*loop.getBody(), carried, depth)))
            return failure();
        }
        for (auto [result, value] : llvm::zip(loop.getResults(), carried))
          values[result] = value;
        return success();
      })
      .Case([&](scf::IfOp branch) -> LogicalResult {
        FailureOr<int64_t> condition = integerOf(branch.getCondition());
        if (failed(condition))
          return branch.emitOpError(
              "branches on a value the runtime cannot determine");
        Region &region =
            *condition ? branch.getThenRegion() : branch.getElseRegion();
        if (region.empty())
          return success();
        SmallVector<HostValue> yielded;
        if (failed(runBlock(region.front(), yielded, depth)))
          return failure();
        for (auto [result, value] : llvm::zip(branch.getResults(), yielded))
          values[result] = value;
        return success();
      })
      .Case([&](func::CallOp call) -> LogicalResult {
        auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee)
          return call.emitOpError("calls a function the module does not "
                                  "define");
        SmallVector<HostValue> arguments, results;
        for (Value operand : call.getOperands())
          arguments.push_back(values.lookup(operand));
        if (failed(runFunction(callee, arguments, results, depth + 1)))
          return failure();
        for (auto [result, value] : llvm::zip(call.getResults(), results))
          values[result] = value;
        return success();
      })
      .Case([&](cf::AssertOp assertion) -> LogicalResult {
        FailureOr<int64_t> holds = integerOf(assertion.getArg());
        if (failed(holds))
          return assertion.emitOpError("has a condition the runtime cannot "
                                       "determine");
        if (*holds)
          return success();
        InFlightDiagnostic diagnostic = emitError(assertion.getLoc())
                                        << assertion.getMsg();
        // A comparison names the values that differ.
        if (auto compare = assertion.getArg().getDefiningOp<arith::CmpIOp>()) {
          FailureOr<int64_t> lhs = integerOf(compare.getLhs());
          FailureOr<int64_t> rhs = integerOf(compare.getRhs());
          if (succeeded(lhs) && succeeded(rhs))
            diagnostic << " (" << *rhs << " and " << *lhs << ")";
        }
        return diagnostic;
      })
      .Case([&](affine::AffineApplyOp apply) -> LogicalResult {
        SmallVector<int64_t> operands;
        for (Value operand : apply.getOperands()) {
          FailureOr<int64_t> value = integerOf(operand);
          if (failed(value))
            return apply.emitOpError("has an operand the runtime cannot "
                                     "determine");
          operands.push_back(*value);
        }
        SmallVector<Attribute> constants;
        Builder builder(apply.getContext());
        for (int64_t value : operands)
          constants.push_back(builder.getIndexAttr(value));
        SmallVector<Attribute> folded;
        if (failed(apply.getAffineMap().constantFold(constants, folded)) ||
            folded.size() != 1)
          return apply.emitOpError("cannot be evaluated by the runtime");
        values[apply.getResult()] =
            Scalar{cast<IntegerAttr>(folded.front()).getInt(), 0, false};
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError()
               << "is not run by the runtime: a host function may compute "
                  "sizes, allocate and view buffers, copy them, loop and "
                  "launch kernels, but not touch device data itself";
      });
}

LogicalResult HostInterpreter::runArith(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue())) {
      values[constant.getResult()] = Scalar{integer.getInt(), 0, false};
      return success();
    }
    if (auto real = dyn_cast<FloatAttr>(constant.getValue())) {
      values[constant.getResult()] = Scalar{0, real.getValueAsDouble(), true};
      return success();
    }
    return op->emitOpError("is a constant the runtime does not hold (only "
                           "integers and floats)");
  }
  if (op->getNumResults() != 1)
    return op->emitOpError("is not run by the runtime");
  SmallVector<Scalar> operands;
  for (Value operand : op->getOperands()) {
    auto found = values.find(operand);
    if (found == values.end() || !std::holds_alternative<Scalar>(found->second))
      return op->emitOpError("has an operand the runtime cannot determine");
    operands.push_back(std::get<Scalar>(found->second));
  }
  Type resultType = op->getResult(0).getType();
  auto integerOp = [&](auto function) -> LogicalResult {
    std::optional<int64_t> result = function(
        operands[0].integer, operands.size() > 1 ? operands[1].integer : 0);
    if (!result)
      return op->emitOpError("divides by zero");
    int64_t value = *result;
    // Results narrower than 64 bits wrap as the op's type does.
    if (auto integerType = dyn_cast<IntegerType>(resultType);
        integerType && integerType.getWidth() < 64) {
      unsigned width = integerType.getWidth();
      uint64_t mask = (uint64_t(1) << width) - 1;
      uint64_t bits = uint64_t(value) & mask;
      value = width > 1 && (bits >> (width - 1)) ? int64_t(bits | ~mask)
                                                 : int64_t(bits);
      if (width == 1)
        value = int64_t(bits);
    }
    values[op->getResult(0)] = Scalar{value, 0, false};
    return success();
  };
  auto floatOp = [&](auto function) -> LogicalResult {
    double value = function(operands[0].real,
                            operands.size() > 1 ? operands[1].real : 0.0);
    values[op->getResult(0)] = Scalar{0, value, true};
    return success();
  };
  using Result = std::optional<int64_t>;
  auto unsignedOf = [](int64_t v) { return uint64_t(v); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::AddIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return int64_t(uint64_t(a) + uint64_t(b));
        });
      })
      .Case([&](arith::SubIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return int64_t(uint64_t(a) - uint64_t(b));
        });
      })
      .Case([&](arith::MulIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return int64_t(uint64_t(a) * uint64_t(b));
        });
      })
      .Case<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(
          [&](Operation *division) {
            bool remainder = isa<arith::RemUIOp>(division);
            bool ceiling = isa<arith::CeilDivUIOp>(division);
            return integerOp([&](int64_t a, int64_t b) -> Result {
              if (!b)
                return std::nullopt;
              uint64_t x = unsignedOf(a), y = unsignedOf(b);
              if (remainder)
                return int64_t(x % y);
              return int64_t(ceiling ? x / y + (x % y != 0) : x / y);
            });
          })
      .Case<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
            arith::FloorDivSIOp>([&](Operation *division) {
        return integerOp([&](int64_t a, int64_t b) -> Result {
          if (!b)
            return std::nullopt;
          if (isa<arith::RemSIOp>(division))
            return a % b;
          int64_t quotient = a / b;
          bool inexact = quotient * b != a;
          if (isa<arith::CeilDivSIOp>(division) && inexact &&
              ((a < 0) == (b < 0)))
            return quotient + 1;
          if (isa<arith::FloorDivSIOp>(division) && inexact &&
              ((a < 0) != (b < 0)))
            return quotient - 1;
          return quotient;
        });
      })
      .Case([&](arith::MinUIOp) {
        return integerOp([&](int64_t a, int64_t b) -> Result {
          return unsignedOf(a) < unsignedOf(b) ? a : b;
        });
      })
      .Case([&](arith::MaxUIOp) {
        return integerOp([&](int64_t a, int64_t b) -> Result {
          return unsignedOf(a) > unsignedOf(b) ? a : b;
        });
      })
      .Case([&](arith::MinSIOp) {
        return integerOp(
            [](int64_t a, int64_t b) -> Result { return std::min(a, b); });
      })
      .Case([&](arith::MaxSIOp) {
        return integerOp(
            [](int64_t a, int64_t b) -> Result { return std::max(a, b); });
      })
      .Case([&](arith::AndIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result { return a & b; });
      })
      .Case([&](arith::OrIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result { return a | b; });
      })
      .Case([&](arith::XOrIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result { return a ^ b; });
      })
      .Case([&](arith::ShLIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return b < 64 ? int64_t(uint64_t(a) << b) : 0;
        });
      })
      .Case([&](arith::ShRUIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return b < 64 ? int64_t(uint64_t(a) >> b) : 0;
        });
      })
      .Case([&](arith::ShRSIOp) {
        return integerOp([](int64_t a, int64_t b) -> Result {
          return a >> std::min<int64_t>(b, 63);
        });
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>([&](Operation *cast) {
        bool zeroExtend = isa<arith::IndexCastUIOp, arith::ExtUIOp>(cast);
        unsigned sourceWidth =
            cast->getOperand(0).getType().isIndex()
                ? 64
                : cast->getOperand(0).getType().getIntOrFloatBitWidth();
        return integerOp([&](int64_t a, int64_t) -> Result {
          if (zeroExtend && sourceWidth < 64)
            return int64_t(uint64_t(a) & ((uint64_t(1) << sourceWidth) - 1));
          return a;
        });
      })
      .Case([&](arith::CmpIOp compare) {
        arith::CmpIPredicate predicate = compare.getPredicate();
        return integerOp([&](int64_t a, int64_t b) -> Result {
          uint64_t x = uint64_t(a), y = uint64_t(b);
          switch (predicate) {
          case arith::CmpIPredicate::eq:
            return a == b;
          case arith::CmpIPredicate::ne:
            return a != b;
          case arith::CmpIPredicate::slt:
            return a < b;
          case arith::CmpIPredicate::sle:
            return a <= b;
          case arith::CmpIPredicate::sgt:
            return a > b;
          case arith::CmpIPredicate::sge:
            return a >= b;
          case arith::CmpIPredicate::ult:
            return x < y;
          case arith::CmpIPredicate::ule:
            return x <= y;
          case arith::CmpIPredicate::ugt:
            return x > y;
          case arith::CmpIPredicate::uge:
            return x >= y;
          }
          return std::nullopt;
        });
      })
      .Case([&](arith::SelectOp select) -> LogicalResult {
        values[select.getResult()] =
            operands[0].integer ? operands[1] : operands[2];
        return success();
      })
      .Case([&](arith::AddFOp) {
        return floatOp([](double a, double b) { return a + b; });
      })
      .Case([&](arith::SubFOp) {
        return floatOp([](double a, double b) { return a - b; });
      })
      .Case([&](arith::MulFOp) {
        return floatOp([](double a, double b) { return a * b; });
      })
      .Case([&](arith::DivFOp) {
        return floatOp([](double a, double b) { return a / b; });
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
        return floatOp([](double a, double) { return a; });
      })
      .Case<arith::SIToFPOp, arith::UIToFPOp>([&](Operation *) {
        values[op->getResult(0)] = Scalar{0, double(operands[0].integer), true};
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("is not run by the runtime");
      });
}

LogicalResult HostInterpreter::runAlloc(Operation *op, MemRefType type,
                                        ValueRange dynamicSizes) {
  if (!type.getLayout().isIdentity())
    return op->emitOpError() << "allocates " << type
                             << "; the runtime allocates row-major buffers";
  int64_t elementBits = getElementBits(type.getElementType());
  if (!elementBits)
    return op->emitOpError() << "allocates " << type
                             << ", whose elements the runtime cannot hold";
  int64_t elementSize = llvm::divideCeil(elementBits, 8);
  PlanBuffer buffer;
  buffer.origin = PlanBuffer::Origin::Allocation;
  buffer.elementType = type.getElementType();
  auto dynamic = dynamicSizes.begin();
  int64_t count = 1;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size)) {
      FailureOr<int64_t> value = integerOf(*dynamic++);
      if (failed(value))
        return op->emitOpError("has a size the runtime cannot determine");
      size = *value;
    }
    if (size < 0 || (size && count > kMaxBufferBytes / elementSize / size))
      return op->emitOpError() << "allocates a buffer of more than "
                               << kMaxBufferBytes << " bytes";
    count *= size;
    buffer.shape.push_back(size);
  }
  buffer.sizeInBytes = getBytesOf(buffer.elementType, count);
  View view;
  view.shape = buffer.shape;
  view.strides = getRowMajorStrides(view.shape);
  view.elementType = buffer.elementType;
  view.buffer = addBuffer(std::move(buffer));
  values[op->getResult(0)] = view;
  return success();
}

LogicalResult HostInterpreter::runGetGlobal(memref::GetGlobalOp getGlobal) {
  auto found = globalBuffers.find(getGlobal.getName());
  unsigned index;
  if (found != globalBuffers.end()) {
    index = found->second;
  } else {
    auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    auto initial =
        global ? dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr())
               : ElementsAttr();
    if (!initial || !global.getConstant())
      return getGlobal.emitOpError(
          "reads a global that is not a constant with an initial value");
    MemRefType type = getGlobal.getType();
    int64_t elementBits = getElementBits(type.getElementType());
    // Constants hold packed elements one per byte: only whole bytes upload.
    if (!type.hasStaticShape() || elementBits % 8 || !elementBits)
      return getGlobal.emitOpError()
             << "reads " << type << ", which the runtime cannot upload";
    PlanBuffer buffer;
    buffer.origin = PlanBuffer::Origin::Constant;
    buffer.elementType = type.getElementType();
    buffer.shape.assign(type.getShape().begin(), type.getShape().end());
    buffer.sizeInBytes = getBytesOf(buffer.elementType, type.getNumElements());
    buffer.initialValue = initial;
    index = addBuffer(std::move(buffer));
    globalBuffers[getGlobal.getName()] = index;
  }
  View view;
  view.buffer = index;
  MemRefType type = getGlobal.getType();
  view.shape.assign(type.getShape().begin(), type.getShape().end());
  view.strides = getRowMajorStrides(view.shape);
  view.elementType = type.getElementType();
  values[getGlobal.getResult()] = view;
  return success();
}

LogicalResult HostInterpreter::runViewOp(Operation *op) {
  auto viewLike = cast<ViewLikeOpInterface>(op);
  const View *source = viewOf(viewLike.getViewSource());
  if (!source)
    return op->emitOpError("views a buffer the runtime does not know");
  auto resultType = cast<MemRefType>(op->getResult(0).getType());
  View result = *source;
  result.elementType = resultType.getElementType();
  auto resolve = [&](ArrayRef<OpFoldResult> mixed,
                     SmallVector<int64_t> &out) -> LogicalResult {
    out.clear();
    for (OpFoldResult value : mixed) {
      if (auto attribute = dyn_cast<Attribute>(value)) {
        out.push_back(cast<IntegerAttr>(attribute).getInt());
        continue;
      }
      FailureOr<int64_t> resolved = integerOf(cast<Value>(value));
      if (failed(resolved))
        return op->emitOpError("has a size the runtime cannot determine");
      out.push_back(*resolved);
    }
    return success();
  };
  LogicalResult status =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](memref::CollapseShapeOp collapse) -> LogicalResult {
            if (!source->isContiguous())
              return collapse.emitOpError(
                  "collapses a strided view, which the runtime does not");
            result.shape.clear();
            for (ReassociationIndices group :
                 collapse.getReassociationIndices()) {
              int64_t size = 1;
              for (int64_t dim : group)
                size *= source->shape[dim];
              result.shape.push_back(size);
            }
            result.strides = getRowMajorStrides(result.shape);
            return success();
          })
          .Case([&](memref::ExpandShapeOp expand) -> LogicalResult {
            if (!source->isContiguous())
              return expand.emitOpError(
                  "expands a strided view, which the runtime does not");
            if (failed(resolve(expand.getMixedOutputShape(), result.shape)))
              return failure();
            result.strides = getRowMajorStrides(result.shape);
            return success();
          })
          .Case([&](memref::CastOp) { return success(); })
          .Case([&](memref::SubViewOp subview) -> LogicalResult {
            SmallVector<int64_t> offsets, sizes, strides;
            if (failed(resolve(subview.getMixedOffsets(), offsets)) ||
                failed(resolve(subview.getMixedSizes(), sizes)) ||
                failed(resolve(subview.getMixedStrides(), strides)))
              return failure();
            for (auto [dim, offset] : llvm::enumerate(offsets)) {
              if (offset < 0 || sizes[dim] < 0 ||
                  offset + (sizes[dim] - 1) * strides[dim] >=
                      source->shape[dim] + (sizes[dim] == 0))
                return subview.emitOpError("reaches outside its source");
              result.offset += offset * source->strides[dim];
            }
            result.shape.clear();
            result.strides.clear();
            llvm::SmallBitVector dropped = subview.getDroppedDims();
            for (auto [dim, size] : llvm::enumerate(sizes)) {
              if (dropped.test(dim))
                continue;
              result.shape.push_back(size);
              result.strides.push_back(source->strides[dim] * strides[dim]);
            }
            return success();
          })
          .Case([&](memref::ReinterpretCastOp reinterpret) -> LogicalResult {
            SmallVector<int64_t> offsets;
            if (failed(resolve(reinterpret.getMixedOffsets(), offsets)) ||
                failed(resolve(reinterpret.getMixedSizes(), result.shape)) ||
                failed(resolve(reinterpret.getMixedStrides(), result.strides)))
              return failure();
            result.offset = offsets.front();
            return success();
          })
          .Default([](Operation *) { return failure(); });
  if (failed(status))
    return failure();
  // A view must stay inside its buffer, whatever the op says.
  int64_t last = result.offset;
  for (auto [size, stride] : llvm::zip(result.shape, result.strides))
    last += size ? (size - 1) * stride : 0;
  if (result.offset < 0 ||
      (result.getNumElements() && getBytesOf(result.elementType, last + 1) >
                                      plan->buffers[result.buffer].sizeInBytes))
    return op->emitOpError("views elements outside its buffer");
  values[op->getResult(0)] = result;
  return success();
}

LogicalResult HostInterpreter::runCopy(memref::CopyOp copy) {
  const View *source = viewOf(copy.getSource());
  const View *target = viewOf(copy.getTarget());
  if (!source || !target)
    return copy.emitOpError("copies a buffer the runtime does not know");
  if (!source->isContiguous() || !target->isContiguous())
    return copy.emitOpError("copies a strided view; the runtime copies "
                            "contiguous ones only");
  if (source->shape != target->shape)
    return copy.emitOpError("copies between views of different shapes");
  PlanCopy step;
  step.source = source->buffer;
  step.target = target->buffer;
  step.sourceOffsetInBytes =
      getByteOffsetOf(source->elementType, source->offset);
  step.targetOffsetInBytes =
      getByteOffsetOf(target->elementType, target->offset);
  step.sizeInBytes = getBytesOf(source->elementType, source->getNumElements());
  // Packed elements copy as whole words, which must not reach past them.
  if (step.sourceOffsetInBytes < 0 || step.targetOffsetInBytes < 0 ||
      (getElementBits(source->elementType) % 8 &&
       (source->getNumElements() * getElementBits(source->elementType)) % 32))
    return copy.emitOpError("copies packed elements that do not fill whole "
                            "32-bit words");
  plan->steps.push_back(step);
  noteWrite(target->buffer);
  return success();
}

bool HostInterpreter::kernelWritesArgument(gpu::LaunchFuncOp launch,
                                           unsigned index) {
  auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel || kernel.isExternal())
    return true;
  SmallVector<Value> worklist{kernel.getArgument(index)};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.append(user->result_begin(), user->result_end());
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (isa<MemoryEffects::Write>(instance.getEffect()) &&
            (!instance.getValue() || instance.getValue() == value))
          return true;
    }
  }
  return false;
}

LogicalResult HostInterpreter::runLaunch(gpu::LaunchFuncOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("is asynchronous; the runtime orders launches "
                              "itself and runs synchronous ones");
  PlanLaunch step{launch.getKernelModuleName().str(),
                  launch.getKernelName().str(),
                  {},
                  {},
                  {},
                  launch.getLoc()};
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value gridValues[] = {grid.x, grid.y, grid.z};
  Value blockValues[] = {block.x, block.y, block.z};
  for (int i = 0; i < 3; ++i) {
    FailureOr<int64_t> gridSize = integerOf(gridValues[i]);
    FailureOr<int64_t> blockSize = integerOf(blockValues[i]);
    if (failed(gridSize) || failed(blockSize))
      return launch.emitOpError("has sizes the runtime cannot determine");
    if (*gridSize < 0 || *gridSize > UINT32_MAX || *blockSize <= 0 ||
        *blockSize > UINT32_MAX)
      return launch.emitOpError()
             << "launches a grid of " << *gridSize << " workgroups of "
             << *blockSize << " invocations along dimension " << i;
    step.grid[i] = uint32_t(*gridSize);
    step.block[i] = uint32_t(*blockSize);
  }
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    LaunchArgument argument;
    if (const View *view = viewOf(operand)) {
      if (!view->isContiguous())
        return launch.emitOpError()
               << "passes a strided view as argument " << index
               << "; kernels take contiguous buffers";
      argument.isBuffer = true;
      argument.buffer = view->buffer;
      argument.offsetInBytes = getByteOffsetOf(view->elementType, view->offset);
      argument.sizeInBytes =
          getBytesOf(view->elementType, view->getNumElements());
      if (argument.offsetInBytes < 0)
        return launch.emitOpError()
               << "passes a view that starts inside a 32-bit word of packed "
                  "elements as argument "
               << index;
      if (kernelWritesArgument(launch, index))
        noteWrite(view->buffer);
    } else {
      auto found = values.find(operand);
      if (found == values.end())
        return launch.emitOpError() << "passes argument " << index
                                    << ", which the runtime did not compute";
      const Scalar &scalar = std::get<Scalar>(found->second);
      argument.scalarType = operand.getType();
      argument.integerValue =
          scalar.isFloat ? int64_t(scalar.real) : scalar.integer;
      argument.floatValue =
          scalar.isFloat ? scalar.real : double(scalar.integer);
    }
    step.arguments.push_back(argument);
  }
  plan->steps.push_back(std::move(step));
  return success();
}

FailureOr<ExecutionPlan> mlir::subgroup_matrix::runtime::planExecution(
    func::FuncOp host, ArrayRef<SmallVector<int64_t>> argumentShapes,
    ArrayRef<double> scalarArguments) {
  ExecutionPlan plan;
  HostInterpreter interpreter;
  if (failed(interpreter.run(host, argumentShapes, scalarArguments, plan)))
    return failure();
  return plan;
}

FailureOr<func::FuncOp>
mlir::subgroup_matrix::runtime::findHostFunction(ModuleOp module,
                                                 StringRef entry) {
  SmallVector<func::FuncOp> candidates;
  module.walk([&](func::FuncOp function) {
    if (function.isExternal() || isa<gpu::GPUModuleOp>(function->getParentOp()))
      return;
    if (!entry.empty() ? function.getSymName() == entry : function.isPublic())
      candidates.push_back(function);
  });
  if (candidates.size() > 1 && entry.empty()) {
    // Prefer the functions that launch kernels over helpers they call.
    SmallVector<func::FuncOp> launching;
    for (func::FuncOp function : candidates)
      if (function
              .walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        launching.push_back(function);
    if (!launching.empty())
      candidates = launching;
  }
  if (candidates.size() == 1)
    return candidates.front();
  InFlightDiagnostic diagnostic = emitError(module.getLoc());
  if (candidates.empty()) {
    if (entry.empty())
      diagnostic << "the program has no public function with a body to run";
    else
      diagnostic << "the program has no function named '" << entry << "'";
    return diagnostic;
  }
  diagnostic << "the program has " << candidates.size()
             << " functions to run; choose one with --entry:";
  for (func::FuncOp function : candidates)
    diagnostic << " " << function.getSymName();
  return diagnostic;
}
