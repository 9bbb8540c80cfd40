//===- ExpandThroughWorkgroupMemory.cpp - ops matrices cannot do ----------===//
//
// Neither SPV_KHR_cooperative_matrix nor Metal gives an invocation a way to
// know which elements it holds, so the operations that need an element's
// position or its neighbours (a map that reads the row or column or computes
// more than the target's register arithmetic, a reduction, a change of kind
// or component type the registers cannot make, a load or store of a matrix
// only partly inside its bounds, a decode load) go through a per-subgroup
// scratch tile in workgroup memory: the subgroup stores its matrices there,
// synchronizes, each invocation computes elements lane, lane + S,
// lane + 2S, ... of the M x N tile with ordinary instructions, the subgroup
// synchronizes again and loads the result. The tile is allocated here,
// sized for the largest such op of the kernel, one slice per subgroup;
// kernels without these ops are left alone.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_EXPANDTHROUGHWORKGROUPMEMORYPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

bool mlir::subgroup_matrix::isComponentWiseBody(Block &body,
                                                ArrayRef<Type> storageTypes) {
  // Several types: f16 and f32 only, converted by OpFConvert. Every value
  // is of one of them, so that every matrix the lowering makes has a type
  // the program already uses (and the target therefore has).
  llvm::SmallDenseSet<Type> types(llvm::from_range, storageTypes);
  if (types.size() > 1 && !llvm::all_of(types, [](Type type) {
        return type.isF16() || type.isF32();
      }))
    return false;
  return llvm::all_of(body.without_terminator(), [&](Operation &inner) {
    if (!isa<arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
             arith::DivFOp, arith::NegFOp, arith::AddIOp, arith::SubIOp,
             arith::MulIOp, arith::ExtFOp, arith::TruncFOp>(inner))
      return false;
    auto isKnown = [&](Type type) { return types.contains(type); };
    if (!llvm::all_of(inner.getResultTypes(), isKnown) ||
        !llvm::all_of(inner.getOperandTypes(), isKnown))
      return false;
    if (auto truncate = dyn_cast<arith::TruncFOp>(inner))
      if (truncate.getRoundingmodeAttr())
        return false;
    // Fast-math flags have no cooperative-matrix form.
    if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(inner))
      if (fastMath.getFastMathFlagsAttr() &&
          fastMath.getFastMathFlagsAttr().getValue() !=
              arith::FastMathFlags::none)
        return false;
    // Integer overflow flags neither.
    if (auto overflow =
            dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(inner))
      if (overflow.getOverflowAttr().getValue() !=
          arith::IntegerOverflowFlags::none)
        return false;
    return true;
  });
}

bool mlir::subgroup_matrix::isComponentWiseMap(MapOp op) {
  if (!op.getRow().use_empty() || !op.getColumn().use_empty())
    return false;
  // Matrices of several types are float ones (integer matrices of one
  // storage type may still differ in signedness).
  llvm::SmallDenseSet<Type> types = {op.getResult().getType()};
  for (Value input : op.getInputs())
    types.insert(input.getType());
  SmallVector<Type> storageTypes;
  for (Type type : types) {
    Type component = cast<SubgroupMatrixTypeInterface>(type).getElementType();
    if (types.size() > 1 && !isa<FloatType>(component))
      return false;
    storageTypes.push_back(getStorageType(component));
  }
  return isComponentWiseBody(op.getBodyBlock(), storageTypes);
}

/// Whether `op` converts its elements one by one in workgroup memory rather
/// than in registers: where the registers cannot change the component type,
/// and for narrowing integer conversions, which Mesa's RADV (25.0) crashes
/// compiling on cooperative matrices.
static bool convertsElementByElement(ConvertOp op,
                                     MatrixRegisterOps registerOps) {
  Type from = op.getSourceType().getElementType(),
       to = op.getResultType().getElementType();
  if (registerOps != MatrixRegisterOps::ComponentWise)
    return from != to;
  return isa<IntegerType>(from) && isa<IntegerType>(to) &&
         to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth();
}

