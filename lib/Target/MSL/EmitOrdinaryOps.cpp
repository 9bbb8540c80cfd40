//===- EmitOrdinaryOps.cpp - arith, math, gpu, scf and memref as MSL ------===//
//
// The ops around the subgroup matrices: scalar arithmetic, positions and
// barriers, structured control flow and memory accesses, as the statements
// of the Metal kernel (see MSLEmitter.h).
//
//===----------------------------------------------------------------------===//

#include "MSLEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::msl;

//===----------------------------------------------------------------------===//
// arith and math
//===----------------------------------------------------------------------===//

/// The text of a constant of `type`.
static FailureOr<std::string> getConstantText(Location loc, Attribute value,
                                              StringRef typeName) {
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    if (integer.getType().isInteger(1))
      return std::string(integer.getValue().isZero() ? "false" : "true");
    return typeName.str() + "(" +
           std::to_string(integer.getValue().getSExtValue()) + ")";
  }
  if (auto floating = dyn_cast<FloatAttr>(value)) {
    APFloat number = floating.getValue();
    if (number.isNaN())
      return typeName.str() + "(NAN)";
    if (number.isInfinity())
      return typeName.str() +
             (number.isNegative() ? "(-INFINITY)" : "(INFINITY)");
    SmallString<32> digits;
    // Enough digits to round-trip a double, which covers every float type.
    bool losesInfo;
    APFloat wide = number;
    wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
    llvm::raw_svector_ostream(digits)
        << llvm::format("%.17g", wide.convertToDouble());
    return typeName.str() + "(" + std::string(digits) + ")";
  }
  return emitError(loc) << "constant " << value
                        << " cannot be emitted as Metal";
}

