//===- ElementKernelBuilder.cpp - what element-wise kernels share ---------===//
//
// The one builder of kernels that work element by element, shared by the
// element-wise kernel (ElementwiseKernel.cpp: an invocation per output
// element, or a workgroup per output of a long reduction) and the row-group
// kernel (RowGroupKernel.cpp: a workgroup per row): which values a body
// takes as kernel scalars, the kernel's skeleton and flat arguments, the
// decomposition of a linear index, the workgroup reduction, and the launch
// that spreads the elements over the grid.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

bool mlir::subgroup_matrix::isKernelScalar(Value value) {
  return value.getType().isIntOrIndexOrFloat() && !value.getType().isInteger(1);
}

SmallVector<Value>
mlir::subgroup_matrix::getKernelScalars(linalg::GenericOp op) {
  SmallVector<Value> scalars;
  // (Buffers the body loads from are buffers, not scalars.)
  auto add = [&](Value value) {
    if (!matchPattern(value, m_Constant()) &&
        !isa<ShapedType>(value.getType()) &&
        !llvm::is_contained(scalars, value))
      scalars.push_back(value);
  };
  for (Value input : op.getDpsInputs())
    if (!isa<ShapedType>(input.getType()))
      add(input);
  // Values from outside, used anywhere in the body (a branch's too) or
  // yielded.
  op.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (!op.getRegion().isAncestor(operand.getParentRegion()))
        add(operand);
  });
  return scalars;
}

std::optional<arith::AtomicRMWKind>
mlir::subgroup_matrix::getReductionKind(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArguments().back();
  Operation *combine = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body ||
      combine->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  using Kind = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(combine)
      .Case([](arith::AddFOp) { return Kind::addf; })
      .Case([](arith::AddIOp) { return Kind::addi; })
      .Case([](arith::MulFOp) { return Kind::mulf; })
      .Case([](arith::MulIOp) { return Kind::muli; })
      .Case([](arith::MaximumFOp) { return Kind::maximumf; })
      .Case([](arith::MinimumFOp) { return Kind::minimumf; })
      .Case([](arith::MaxNumFOp) { return Kind::maxnumf; })
      .Case([](arith::MinNumFOp) { return Kind::minnumf; })
      .Case([](arith::MaxSIOp) { return Kind::maxs; })
      .Case([](arith::MinSIOp) { return Kind::mins; })
      .Case([](arith::MaxUIOp) { return Kind::maxu; })
      .Case([](arith::MinUIOp) { return Kind::minu; })
      .Case([](arith::OrIOp) { return Kind::ori; })
      .Case([](arith::AndIOp) { return Kind::andi; })
      .Default([](Operation *) { return std::nullopt; });
}

StringRef mlir::subgroup_matrix::getLaunchElementName(Type element) {
  return element.isF16()         ? "f16"
         : element.isBF16()      ? "bf16"
         : element.isF32()       ? "f32"
         : element.isF64()       ? "f64"
         : element.isInteger(8)  ? "i8"
         : element.isInteger(32) ? "i32"
                                 : "";
}

bool mlir::subgroup_matrix::canLaunchAlone(ArrayRef<Value> buffers,
                                           ArrayRef<Value> scalars) {
  return scalars.empty() && llvm::all_of(buffers, [](Value buffer) {
           return !getLaunchElementName(
                       cast<MemRefType>(buffer.getType()).getElementType())
                       .empty();
         });
}