bool mlir::subgroup_matrix::needsWorkgroupMemory(
    Operation *op, MatrixRegisterOps registerOps) {
  bool componentWise = registerOps == MatrixRegisterOps::ComponentWise;
  if (auto map = dyn_cast<MapOp>(op))
    return !componentWise || !isComponentWiseMap(map);
  if (auto convert = dyn_cast<ConvertOp>(op)) {
    SubgroupMatrixTypeInterface from = convert.getSourceType(),
                                to = convert.getResultType();
    if (componentWise)
      return from.getKind() != to.getKind();
    return from.getElementType() != to.getElementType();
  }
  if (auto load = dyn_cast<LoadOp>(op))
    return load.isBounded();
  if (auto store = dyn_cast<StoreOp>(op))
    return store.isBounded();
  return isa<ReduceOp, DecodeLoadOp>(op);
}

/// The matrix type an op that goes through workgroup memory works on.
static SubgroupMatrixTypeInterface getExpandedMatrixType(Operation *op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return store.getMatrixType();
  // A reduction over 2x2 blocks has a smaller result than its operand.
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduce.getMatrixType();
  return cast<SubgroupMatrixTypeInterface>(op->getResult(0).getType());
}

namespace {
/// The tiles one op needs, per storage type.
using TileCounts = llvm::MapVector<Type, unsigned>;

TileCounts countTiles(Operation *op, MatrixRegisterOps registerOps) {
  TileCounts counts;
  auto storageOf = [](Type matrix) {
    return getStorageType(
        cast<SubgroupMatrixTypeInterface>(matrix).getElementType());
  };
  if (auto map = dyn_cast<MapOp>(op)) {
    for (Value input : map.getInputs())
      ++counts[storageOf(input.getType())];
    ++counts[storageOf(map.getType())];
  } else if (auto convert = dyn_cast<ConvertOp>(op)) {
    // A change of kind needs one tile of the converted component type, and
    // one converted element by element a tile of the source's too.
    ++counts[storageOf(convert.getType())];
    if (convertsElementByElement(convert, registerOps))
      ++counts[storageOf(convert.getSource().getType())];
  } else {
    // A reduction works in place, except over 2x2 blocks, which writes its
    // result to a second tile; a bounded load or store and a decode load
    // move their matrix through one tile.
    auto reduce = dyn_cast<ReduceOp>(op);
    counts[getStorageType(getExpandedMatrixType(op).getElementType())] +=
        reduce && reduce.getDimensions() == ReductionDimensions::Blocks2x2 ? 2
                                                                           : 1;
  }
  return counts;
}

/// Emits the expansion of the scratch-needing ops of one kernel.
class ScratchExpander {
public:
  ScratchExpander(gpu::GPUFuncOp kernel, unsigned subgroupSize,
                  MatrixRegisterOps registerOps)
      : kernel(kernel), subgroupSize(subgroupSize), registerOps(registerOps) {}