LogicalResult MSLEmitter::emitArith(Operation &op) {
  auto binary = [&](StringRef symbol) -> LogicalResult {
    return assign(
        op.getResult(0), "",
        (name(op.getOperand(0)) + " " + symbol + " " + name(op.getOperand(1)))
            .str());
  };
  // Unsigned arithmetic on signless integers: the operands read as
  // unsigned, the result converted back to the value's type; `symbol` is an
  // infix operator, or a function when `isFunction`.
  auto unsignedOperation = [&](StringRef symbol,
                               bool isFunction) -> LogicalResult {
    Type type = op.getResult(0).getType();
    std::string u = getUnsignedTypeName(type);
    FailureOr<std::string> result = getTypeName(op.getLoc(), type);
    if (failed(result))
      return failure();
    std::string lhs = u + "(" + name(op.getOperand(0)) + ")";
    std::string rhs = u + "(" + name(op.getOperand(1)) + ")";
    std::string expression = isFunction
                                 ? symbol.str() + "(" + lhs + ", " + rhs + ")"
                                 : lhs + " " + symbol.str() + " " + rhs;
    return assign(op.getResult(0), "", *result + "(" + expression + ")");
  };
  auto unsignedBinary = [&](StringRef symbol) {
    return unsignedOperation(symbol, /*isFunction=*/false);
  };
  auto unsignedCall = [&](StringRef function) {
    return unsignedOperation(function, /*isFunction=*/true);
  };
  auto call = [&](StringRef function) -> LogicalResult {
    std::string args;
    for (Value operand : op.getOperands())
      args += (args.empty() ? "" : ", ") + name(operand);
    return assign(op.getResult(0), "", function.str() + "(" + args + ")");
  };
  // The result of a one-operand conversion, as `spell` writes it from the
  // result's type name and the operand's name.
  auto convert = [&](auto spell) -> LogicalResult {
    FailureOr<std::string> type =
        getTypeName(op.getLoc(), op.getResult(0).getType());
    if (failed(type))
      return failure();
    return assign(op.getResult(0), "", spell(*type, name(op.getOperand(0))));
  };
  auto cast = [&]() {
    return convert([](const std::string &type, const std::string &operand) {
      return type + "(" + operand + ")";
    });
  };
  // Zero-extending casts read the operand as unsigned first.
  auto unsignedCast = [&]() {
    std::string unsignedOperand =
        getUnsignedTypeName(op.getOperand(0).getType());
    return convert([&](const std::string &type, const std::string &operand) {
      return type + "(" + unsignedOperand + "(" + operand + "))";
    });
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](arith::ConstantOp constant) -> LogicalResult {
        FailureOr<std::string> type =
            getTypeName(op.getLoc(), constant.getType());
        if (failed(type))
          return failure();
        FailureOr<std::string> text =
            getConstantText(op.getLoc(), constant.getValue(), *type);
        if (failed(text))
          return failure();
        return assign(constant.getResult(), "", *text);
      })
      .Case<arith::AddIOp, arith::AddFOp>([&](auto) { return binary("+"); })
      .Case<arith::SubIOp, arith::SubFOp>([&](auto) { return binary("-"); })
      .Case<arith::MulIOp, arith::MulFOp>([&](auto) { return binary("*"); })
      .Case<arith::DivSIOp, arith::DivFOp>([&](auto) { return binary("/"); })
      .Case<arith::RemSIOp>([&](auto) { return binary("%"); })
      .Case<arith::AndIOp>([&](auto) { return binary("&"); })
      .Case<arith::OrIOp>([&](auto) { return binary("|"); })
      .Case<arith::XOrIOp>([&](auto) { return binary("^"); })
      .Case<arith::ShLIOp>([&](auto) { return binary("<<"); })
      .Case<arith::ShRSIOp>([&](auto) { return binary(">>"); })
      .Case<arith::DivUIOp>([&](auto) { return unsignedBinary("/"); })
      .Case<arith::RemUIOp>([&](auto) { return unsignedBinary("%"); })
      .Case<arith::ShRUIOp>([&](auto) { return unsignedBinary(">>"); })
      .Case<arith::MinUIOp>([&](auto) { return unsignedCall("min"); })
      .Case<arith::MaxUIOp>([&](auto) { return unsignedCall("max"); })
      .Case<arith::MinSIOp, arith::MinimumFOp, arith::MinNumFOp>(
          [&](auto) { return call("min"); })
      .Case<arith::MaxSIOp, arith::MaximumFOp, arith::MaxNumFOp>(
          [&](auto) { return call("max"); })
      .Case([&](arith::NegFOp) {
        return assign(op.getResult(0), "", "-" + name(op.getOperand(0)));
      })
      .Case([&](arith::CmpIOp compare) -> LogicalResult {
        StringRef symbol;
        bool isUnsigned = false;
        switch (compare.getPredicate()) {
        case arith::CmpIPredicate::eq:
          symbol = "==";
          break;
        case arith::CmpIPredicate::ne:
          symbol = "!=";
          break;
        case arith::CmpIPredicate::slt:
          symbol = "<";
          break;
        case arith::CmpIPredicate::sle:
          symbol = "<=";
          break;
        case arith::CmpIPredicate::sgt:
          symbol = ">";
          break;
        case arith::CmpIPredicate::sge:
          symbol = ">=";
          break;
        case arith::CmpIPredicate::ult:
          symbol = "<", isUnsigned = true;
          break;
        case arith::CmpIPredicate::ule:
          symbol = "<=", isUnsigned = true;
          break;
        case arith::CmpIPredicate::ugt:
          symbol = ">", isUnsigned = true;
          break;
        case arith::CmpIPredicate::uge:
          symbol = ">=", isUnsigned = true;
          break;
        }
        std::string lhs = name(compare.getLhs());
        std::string rhs = name(compare.getRhs());
        if (isUnsigned) {
          std::string u = getUnsignedTypeName(compare.getLhs().getType());
          lhs = u + "(" + lhs + ")", rhs = u + "(" + rhs + ")";
        }
        return assign(compare.getResult(), "",
                      lhs + " " + symbol.str() + " " + rhs);
      })
      .Case([&](arith::CmpFOp compare) -> LogicalResult {
        // C++ (and Metal) comparisons are ordered except `!=`; an unordered
        // predicate is the negation of the ordered opposite.
        std::string lhs = name(compare.getLhs()), rhs = name(compare.getRhs());
        auto binary = [&](StringRef symbol) {
          return lhs + " " + symbol.str() + " " + rhs;
        };
        std::string expression;
        switch (compare.getPredicate()) {
        case arith::CmpFPredicate::AlwaysFalse:
          expression = "false";
          break;
        case arith::CmpFPredicate::AlwaysTrue:
          expression = "true";
          break;
        case arith::CmpFPredicate::OEQ:
          expression = binary("==");
          break;
        case arith::CmpFPredicate::OLT:
          expression = binary("<");
          break;
        case arith::CmpFPredicate::OLE:
          expression = binary("<=");
          break;
        case arith::CmpFPredicate::OGT:
          expression = binary(">");
          break;
        case arith::CmpFPredicate::OGE:
          expression = binary(">=");
          break;
        case arith::CmpFPredicate::ONE:
          expression = "(" + binary("<") + ") || (" + binary(">") + ")";
          break;
        case arith::CmpFPredicate::ORD:
          expression = "!isnan(" + lhs + ") && !isnan(" + rhs + ")";
          break;
        case arith::CmpFPredicate::UNE:
          expression = binary("!=");
          break;
        case arith::CmpFPredicate::UEQ:
          expression = "!((" + binary("<") + ") || (" + binary(">") + "))";
          break;
        case arith::CmpFPredicate::ULT:
          expression = "!(" + binary(">=") + ")";
          break;
        case arith::CmpFPredicate::ULE:
          expression = "!(" + binary(">") + ")";
          break;
        case arith::CmpFPredicate::UGT:
          expression = "!(" + binary("<=") + ")";
          break;
        case arith::CmpFPredicate::UGE:
          expression = "!(" + binary("<") + ")";
          break;
        case arith::CmpFPredicate::UNO:
          expression = "isnan(" + lhs + ") || isnan(" + rhs + ")";
          break;
        }
        return assign(compare.getResult(), "", expression);
      })
      .Case([&](arith::SelectOp select) {
        return assign(select.getResult(), "",
                      name(select.getCondition()) + " ? " +
                          name(select.getTrueValue()) + " : " +
                          name(select.getFalseValue()));
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp,
            arith::SIToFPOp, arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp>(
          [&](auto) { return cast(); })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp, arith::UIToFPOp>(
          [&](auto) { return unsignedCast(); })
      // The same bits as another type of their width (a bf16 copied as a
      // 16-bit integer).
      .Case([&](arith::BitcastOp) {
        return convert([](const std::string &type, const std::string &operand) {
          return "as_type<" + type + ">(" + operand + ")";
        });
      })
      // To unsigned through the unsigned type of the result's width.
      .Case([&](arith::FPToUIOp) {
        std::string unsignedResult =
            getUnsignedTypeName(op.getResult(0).getType());
        return convert(
            [&](const std::string &type, const std::string &operand) {
              return type + "(" + unsignedResult + "(" + operand + "))";
            });
      })
      .Case([&](math::SqrtOp) { return call("sqrt"); })
      .Case([&](math::RsqrtOp) { return call("rsqrt"); })
      .Case([&](math::ExpOp) { return call("exp"); })
      .Case([&](math::Exp2Op) { return call("exp2"); })
      .Case([&](math::LogOp) { return call("log"); })
      .Case([&](math::Log2Op) { return call("log2"); })
      .Case([&](math::TanhOp) { return call("tanh"); })
      .Case([&](math::SinOp) { return call("sin"); })
      .Case([&](math::CosOp) { return call("cos"); })
      .Case([&](math::AbsFOp) { return call("fabs"); })
      .Case([&](math::FloorOp) { return call("floor"); })
      .Case([&](math::CeilOp) { return call("ceil"); })
      .Case([&](math::FmaOp) { return call("fma"); })
      .Case([&](math::PowFOp) { return call("pow"); })
      .Default([&](Operation *) {
        return op.emitOpError("cannot be emitted as Metal Shading Language");
      });
}

//===----------------------------------------------------------------------===//
// gpu
//===----------------------------------------------------------------------===//

static StringRef getComponent(gpu::Dimension dimension) {
  switch (dimension) {
  case gpu::Dimension::x:
    return "x";
  case gpu::Dimension::y:
    return "y";
  case gpu::Dimension::z:
    return "z";
  }
  llvm_unreachable("unknown dimension");
}

LogicalResult MSLEmitter::emitGPU(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](gpu::ThreadIdOp id) {
        return assign(id, "tid_" + getComponent(id.getDimension()).str(),
                      usePosition("thread_position_in_threadgroup",
                                  getComponent(id.getDimension())));
      })
      .Case([&](gpu::BlockIdOp id) {
        return assign(id, "bid_" + getComponent(id.getDimension()).str(),
                      usePosition("threadgroup_position_in_grid",
                                  getComponent(id.getDimension())));
      })
      .Case([&](gpu::GlobalIdOp id) {
        return assign(id, "gid_" + getComponent(id.getDimension()).str(),
                      usePosition("thread_position_in_grid",
                                  getComponent(id.getDimension())));
      })
      .Case([&](gpu::BlockDimOp dim) {
        return assign(dim,
                      "block_dim_" + getComponent(dim.getDimension()).str(),
                      usePosition("threads_per_threadgroup",
                                  getComponent(dim.getDimension())));
      })
      .Case([&](gpu::GridDimOp dim) {
        return assign(dim, "grid_dim_" + getComponent(dim.getDimension()).str(),
                      usePosition("threadgroups_per_grid",
                                  getComponent(dim.getDimension())));
      })
      .Case([&](gpu::SubgroupIdOp id) {
        return assign(id, "simdgroup",
                      usePosition("simdgroup_index_in_threadgroup"));
      })
      .Case([&](gpu::LaneIdOp id) {
        return assign(id, "lane", usePosition("thread_index_in_simdgroup"));
      })
      .Case([&](gpu::ShuffleOp shuffle) -> LogicalResult {
        // XOR shuffles within a power-of-two width stay inside their
        // segment of the simdgroup, so the whole-simdgroup shuffle is
        // the same; other modes are not emitted yet.
        if (shuffle.getMode() != gpu::ShuffleMode::XOR)
          return shuffle.emitOpError(
              "cannot be emitted as Metal Shading Language: only xor "
              "shuffles are supported");
        std::string offset = name(shuffle.getOffset());
        std::string lane = usePosition("thread_index_in_simdgroup");
        if (failed(assign(shuffle.getShuffleResult(), "",
                          "simd_shuffle_xor(" + name(shuffle.getValue()) +
                              ", ushort(" + offset + "))")))
          return failure();
        return assign(shuffle.getValid(), "",
                      "(" + lane + " ^ " + offset + ") < " +
                          name(shuffle.getWidth()));
      })
      .Case([&](gpu::SubgroupSizeOp size) {
        return assign(size, "simd_width", usePosition("threads_per_simdgroup"));
      })
      .Case([&](gpu::NumSubgroupsOp count) {
        return assign(count, "simdgroups",
                      usePosition("simdgroups_per_threadgroup"));
      })
      .Case([&](gpu::BarrierOp) {
        os << "threadgroup_barrier(mem_flags::mem_threadgroup | "
              "mem_flags::mem_device);\n";
        return success();
      })
      .Case([&](gpu::ReturnOp) {
        // The kernel's last op needs no statement.
        if (op.getNextNode() || !isa<gpu::GPUFuncOp>(op.getParentOp()))
          os << "return;\n";
        return success();
      })
      .Default([&](Operation *) {
        return op.emitOpError("cannot be emitted as Metal Shading Language");
      });
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