MemRefType mlir::subgroup_matrix::getWorkgroupBufferType(int64_t size,
                                                         Type element) {
  return MemRefType::get(
      {size}, element, AffineMap(),
      gpu::AddressSpaceAttr::get(element.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
}

void ElementKernelArguments::addScalar(Value value) {
  if (!matchPattern(value, m_Constant()) && !llvm::is_contained(scalars, value))
    scalars.push_back(value);
}

ElementKernelSkeleton mlir::subgroup_matrix::createElementKernel(
    gpu::GPUModuleOp into, Location loc, StringRef name,
    const ElementKernelArguments &arguments, ArrayRef<int64_t> ranges,
    ArrayRef<Type> attributions, int64_t workgroupSize) {
  MLIRContext *context = into.getContext();
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(into.getBody());
  Type indexType = moduleBuilder.getIndexType();
  SmallVector<Type> argumentTypes;
  for (Value buffer : arguments.buffers)
    argumentTypes.push_back(
        getFlatKernelArgumentType(cast<MemRefType>(buffer.getType())));
  for (int64_t range : ranges)
    if (ShapedType::isDynamic(range))
      argumentTypes.push_back(indexType);
  argumentTypes.append(arguments.extraSizes, indexType);
  for (Value scalar : arguments.scalars)
    argumentTypes.push_back(scalar.getType());

  ElementKernelSkeleton skeleton;
  skeleton.kernel = gpu::GPUFuncOp::create(
      moduleBuilder, loc, name, FunctionType::get(context, argumentTypes, {}),
      attributions);
  skeleton.kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                           moduleBuilder.getUnitAttr());
  skeleton.kernel.setKnownBlockSizeAttr(
      moduleBuilder.getDenseI32ArrayAttr({int32_t(workgroupSize), 1, 1}));
  skeleton.entry = &skeleton.kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(skeleton.entry);
  unsigned next = arguments.buffers.size();
  for (int64_t range : ranges)
    skeleton.loopSizes.push_back(
        ShapedType::isDynamic(range)
            ? Value(skeleton.entry->getArgument(next++))
            : Value(arith::ConstantIndexOp::create(b, loc, range)));
  for (unsigned i = 0; i < arguments.extraSizes; ++i)
    skeleton.extraSizes.push_back(skeleton.entry->getArgument(next++));
  for (Value scalar : arguments.scalars)
    skeleton.scalarArguments.map(scalar, skeleton.entry->getArgument(next++));
  return skeleton;
}

ElementLaunchOperands mlir::subgroup_matrix::buildElementLaunchOperands(
    OpBuilder &builder, Location loc, const ElementKernelArguments &arguments,
    ArrayRef<int64_t> ranges, ArrayRef<std::pair<Value, unsigned>> sourceOfLoop,
    ArrayRef<utils::IteratorType> iterators, utils::IteratorType kind,
    ArrayRef<std::pair<Value, unsigned>> extraSizes) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  ElementLaunchOperands launch;
  for (Value buffer : arguments.buffers)
    launch.operands.push_back(flattenForLaunch(builder, loc, buffer));
  launch.product = constant(1);
  for (auto [d, range] : llvm::enumerate(ranges)) {
    Value size;
    if (ShapedType::isDynamic(range)) {
      auto [source, position] = sourceOfLoop[d];
      size = memref::DimOp::create(builder, loc, source, position);
      launch.operands.push_back(size);
    } else {
      size = constant(range);
    }
    if (iterators[d] == kind)
      launch.product =
          builder.createOrFold<arith::MulIOp>(loc, launch.product, size);
  }
  for (auto [source, position] : extraSizes)
    launch.operands.push_back(
        memref::DimOp::create(builder, loc, source, position));
  llvm::append_range(launch.operands, arguments.scalars);
  return launch;
}

std::string mlir::subgroup_matrix::formatLoopProduct(
    ArrayRef<int64_t> ranges, ArrayRef<utils::IteratorType> iterators,
    ArrayRef<StringRef> names, utils::IteratorType kind) {
  SmallVector<int64_t> factors;
  SmallVector<StringRef> factorNames;
  for (auto [range, iterator, name] : llvm::zip(ranges, iterators, names))
    if (iterator == kind) {
      factors.push_back(range);
      factorNames.push_back(name);
    }
  std::string text = formatLaunchSize(factors, factorNames);
  if (text.front() == '{')
    text = text.substr(1, text.size() - 2);
  return text;
}

std::string mlir::subgroup_matrix::formatBufferSize(
    Value buffer, ArrayRef<linalg::GenericOp> ops, ArrayRef<StringRef> names) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> factors;
  SmallVector<StringRef> factorNames;
  for (int64_t position = 0; position < type.getRank(); ++position) {
    factors.push_back(type.getDimSize(position));
    factorNames.push_back("");
    if (!type.isDynamicDim(position))
      continue;
    for (linalg::GenericOp op : ops)
      for (OpOperand &operand : op->getOpOperands())
        if (operand.get() == buffer)
          if (auto dim = dyn_cast<AffineDimExpr>(
                  op.getMatchingIndexingMap(&operand).getResult(position)))
            factorNames.back() = names[dim.getPosition()];
  }
  return formatLaunchSize(factors, factorNames);
}