  LogicalResult run();

private:
  /// The scratch buffer of `type` and the first element of this subgroup's
  /// `index`-th tile of it.
  std::pair<Value, Value> getTile(OpBuilder &b, Location loc, Type type,
                                  unsigned index, unsigned tileElements);
  /// A barrier among the invocations of the subgroup, which makes their
  /// workgroup-memory writes visible to each other.
  void synchronizeSubgroup(OpBuilder &b, Location loc);
  /// `for (i = lane; i < count; i += subgroupSize) body(i)`.
  void forEachLaneElement(OpBuilder &b, Location loc, int64_t count,
                          function_ref<void(OpBuilder &, Value)> body);
  Value index(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// Replaces `op` by the matrix loaded from its result tile (`buffer` from
  /// `start`, rows `stride` apart), written and synchronized before.
  void replaceWithTile(OpBuilder &b, Operation *op, Value buffer, Value start,
                       Value stride);

  void expandMap(MapOp op);
  void expandReduce(ReduceOp op);
  void expandConvert(ConvertOp op);
  void expandBoundedLoad(LoadOp op);
  void expandBoundedStore(StoreOp op);
  void expandDecodeLoad(DecodeLoadOp op);

  /// The subgroup's tile through which a bounded load or store (`op`)
  /// moves a matrix that is cut, and whether the matrix lies inside its
  /// bounds.
  struct BoundedTile {
    Value buffer, start, whole;
    int64_t elements;
  };
  template <typename AccessOp>
  BoundedTile getBoundedTile(OpBuilder &b, AccessOp op);
  /// `body(builder, tileAddress, inside, indices)` for each of this
  /// invocation's elements of the row-major `tile`: its address in the
  /// tile, whether it lies inside `op`'s bounds, and its indices in `op`'s
  /// memory.
  template <typename AccessOp>
  void forEachBoundedElement(
      OpBuilder &b, AccessOp op, const BoundedTile &tile,
      function_ref<void(OpBuilder &, Value, Value, ValueRange)> body);

  gpu::GPUFuncOp kernel;
  unsigned subgroupSize;
  MatrixRegisterOps registerOps;
  /// Per storage type: the buffer and the elements of one subgroup's slice.
  llvm::MapVector<Type, std::pair<Value, int64_t>> buffers;
  Value subgroupId, lane;
};
} // namespace

LogicalResult ScratchExpander::run() {
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (needsWorkgroupMemory(op, registerOps))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  // Each subgroup writes and reads back its own matrices; a workgroup's
  // matrix has no per-subgroup share to do that with.
  for (Operation *op : ops)
    if (getExpandedMatrixType(op).getScope() == MatrixScope::Workgroup)
      return op->emitOpError(
          "on a workgroup-scope matrix has no lowering: "
          "VK_NV_cooperative_matrix2 reduces and maps result matrices, "
          "converts them into left and right ones, and loads and stores "
          "within bounds (sm-use-nv-cooperative-matrix2, where the target "
          "lists the feature), and the workgroup-memory form of the rest "
          "works on subgroup matrices only");
  std::optional<ArrayRef<int32_t>> blockSize = kernel.getKnownBlockSize();
  if (!blockSize)
    return kernel.emitError("kernel '")
           << kernel.getName()
           << "' needs a known workgroup size to size the workgroup memory "
              "through which its subgroup matrices are mapped, reduced, "
              "converted, decoded, or loaded and stored within bounds";
  int64_t invocations = 1;
  for (int32_t extent : *blockSize)
    invocations *= extent;
  int64_t subgroups = std::max<int64_t>(1, invocations / subgroupSize);

  // One slice per subgroup of each storage type, as large as the op that
  // needs most.
  llvm::MapVector<Type, int64_t> sliceElements;
  for (Operation *op : ops) {
    SubgroupMatrixTypeInterface matrix = getExpandedMatrixType(op);
    int64_t tile = int64_t(matrix.getRows()) * matrix.getColumns();
    for (auto [type, count] : countTiles(op, registerOps))
      sliceElements[type] = std::max(sliceElements[type], count * tile);
  }
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Location loc = kernel.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(kernel.getContext(),
                                              gpu::AddressSpace::Workgroup);
  for (auto [type, elements] : sliceElements) {
    auto memrefType = MemRefType::get({subgroups * elements}, type,
                                      MemRefLayoutAttrInterface(), workgroup);
    buffers[type] = {memref::AllocOp::create(b, loc, memrefType), elements};
  }
  subgroupId = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
  lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);

  for (Operation *op : ops) {
    if (auto map = dyn_cast<MapOp>(op))
      expandMap(map);
    else if (auto reduce = dyn_cast<ReduceOp>(op))
      expandReduce(reduce);
    else if (auto load = dyn_cast<LoadOp>(op))
      expandBoundedLoad(load);
    else if (auto store = dyn_cast<StoreOp>(op))
      expandBoundedStore(store);
    else if (auto decode = dyn_cast<DecodeLoadOp>(op))
      expandDecodeLoad(decode);
    else
      expandConvert(cast<ConvertOp>(op));
  }
  return success();
}

std::pair<Value, Value> ScratchExpander::getTile(OpBuilder &b, Location loc,
                                                 Type type, unsigned index,
                                                 unsigned tileElements) {
  auto [buffer, slice] = buffers.lookup(type);
  Value sliceStart =
      arith::MulIOp::create(b, loc, subgroupId, this->index(b, loc, slice));
  Value start = arith::AddIOp::create(
      b, loc, sliceStart, this->index(b, loc, int64_t(index) * tileElements));
  return {buffer, start};
}

void ScratchExpander::synchronizeSubgroup(OpBuilder &b, Location loc) {
  SubgroupBarrierOp::create(b, loc);
}

void ScratchExpander::forEachLaneElement(
    OpBuilder &b, Location loc, int64_t count,
    function_ref<void(OpBuilder &, Value)> body) {
  auto loop = scf::ForOp::create(b, loc, lane, index(b, loc, count),
                                 index(b, loc, subgroupSize));
  OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
  body(inner, loop.getInductionVar());
}