LogicalResult MSLEmitter::emitSCF(Operation &op) {
  // Results of region ops are variables declared before the op and
  // assigned by its scf.yield.
  auto declareResults =
      [&](Operation *parent) -> FailureOr<SmallVector<std::string>> {
    SmallVector<std::string> variables;
    for (OpResult result : parent->getResults()) {
      FailureOr<std::string> type =
          getTypeName(result.getLoc(), result.getType());
      if (failed(type))
        return failure();
      std::string variable = bind(result, "r");
      os << *type << " " << variable << ";\n";
      variables.push_back(variable);
    }
    return variables;
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](scf::ForOp loop) -> LogicalResult {
        SmallVector<std::string> carried;
        for (auto [result, init] :
             llvm::zip(loop.getResults(), loop.getInitArgs())) {
          FailureOr<std::string> type =
              getTypeName(result.getLoc(), result.getType());
          if (failed(type))
            return failure();
          std::string variable = bind(result, "acc");
          os << *type << " " << variable << " = " << name(init) << ";\n";
          carried.push_back(variable);
        }
        for (auto [argument, variable] :
             llvm::zip(loop.getRegionIterArgs(), carried))
          names[argument] = variable;
        std::string iv = bind(loop.getInductionVar(), "i");
        os << "for (int " << iv << " = " << name(loop.getLowerBound()) << "; "
           << iv << " < " << name(loop.getUpperBound()) << "; " << iv
           << " += " << name(loop.getStep()) << ") {\n";
        os.indent();
        yieldTargets.push_back(carried);
        if (failed(emitBlock(*loop.getBody())))
          return failure();
        yieldTargets.pop_back();
        os.unindent();
        os << "}\n";
        return success();
      })
      .Case([&](scf::IfOp ifOp) -> LogicalResult {
        FailureOr<SmallVector<std::string>> results = declareResults(ifOp);
        if (failed(results))
          return failure();
        os << "if (" << name(ifOp.getCondition()) << ") {\n";
        os.indent();
        yieldTargets.push_back(*results);
        if (failed(emitBlock(ifOp.getThenRegion().front())))
          return failure();
        os.unindent();
        if (!ifOp.getElseRegion().empty()) {
          os << "} else {\n";
          os.indent();
          if (failed(emitBlock(ifOp.getElseRegion().front())))
            return failure();
          os.unindent();
        }
        yieldTargets.pop_back();
        os << "}\n";
        return success();
      })
      .Case([&](scf::YieldOp yield) -> LogicalResult {
        if (yield.getNumOperands() == 0)
          return success();
        if (yieldTargets.empty() ||
            yieldTargets.back().size() != yield.getNumOperands())
          return yield.emitOpError("has no enclosing op the Metal emitter "
                                   "can assign its values to");
        // Through temporaries, so that a value yielded to one variable may
        // be another's old value.
        SmallVector<std::string> temporaries;
        for (Value value : yield.getOperands()) {
          FailureOr<std::string> type =
              getTypeName(value.getLoc(), value.getType());
          if (failed(type))
            return failure();
          std::string temporary = uniqueName("next");
          os << *type << " " << temporary << " = " << name(value) << ";\n";
          temporaries.push_back(temporary);
        }
        for (auto [target, temporary] :
             llvm::zip(yieldTargets.back(), temporaries))
          os << target << " = " << temporary << ";\n";
        return success();
      })
      .Default([&](Operation *) {
        return op.emitOpError("cannot be emitted as Metal Shading Language");
      });
}