void mlir::subgroup_matrix::decomposeLinearIndex(
    OpBuilder &b, Location loc, Value linear, ArrayRef<Value> loopSizes,
    ArrayRef<utils::IteratorType> iterators, utils::IteratorType kind,
    MutableArrayRef<Value> loops) {
  for (int64_t d = int64_t(loops.size()) - 1; d >= 0; --d) {
    if (iterators[d] != kind)
      continue;
    loops[d] = arith::RemUIOp::create(b, loc, linear, loopSizes[d]);
    linear = arith::DivUIOp::create(b, loc, linear, loopSizes[d]);
  }
}

Value mlir::subgroup_matrix::getScalarInKernel(
    OpBuilder &b, Value scalar, const IRMapping &scalarArguments) {
  return scalarArguments.contains(scalar)
             ? scalarArguments.lookup(scalar)
             : b.clone(*scalar.getDefiningOp())->getResult(0);
}

void mlir::subgroup_matrix::emitWorkgroupReduction(OpBuilder &b, Location loc,
                                                   arith::AtomicRMWKind kind,
                                                   Value partial, Value parts,
                                                   Value thread, int64_t size) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  memref::StoreOp::create(b, loc, partial, parts, thread);
  gpu::BarrierOp::create(b, loc);
  for (int64_t half = size / 2; half >= 1; half /= 2) {
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         thread, index(half));
    auto combine = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(combine.thenBlock());
      Value mine = memref::LoadOp::create(b, loc, parts, thread);
      Value partner = arith::AddIOp::create(b, loc, thread, index(half));
      Value other = memref::LoadOp::create(b, loc, parts, partner);
      memref::StoreOp::create(b, loc,
                              arith::getReductionOp(kind, b, loc, mine, other),
                              parts, thread);
    }
    gpu::BarrierOp::create(b, loc);
  }
}

IRMapping mlir::subgroup_matrix::mapElementArguments(
    OpBuilder &b, linalg::GenericOp op, const IRMapping &scalarArguments,
    const IRMapping &known, function_ref<Value(OpOperand *)> loadOperand,
    ArrayRef<Value> loops) {
  IRMapping mapping = scalarArguments;
  Block &body = op.getRegion().front();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    Value value = operand->get();
    BlockArgument argument = body.getArgument(operand->getOperandNumber());
    if (known.contains(value))
      mapping.map(argument, known.lookup(value));
    else if (argument.use_empty())
      continue;
    else if (!isa<MemRefType>(value.getType()))
      mapping.map(argument, getScalarInKernel(b, value, scalarArguments));
    else
      mapping.map(argument, loadOperand(operand));
  }
  body.walk([&](linalg::IndexOp indexOp) {
    mapping.map(indexOp.getResult(), loops[indexOp.getDim()]);
  });
  return mapping;
}

LaunchAttr mlir::subgroup_matrix::getSpreadLaunch(MLIRContext *context,
                                                  ArrayRef<Value> buffers,
                                                  ArrayRef<std::string> counts,
                                                  std::array<int64_t, 2> grid,
                                                  StringRef workgroups,
                                                  ArrayRef<std::string> sizes) {
  SmallVector<std::string> arguments;
  for (auto [buffer, count] : llvm::zip(buffers, counts))
    arguments.push_back(
        llvm::formatv("{0}:{1}:random",
                      getLaunchElementName(
                          cast<MemRefType>(buffer.getType()).getElementType()),
                      count));
  if (workgroups.empty())
    return LaunchAttr::get(
        context, {std::to_string(grid[0]), std::to_string(grid[1]), "1"},
        arguments, sizes, "");
  std::string gridX =
      llvm::formatv("min({0},{1})", workgroups, kMaxGridDimension);
  return LaunchAttr::get(
      context,
      {gridX, llvm::formatv("ceildiv({0},{1})", workgroups, gridX).str(), "1"},
      arguments, sizes, "");
}

SmallVector<Value>
mlir::subgroup_matrix::getBodyLoadedBuffers(linalg::GenericOp op) {
  SmallVector<Value> loaded;
  op.getRegion().walk([&](memref::LoadOp load) {
    if (!op.getRegion().isAncestor(load.getMemRef().getParentRegion()) &&
        !llvm::is_contained(loaded, load.getMemRef()))
      loaded.push_back(load.getMemRef());
  });
  return loaded;
}