void ScratchExpander::replaceWithTile(OpBuilder &b, Operation *op, Value buffer,
                                      Value start, Value stride) {
  Location loc = op->getLoc();
  Value result = LoadOp::create(b, loc, op->getResult(0).getType(), buffer,
                                ValueRange{start}, stride,
                                /*col_major=*/false);
  // The next op that uses the tiles must not overwrite them before every
  // invocation has loaded from them.
  synchronizeSubgroup(b, loc);
  op->replaceAllUsesWith(ValueRange{result});
  op->erase();
}

void ScratchExpander::expandMap(MapOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface resultType = op.getResultType();
  unsigned rows = resultType.getRows(), columns = resultType.getColumns();
  unsigned tileElements = rows * columns;
  Value stride = index(b, loc, columns);

  // Each input to a tile of its storage type, then the result's tile.
  llvm::DenseMap<Type, unsigned> nextTile;
  SmallVector<std::pair<Value, Value>> inputTiles;
  for (Value input : op.getInputs()) {
    Type storage = getStorageType(
        cast<SubgroupMatrixTypeInterface>(input.getType()).getElementType());
    auto tile = getTile(b, loc, storage, nextTile[storage]++, tileElements);
    StoreOp::create(b, loc, input, tile.first, ValueRange{tile.second}, stride,
                    /*col_major=*/false);
    inputTiles.push_back(tile);
  }
  Type resultStorage = getStorageType(resultType.getElementType());
  auto resultTile =
      getTile(b, loc, resultStorage, nextTile[resultStorage]++, tileElements);
  synchronizeSubgroup(b, loc);

  forEachLaneElement(b, loc, tileElements, [&](OpBuilder &inner, Value i) {
    IRMapping mapping;
    Value columnCount = index(inner, loc, columns);
    mapping.map(op.getRow(),
                arith::DivUIOp::create(inner, loc, i, columnCount));
    mapping.map(op.getColumn(),
                arith::RemUIOp::create(inner, loc, i, columnCount));
    for (auto [k, tile] : llvm::enumerate(inputTiles)) {
      Value address = arith::AddIOp::create(inner, loc, tile.second, i);
      mapping.map(
          op.getInputElement(k),
          memref::LoadOp::create(inner, loc, tile.first, ValueRange{address}));
    }
    for (Operation &bodyOp : op.getBodyBlock().without_terminator())
      inner.clone(bodyOp, mapping);
    Value address = arith::AddIOp::create(inner, loc, resultTile.second, i);
    memref::StoreOp::create(inner, loc,
                            mapping.lookupOrDefault(op.getYieldedValue()),
                            resultTile.first, ValueRange{address});
  });
  synchronizeSubgroup(b, loc);
  replaceWithTile(b, op, resultTile.first, resultTile.second, stride);
}