//===----------------------------------------------------------------------===//
// memref
//===----------------------------------------------------------------------===//

FailureOr<std::string>
MSLEmitter::getElementAddress(Operation *op, Value memref, ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      offset == ShapedType::kDynamic ||
      llvm::is_contained(strides, ShapedType::kDynamic))
    return op->emitOpError("needs a memref with static strides to be "
                           "addressed in Metal, got ")
           << type;
  std::string index = offset ? std::to_string(offset) : "";
  for (auto [value, stride] : llvm::zip(indices, strides)) {
    std::string term = name(value);
    if (stride != 1)
      term += " * " + std::to_string(stride);
    index += (index.empty() ? "" : " + ") + term;
  }
  if (index.empty())
    index = "0";
  return index;
}

LogicalResult MSLEmitter::emitMemRef(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](memref::LoadOp load) -> LogicalResult {
        FailureOr<std::string> index =
            getElementAddress(load, load.getMemRef(), load.getIndices());
        if (failed(index))
          return failure();
        return assign(load.getResult(), "",
                      name(load.getMemRef()) + "[" + *index + "]");
      })
      .Case([&](memref::AllocOp alloc) -> LogicalResult {
        // A threadgroup array, which Metal declares only in the kernel's
        // outermost scope.
        MemRefType type = alloc.getType();
        auto space =
            dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
        if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
          return alloc.emitOpError("cannot be emitted as Metal: only "
                                   "workgroup memory is allocated in a "
                                   "kernel, got ")
                 << type;
        if (!isa<gpu::GPUFuncOp>(alloc->getParentOp()))
          return alloc.emitOpError(
              "cannot be emitted as Metal: threadgroup memory is declared "
              "in the kernel's outermost block, not inside a loop or branch");
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          return alloc.emitOpError("cannot be emitted as Metal: a "
                                   "threadgroup array has a static shape and "
                                   "the identity layout, got ")
                 << type;
        FailureOr<std::string> element =
            getTypeName(alloc.getLoc(), type.getElementType());
        if (failed(element))
          return failure();
        os << "threadgroup " << *element << " "
           << bind(alloc.getResult(), "workgroup") << "["
           << type.getNumElements() << "];\n";
        return success();
      })
      .Case([&](memref::StoreOp store) -> LogicalResult {
        FailureOr<std::string> index =
            getElementAddress(store, store.getMemRef(), store.getIndices());
        if (failed(index))
          return failure();
        os << name(store.getMemRef()) << "[" << *index
           << "] = " << name(store.getValueToStore()) << ";\n";
        return success();
      })
      .Default([&](Operation *) {
        return op.emitOpError("cannot be emitted as Metal Shading Language");
      });
}