void ScratchExpander::expandReduce(ReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  Type component = type.getElementType();
  int64_t rows = type.getRows(), columns = type.getColumns();
  int64_t tileElements = rows * columns;
  Value stride = index(b, loc, columns);
  auto [buffer, start] =
      getTile(b, loc, getStorageType(component), 0, tileElements);
  StoreOp::create(b, loc, op.getMatrix(), buffer, ValueRange{start}, stride,
                  /*col_major=*/false);
  synchronizeSubgroup(b, loc);

  // SPIR-V has no bf16 arithmetic: bf16 combines in f32 and rounds once.
  bool widen = component.isBF16();
  Type combineType = widen ? b.getF32Type() : component;
  auto loadElement = [&](OpBuilder &inner, Value address) -> Value {
    Value element =
        memref::LoadOp::create(inner, loc, buffer, ValueRange{address});
    if (widen)
      element = arith::ExtFOp::create(inner, loc, combineType, element);
    return element;
  };
  // Reduces `count` elements `step` apart from `first` and returns the
  // result.
  auto reduceLine = [&](OpBuilder &inner, Value first, int64_t count,
                        int64_t step) {
    Value accumulator = loadElement(inner, first);
    auto loop = scf::ForOp::create(inner, loc, index(inner, loc, 1),
                                   index(inner, loc, count),
                                   index(inner, loc, 1), accumulator);
    OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
    Value offset = arith::MulIOp::create(body, loc, loop.getInductionVar(),
                                         index(body, loc, step));
    Value address = arith::AddIOp::create(body, loc, first, offset);
    Value element = loadElement(body, address);
    scf::YieldOp::create(body, loc,
                         op.buildCombine(body, loc, combineType,
                                         loop.getRegionIterArgs()[0], element));
    Value total = loop.getResult(0);
    if (widen)
      total = arith::TruncFOp::create(inner, loc, component, total);
    return total;
  };
  // Writes `value` to `count` elements `step` apart from `first`.
  auto fillLine = [&](OpBuilder &inner, Value first, int64_t count,
                      int64_t step, Value value) {
    auto loop =
        scf::ForOp::create(inner, loc, index(inner, loc, 0),
                           index(inner, loc, count), index(inner, loc, 1));
    OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
    Value offset = arith::MulIOp::create(body, loc, loop.getInductionVar(),
                                         index(body, loc, step));
    Value address = arith::AddIOp::create(body, loc, first, offset);
    memref::StoreOp::create(body, loc, value, buffer, ValueRange{address});
  };

  switch (op.getDimensions()) {
  case ReductionDimensions::Rows:
  case ReductionDimensions::Columns: {
    // Each line (row or column) belongs to one invocation, which reads and
    // rewrites it in place.
    bool byRows = op.getDimensions() == ReductionDimensions::Rows;
    int64_t lines = byRows ? rows : columns;
    int64_t length = byRows ? columns : rows;
    int64_t lineStep = byRows ? columns : 1, elementStep = byRows ? 1 : columns;
    forEachLaneElement(b, loc, lines, [&](OpBuilder &inner, Value line) {
      Value first = arith::AddIOp::create(
          inner, loc, start,
          arith::MulIOp::create(inner, loc, line, index(inner, loc, lineStep)));
      Value total = reduceLine(inner, first, length, elementStep);
      fillLine(inner, first, length, elementStep, total);
    });
    break;
  }
  case ReductionDimensions::Blocks2x2: {
    // Each invocation combines its share of the blocks into the second
    // tile, which holds the result, half as wide, row after row.
    int64_t resultColumns = columns / 2;
    Value resultStart =
        getTile(b, loc, getStorageType(component), 1, tileElements).second;
    forEachLaneElement(
        b, loc, tileElements / 4, [&](OpBuilder &inner, Value i) {
          Value row = arith::DivUIOp::create(inner, loc, i,
                                             index(inner, loc, resultColumns));
          Value column = arith::RemUIOp::create(
              inner, loc, i, index(inner, loc, resultColumns));
          // Element [2 row, 2 column] of the operand's tile.
          Value corner = arith::AddIOp::create(
              inner, loc,
              arith::MulIOp::create(inner, loc, row,
                                    index(inner, loc, 2 * columns)),
              arith::MulIOp::create(inner, loc, column, index(inner, loc, 2)));
          Value first = arith::AddIOp::create(inner, loc, start, corner);
          Value total;
          for (int64_t offset :
               {int64_t(0), int64_t(1), columns, columns + 1}) {
            Value element = loadElement(
                inner, arith::AddIOp::create(inner, loc, first,
                                             index(inner, loc, offset)));
            total =
                total ? op.buildCombine(inner, loc, combineType, total, element)
                      : element;
          }
          if (widen)
            total = arith::TruncFOp::create(inner, loc, component, total);
          Value address = arith::AddIOp::create(inner, loc, resultStart, i);
          memref::StoreOp::create(inner, loc, total, buffer,
                                  ValueRange{address});
        });
    synchronizeSubgroup(b, loc);
    replaceWithTile(b, op, buffer, resultStart, index(b, loc, resultColumns));
    return;
  }
  case ReductionDimensions::All: {
    // Every invocation reduces the whole tile, then, once all have read it,
    // writes its share of the broadcast.
    Value total = reduceLine(b, start, tileElements, 1);
    synchronizeSubgroup(b, loc);
    forEachLaneElement(b, loc, tileElements, [&](OpBuilder &inner, Value i) {
      Value address = arith::AddIOp::create(inner, loc, start, i);
      memref::StoreOp::create(inner, loc, total, buffer, ValueRange{address});
    });
    break;
  }
  }
  synchronizeSubgroup(b, loc);
  replaceWithTile(b, op, buffer, start, stride);
}

void ScratchExpander::expandConvert(ConvertOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface from = op.getSourceType(),
                              to = op.getResultType();
  // The component type changes first, within the source's kind, where
  // cooperative matrices convert directly; the kind then changes through
  // memory, in the (often narrower) result component type.
  Value source = op.getSource();
  Type fromStorage = getStorageType(from.getElementType());
  Type toStorage = getStorageType(to.getElementType());
  int64_t tileElements = int64_t(to.getRows()) * to.getColumns();
  Value stride = index(b, loc, to.getColumns());
  auto [buffer, start] = getTile(b, loc, toStorage, 0, tileElements);
  if (convertsElementByElement(op, registerOps)) {
    auto [sourceTile, sourceStart] =
        getTile(b, loc, fromStorage, 0, tileElements);
    StoreOp::create(b, loc, source, sourceTile, ValueRange{sourceStart}, stride,
                    /*col_major=*/false);
    synchronizeSubgroup(b, loc);
    forEachLaneElement(b, loc, tileElements, [&](OpBuilder &inner, Value i) {
      Value fromAddress = arith::AddIOp::create(inner, loc, sourceStart, i);
      Value element = memref::LoadOp::create(inner, loc, sourceTile,
                                             ValueRange{fromAddress});
      Value converted = ConvertOp::buildElementConversion(
          inner, loc, element, from.getElementType(), to.getElementType());
      Value toAddress = arith::AddIOp::create(inner, loc, start, i);
      memref::StoreOp::create(inner, loc, converted, buffer,
                              ValueRange{toAddress});
    });
    synchronizeSubgroup(b, loc);
  } else {
    if (from.getElementType() != to.getElementType())
      source = ConvertOp::create(b, loc,
                                 getMatrixType(from.getKind(), from.getRows(),
                                               from.getColumns(),
                                               to.getElementType()),
                                 source);
    StoreOp::create(b, loc, source, buffer, ValueRange{start}, stride,
                    /*col_major=*/false);
    synchronizeSubgroup(b, loc);
  }
  replaceWithTile(b, op, buffer, start, stride);
}

template <typename AccessOp>
ScratchExpander::BoundedTile ScratchExpander::getBoundedTile(OpBuilder &b,
                                                             AccessOp op) {
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  int64_t elements = int64_t(type.getRows()) * type.getColumns();
  auto [buffer, start] =
      getTile(b, loc, getStorageType(type.getElementType()), 0, elements);
  auto atLeast = [&](Value bound, int64_t extent) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, bound,
                                 index(b, loc, extent));
  };
  Value whole =
      arith::AndIOp::create(b, loc, atLeast(op.getBoundRows(), type.getRows()),
                            atLeast(op.getBoundColumns(), type.getColumns()));
  return {buffer, start, whole, elements};
}

template <typename AccessOp>
void ScratchExpander::forEachBoundedElement(
    OpBuilder &b, AccessOp op, const BoundedTile &tile,
    function_ref<void(OpBuilder &, Value, Value, ValueRange)> body) {
  Location loc = op.getLoc();
  Value columnCount = index(b, loc, op.getMatrixType().getColumns());
  forEachLaneElement(b, loc, tile.elements, [&](OpBuilder &inner, Value i) {
    Value row = arith::DivUIOp::create(inner, loc, i, columnCount);
    Value column = arith::RemUIOp::create(inner, loc, i, columnCount);
    auto below = [&](Value value, Value bound) {
      return arith::CmpIOp::create(inner, loc, arith::CmpIPredicate::slt, value,
                                   bound);
    };
    Value inside =
        arith::AndIOp::create(inner, loc, below(row, op.getBoundRows()),
                              below(column, op.getBoundColumns()));
    // The matrix's elements lie `stride * major + minor` elements after
    // element [0, 0], counted along the memref's contiguous innermost
    // dimension, as the load and store ops define.
    Value major = op.getColMajor() ? column : row;
    Value minor = op.getColMajor() ? row : column;
    Value offset = arith::AddIOp::create(
        inner, loc, arith::MulIOp::create(inner, loc, major, op.getStride()),
        minor);
    SmallVector<Value> indices(op.getIndices());
    indices.back() = arith::AddIOp::create(inner, loc, indices.back(), offset);
    Value address = arith::AddIOp::create(inner, loc, tile.start, i);
    body(inner, address, inside, indices);
  });
}

// The barriers stay outside the branches on whether the matrix is whole:
// each subgroup of a workgroup may take a different branch, and a driver
// that runs the subgroups of a workgroup together (Mesa 26's lavapipe)
// loses those that skip a subgroup barrier the others reach.

void ScratchExpander::expandBoundedLoad(LoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  Type storage = getStorageType(type.getElementType());
  BoundedTile tile = getBoundedTile(b, op);
  // A matrix inside its bounds (every tile but those at the edges) loads
  // as it is. For the others, each invocation reads its share of the
  // elements inside the bounds into a row-major tile, zero elsewhere.
  auto direct = scf::IfOp::create(b, loc, op.getType(), tile.whole,
                                  /*withElseRegion=*/true);
  OpBuilder thenBuilder = direct.getThenBodyBuilder();
  Value plain =
      LoadOp::create(thenBuilder, loc, op.getType(), op.getSource(),
                     op.getIndices(), op.getStride(), op.getColMajor());
  scf::YieldOp::create(thenBuilder, loc, plain);
  OpBuilder elseBuilder = direct.getElseBodyBuilder();
  forEachBoundedElement(
      elseBuilder, op, tile,
      [&](OpBuilder &inner, Value address, Value inside, ValueRange indices) {
        auto read = scf::IfOp::create(inner, loc, storage, inside,
                                      /*withElseRegion=*/true);
        OpBuilder readBuilder = read.getThenBodyBuilder();
        scf::YieldOp::create(
            readBuilder, loc,
            memref::LoadOp::create(readBuilder, loc, op.getSource(), indices)
                .getResult());
        OpBuilder zeroBuilder = read.getElseBodyBuilder();
        scf::YieldOp::create(
            zeroBuilder, loc,
            arith::ConstantOp::create(zeroBuilder, loc,
                                      zeroBuilder.getZeroAttr(storage))
                .getResult());
        memref::StoreOp::create(inner, loc, read.getResult(0), tile.buffer,
                                ValueRange{address});
      });
  // Not used: the tile is loaded below.
  Value placeholder = SplatOp::create(
      elseBuilder, loc, op.getType(),
      arith::ConstantOp::create(
          elseBuilder, loc,
          elseBuilder.getZeroAttr(getScalarType(type.getElementType()))));
  scf::YieldOp::create(elseBuilder, loc, placeholder);
  synchronizeSubgroup(b, loc);

  auto fromTile = scf::IfOp::create(b, loc, op.getType(), tile.whole,
                                    /*withElseRegion=*/true);
  OpBuilder keepBuilder = fromTile.getThenBodyBuilder();
  scf::YieldOp::create(keepBuilder, loc, direct.getResult(0));
  OpBuilder tileBuilder = fromTile.getElseBodyBuilder();
  Value loaded = LoadOp::create(tileBuilder, loc, op.getType(), tile.buffer,
                                ValueRange{tile.start},
                                index(tileBuilder, loc, type.getColumns()),
                                /*col_major=*/false);
  scf::YieldOp::create(tileBuilder, loc, loaded);
  synchronizeSubgroup(b, loc);
  op.replaceAllUsesWith(fromTile.getResult(0));
  op.erase();
}

void ScratchExpander::expandBoundedStore(StoreOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  BoundedTile tile = getBoundedTile(b, op);
  // A whole matrix stores as it is; the others go to the subgroup's tile,
  // from which each invocation copies its share of the elements inside the
  // bounds to memory.
  auto direct = scf::IfOp::create(b, loc, TypeRange(), tile.whole,
                                  /*withElseRegion=*/true);
  OpBuilder thenBuilder = direct.getThenBodyBuilder();
  StoreOp::create(thenBuilder, loc, op.getValue(), op.getTarget(),
                  op.getIndices(), op.getStride(), op.getColMajor());
  OpBuilder elseBuilder = direct.getElseBodyBuilder();
  StoreOp::create(elseBuilder, loc, op.getValue(), tile.buffer,
                  ValueRange{tile.start},
                  index(elseBuilder, loc, type.getColumns()),
                  /*col_major=*/false);
  synchronizeSubgroup(b, loc);

  Value cut = arith::XOrIOp::create(
      b, loc, tile.whole,
      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  auto copy = scf::IfOp::create(b, loc, TypeRange(), cut,
                                /*withElseRegion=*/false);
  OpBuilder copyBuilder = OpBuilder::atBlockBegin(copy.thenBlock());
  forEachBoundedElement(
      copyBuilder, op, tile,
      [&](OpBuilder &inner, Value address, Value inside, ValueRange indices) {
        auto write = scf::IfOp::create(inner, loc, TypeRange(), inside,
                                       /*withElseRegion=*/false);
        OpBuilder writeBuilder = OpBuilder::atBlockBegin(write.thenBlock());
        Value element = memref::LoadOp::create(writeBuilder, loc, tile.buffer,
                                               ValueRange{address});
        memref::StoreOp::create(writeBuilder, loc, element, op.getTarget(),
                                indices);
      });
  // The next use of the tile must not overwrite it before every invocation
  // has copied its elements.
  synchronizeSubgroup(b, loc);
  op.erase();
}

void ScratchExpander::expandDecodeLoad(DecodeLoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SubgroupMatrixTypeInterface type = op.getMatrixType();
  unsigned columns = type.getColumns();
  int64_t elements = int64_t(type.getRows()) * columns;
  Type storage = getStorageType(type.getElementType());
  auto [buffer, start] = getTile(b, loc, storage, 0, elements);
  // Each invocation decodes its share of the elements inside the tensor
  // into the row-major tile, zero outside it.
  forEachLaneElement(b, loc, elements, [&](OpBuilder &inner, Value i) {
    Value columnCount = index(inner, loc, columns);
    Value row = arith::AddIOp::create(
        inner, loc, op.getRow(),
        arith::DivUIOp::create(inner, loc, i, columnCount));
    Value column = arith::AddIOp::create(
        inner, loc, op.getColumn(),
        arith::RemUIOp::create(inner, loc, i, columnCount));
    auto below = [&](Value value, Value bound) {
      return arith::CmpIOp::create(inner, loc, arith::CmpIPredicate::slt, value,
                                   bound);
    };
    Value rowInside = below(row, op.getRows());
    Value columnInside = below(column, op.getColumns());
    Value inside = arith::AndIOp::create(inner, loc, rowInside, columnInside);
    auto decode = scf::IfOp::create(inner, loc, storage, inside,
                                    /*withElseRegion=*/true);
    OpBuilder thenBuilder = decode.getThenBodyBuilder();
    IRMapping mapping;
    mapping.map(op.getTensorRow(), row);
    mapping.map(op.getTensorColumn(), column);
    for (Operation &bodyOp : op.getBodyBlock().without_terminator())
      thenBuilder.clone(bodyOp, mapping);
    scf::YieldOp::create(thenBuilder, loc,
                         mapping.lookupOrDefault(op.getYieldedValue()));
    OpBuilder zeroBuilder = decode.getElseBodyBuilder();
    scf::YieldOp::create(zeroBuilder, loc,
                         arith::ConstantOp::create(
                             zeroBuilder, loc, zeroBuilder.getZeroAttr(storage))
                             .getResult());
    Value address = arith::AddIOp::create(inner, loc, start, i);
    memref::StoreOp::create(inner, loc, decode.getResult(0), buffer,
                            ValueRange{address});
  });
  synchronizeSubgroup(b, loc);
  replaceWithTile(b, op, buffer, start, index(b, loc, columns));
}

LogicalResult mlir::subgroup_matrix::expandThroughWorkgroupMemory(
    FunctionOpInterface function, unsigned subgroupSize,
    MatrixRegisterOps registerOps) {
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
  if (kernel && kernel.isKernel())
    return ScratchExpander(kernel, subgroupSize, registerOps).run();
  WalkResult result = function->walk([&](Operation *op) {
    if (!needsWorkgroupMemory(op, registerOps))
      return WalkResult::advance();
    op->emitOpError("goes through workgroup memory on this target, which "
                    "only a kernel can allocate: use it in the kernel rather "
                    "than in a function it calls");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct ExpandThroughWorkgroupMemoryPass
    : public subgroup_matrix::impl::ExpandThroughWorkgroupMemoryPassBase<
          ExpandThroughWorkgroupMemoryPass> {
  using ExpandThroughWorkgroupMemoryPassBase::
      ExpandThroughWorkgroupMemoryPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      TargetAttr target = getLoweringTargetOrError(kernels, TargetAttr());
      if (!target)
        return signalPassFailure();
      WalkResult expanded = kernels.walk([&](FunctionOpInterface function) {
        if (failed(expandThroughWorkgroupMemory(
                function, target.getSubgroupSize(), registerOps)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (expanded.wasInterrupted())
        return signalPassFailure();
    }
  }
};
} // namespace
