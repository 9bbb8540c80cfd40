//===- TileMatmul.cpp - linalg.matmul to a tiled subgroup-matrix kernel ---===//
//
// The kernel follows the classic shape of a tensor-core GEMM: a workgroup
// owns a tile of C, its subgroups split that tile, every subgroup keeps a
// block of accumulators in registers for the whole K loop, and each K step
// stages a slice of A and of B through workgroup memory, which all subgroups
// then read as matrices. Everything is sized at compile time: the matmul's
// shapes are static, so bounds checks are emitted only where a dimension is
// not a multiple of its tile.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TileMatmul.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_TILEMATMULPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The kind of device a target describes, which the tiling defaults and
/// limits depend on; read off the preset name (custom targets are `Other`).
enum class DeviceFamily { Nvidia, Amd, Apple, Other };
} // namespace

static DeviceFamily getDeviceFamily(TargetAttr target) {
  StringRef name = target.getName() ? target.getName().getValue() : "";
  if (name.starts_with("nvidia"))
    return DeviceFamily::Nvidia;
  if (name.starts_with("amd"))
    return DeviceFamily::Amd;
  if (name.starts_with("apple"))
    return DeviceFamily::Apple;
  return DeviceFamily::Other;
}

/// The workgroup memory a kernel may use on `target`: Metal gives a
/// threadgroup 32 KiB on Apple GPUs; the Vulkan devices this project knows
/// report 48 KiB or more (maxComputeSharedMemorySize), as Intel's do.
static int64_t getWorkgroupMemoryLimit(TargetAttr target) {
  return getDeviceFamily(target) == DeviceFamily::Apple ? 32 * 1024 : 48 * 1024;
}

namespace {

/// What a matmul computes, read off the linalg op.
struct MatmulProblem {
  int64_t m = 0, n = 0, k = 0;
  /// B is stored N x K (C = A * B^T in storage terms).
  bool transposedB = false;
  /// Matrix component types of the inputs and of the accumulator.
  Type inputComponent, resultComponent;
  Value a, b, c;
  /// A `linalg.fill` of C with a constant right before the matmul, whose
  /// value becomes the initial accumulator.
  linalg::FillOp fill;
  TypedAttr fillValue;
};

/// One operand's copy from global to workgroup memory: a tile of
/// `tileRows` x `tileCols` elements out of a row-major global matrix of
/// `globalRows` x `globalCols`.
struct TileCopy {
  Value global, shared;
  Type storage;
  int64_t globalRows = 0, globalCols = 0;
  int64_t tileRows = 0, tileCols = 0;
  int64_t sharedStride = 0;
  int64_t stageElements = 0;
  int64_t width = 1;
  /// Per copied vector, loop invariant: its row and column in the tile and
  /// its offset in one stage of the workgroup buffer.
  SmallVector<Value> rows, columns, sharedOffsets;

  bool checkRows() const { return globalRows % tileRows != 0; }
  bool checkColumns() const { return globalCols % tileCols != 0; }
};

} // namespace

/// The name sm-vulkan-runner gives buffers of `storage` elements.
static StringRef getRunnerElementName(Type storage, bool isUnsigned) {
  if (storage.isF16())
    return "f16";
  if (storage.isBF16())
    return "bf16";
  if (storage.isF32())
    return "f32";
  if (storage.isInteger(8))
    return isUnsigned ? "u8" : "i8";
  return isUnsigned ? "u32" : "i32";
}

/// Reads the problem off `matmul`, or reports why it cannot be tiled.
static FailureOr<MatmulProblem> analyzeMatmul(linalg::MatmulOp matmul) {
  MatmulProblem problem;
  auto fail = [&](const Twine &message) {
    return matmul.emitOpError() << message, failure();
  };
  if (matmul.getNumDpsInputs() != 2 || matmul.getNumDpsInits() != 1)
    return fail("needs two inputs and one output");
  problem.a = matmul.getDpsInputs()[0];
  problem.b = matmul.getDpsInputs()[1];
  problem.c = matmul.getDpsInits()[0];
  SmallVector<MemRefType> types;
  for (Value operand : {problem.a, problem.b, problem.c}) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return fail("cannot be tiled into a kernel: it works on tensors, and "
                  "sm-tile-matmul needs memrefs (bufferize first)");
    if (!type.hasStaticShape() || type.getRank() != 2)
      return fail(llvm::formatv("cannot be tiled into a kernel: '{0}' is not "
                                "a statically shaped 2-D memref",
                                type));
    if (!type.getLayout().isIdentity())
      return fail(llvm::formatv("cannot be tiled into a kernel: '{0}' is not "
                                "a contiguous row-major memref",
                                type));
    if (type.getMemorySpace() &&
        !isa<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return fail(llvm::formatv("cannot be tiled into a kernel: '{0}' is not "
                                "in GPU global memory",
                                type));
    types.push_back(type);
  }

  // Only the maps of C = A * B and C = A * B^T are handled.
  MLIRContext *context = matmul.getContext();
  AffineExpr m, n, k;
  bindDims(context, m, n, k);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(3, 0, results, context);
  };
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  if (maps.size() != 3 || maps[0] != map({m, k}) || maps[2] != map({m, n}))
    return fail("cannot be tiled into a kernel: only A indexed [m, k] and "
                "C indexed [m, n] are supported");
  if (maps[1] == map({n, k}))
    problem.transposedB = true;
  else if (maps[1] != map({k, n}))
    return fail("cannot be tiled into a kernel: B must be indexed [k, n] or "
                "[n, k] (transposed)");

  problem.m = types[0].getDimSize(0);
  problem.k = types[0].getDimSize(1);
  problem.n = types[2].getDimSize(1);
  int64_t bRows = problem.transposedB ? problem.n : problem.k;
  int64_t bCols = problem.transposedB ? problem.k : problem.n;
  if (types[1].getDimSize(0) != bRows || types[1].getDimSize(1) != bCols ||
      types[2].getDimSize(0) != problem.m)
    return fail("has operand shapes that do not agree");

  Type input = types[0].getElementType();
  Type output = types[2].getElementType();
  if (types[1].getElementType() != input)
    return fail(llvm::formatv("cannot be tiled into a kernel: A ('{0}') and B "
                              "('{1}') have different element types",
                              input, types[1].getElementType()));
  bool isUnsigned = matmul.getCast() == linalg::TypeFn::cast_unsigned;
  auto component = [&](Type storage) -> Type {
    if (isa<FloatType>(storage))
      return storage;
    if (auto integer = dyn_cast<IntegerType>(storage))
      return IntegerType::get(context, integer.getWidth(),
                              isUnsigned ? IntegerType::Unsigned
                                         : IntegerType::Signed);
    return {};
  };
  problem.inputComponent = component(input);
  problem.resultComponent = component(output);
  if (!problem.inputComponent || !problem.resultComponent ||
      getStorageType(problem.inputComponent) != input ||
      getStorageType(problem.resultComponent) != output ||
      !isValidAccumulatorType(problem.inputComponent, problem.resultComponent))
    return fail(llvm::formatv(
        "cannot be tiled into a kernel: '{0}' inputs accumulated into '{1}' is "
        "not a subgroup-matrix multiplication (f16 -> f16|f32, bf16 -> f32, "
        "f32 -> f32, i8 -> i32)",
        input, output));

  // A constant fill of C right before the matmul is folded into the kernel.
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(matmul->getPrevNode())) {
    Attribute value;
    if (fill.getNumDpsInits() == 1 && fill.getDpsInits()[0] == problem.c &&
        matchPattern(fill.getDpsInputs()[0], m_Constant(&value))) {
      problem.fill = fill;
      problem.fillValue = cast<TypedAttr>(value);
    }
  }
  return problem;
}

/// The target's largest configuration for the problem's types that is at
/// most 16 x 16 (the first listed among equals): larger matrices take
/// registers that a block of several matrices per subgroup uses better.
static FailureOr<MatrixConfigAttr> chooseConfig(linalg::MatmulOp matmul,
                                                const MatmulProblem &problem,
                                                TargetAttr target) {
  MatrixConfigAttr best;
  auto volume = [](MatrixConfigAttr config) {
    return int64_t(config.getM()) * config.getN() * config.getK();
  };
  for (MatrixConfigAttr config : target.getConfigs())
    if (config.getComponentType() == problem.inputComponent &&
        config.getResultType() == problem.resultComponent &&
        config.getM() <= 16 && config.getN() <= 16 &&
        (!best || volume(config) > volume(best)))
      best = config;
  if (best)
    return best;
  return matmul.emitOpError()
             << "cannot be tiled for target '"
             << (target.getName() ? target.getName().str()
                                  : std::string("custom"))
             << "': it has no matrix configuration for "
             << problem.inputComponent << " -> " << problem.resultComponent
             << "; it supports " << target.describeConfigs(),
         failure();
}

/// Fills the defaults of `requested` for `config` on `target` and checks the
/// result; reports problems on `matmul`.
static FailureOr<MatmulTiling> resolveMatmulTiling(linalg::MatmulOp matmul,
                                                   const MatmulProblem &problem,
                                                   MatrixConfigAttr config,
                                                   TargetAttr target,
                                                   MatmulTiling requested) {
  MatmulTiling tiling = requested;
  int64_t elementBytes =
      getStorageType(problem.inputComponent).getIntOrFloatBitWidth() / 8;
  // The Vulkan devices (whose lowering turns 16-byte copies into 128-bit
  // accesses).
  DeviceFamily family = getDeviceFamily(target);
  bool amd = family == DeviceFamily::Amd;
  bool vulkan = family == DeviceFamily::Nvidia || amd;
  // Per subgroup, a block of result matrices. The H100 runs fastest with
  // 4 x 4 (64 x 64 of C with 16 x 16 matrices) in 2 x 2 subgroups. On RDNA3
  // that block needs more than the 256 VGPRs a lane has (RADV reports 138
  // spilled for f16 -> f32), so the AMD target takes 2 x 2 blocks in 4 x 4
  // subgroups (144 VGPRs, none spilled; not measured on hardware). Elsewhere
  // 2 x 2 blocks in 2 x 2 subgroups.
  int64_t blockM = vulkan && !amd ? 4 : 2, blockN = blockM;
  if (!tiling.subgroupsM)
    tiling.subgroupsM = amd ? 4 : 2;
  if (!tiling.subgroupsN)
    tiling.subgroupsN = amd ? 4 : 2;
  if (!tiling.tileM)
    tiling.tileM = tiling.subgroupsM * blockM * config.getM();
  if (!tiling.tileN)
    tiling.tileN = tiling.subgroupsN * blockN * config.getN();
  if (!tiling.tileK)
    tiling.tileK = std::max<int64_t>(2 * config.getK(), 64 / elementBytes);
  if (tiling.padding < 0)
    tiling.padding = 16 / elementBytes;
  // On the H100, one buffer measured faster than two (268.7 against 165.1
  // TFLOP/s at 4096^3 f16 -> f32, both at 236 registers per invocation).
  if (!tiling.stages)
    tiling.stages = vulkan ? 1 : 2;
  if (!tiling.vectorWidth)
    tiling.vectorWidth = vulkan ? 16 / elementBytes : 1;
  // Groups of 8 tile rows: 273.7 against 268.7 TFLOP/s at 4096^3 and 292.9
  // against 284.6 at 8192^3 on the H100.
  if (!tiling.groupM)
    tiling.groupM = vulkan ? 8 : 1;

  auto fail = [&](const Twine &message) {
    return matmul.emitOpError() << "cannot be tiled: " << message, failure();
  };
  if (tiling.tileM < 0 || tiling.tileN < 0 || tiling.tileK < 0 ||
      tiling.subgroupsM < 0 || tiling.subgroupsN < 0 ||
      tiling.vectorWidth < 0 || tiling.groupM < 0)
    return fail("tile sizes, subgroup counts, the vector width and the "
                "group size must be positive");
  if (tiling.tileM % (tiling.subgroupsM * config.getM()) ||
      tiling.tileN % (tiling.subgroupsN * config.getN()))
    return fail(llvm::formatv(
        "the workgroup tile {0}x{1} does not split into {2}x{3} subgroups of "
        "whole {4}x{5} result matrices",
        tiling.tileM, tiling.tileN, tiling.subgroupsM, tiling.subgroupsN,
        config.getM(), config.getN()));
  if (tiling.tileK % config.getK())
    return fail(llvm::formatv("tile-k = {0} is not a multiple of the "
                              "matrix depth K = {1}",
                              tiling.tileK, config.getK()));
  if (tiling.stages != 1 && tiling.stages != 2)
    return fail(llvm::formatv("stages = {0}; only 1 and 2 are supported",
                              tiling.stages));
  int64_t widthBits = tiling.vectorWidth * elementBytes * 8;
  if (tiling.vectorWidth != 1 && widthBits != 64 && widthBits != 128)
    return fail(llvm::formatv("vector-width = {0} copies {1} bits at once; "
                              "only 1 element, 64 or 128 bits are supported",
                              tiling.vectorWidth, widthBits));
  return tiling;
}

namespace {

/// Emits the kernel of one matmul.
class MatmulKernelEmitter {
public:
  MatmulKernelEmitter(const MatmulProblem &problem, MatrixConfigAttr config,
                      TargetAttr target, const MatmulTiling &tiling,
                      Location loc)
      : problem(problem), config(config), target(target), tiling(tiling),
        b(loc.getContext()), loc(loc) {}

  /// Builds the kernel `name` with `moduleBuilder`; reports on `matmul` if
  /// the tiling does not fit.
  FailureOr<gpu::GPUFuncOp> emit(OpBuilder &moduleBuilder, StringRef name,
                                 linalg::MatmulOp matmul);

  int64_t getThreads() const {
    return tiling.subgroupsM * tiling.subgroupsN * target.getSubgroupSize();
  }
  int64_t getGridX() const { return llvm::divideCeil(problem.n, tiling.tileN); }
  int64_t getGridY() const { return llvm::divideCeil(problem.m, tiling.tileM); }

private:
  Value index(int64_t value);
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, index(y)) : x; }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, index(y)); }
  Value lessThan(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 index(bound));
  }
  Value both(Value x, Value y) {
    return !x ? y : !y ? x : arith::AndIOp::create(b, loc, x, y).getResult();
  }

  /// The value a copy element takes outside the global matrix.
  Value zeroOf(Type type);
  /// The type one invocation copies at once (a scalar, or 32-bit words).
  Type getCopyType(const TileCopy &copy);

  LogicalResult planCopy(TileCopy &copy, linalg::MatmulOp matmul,
                         StringRef operandName);
  void computeCopyPositions(TileCopy &copy);
  /// Loads this invocation's share of the tile whose first element is at
  /// (`rowBase`, `columnBase`) of the global matrix.
  SmallVector<Value> loadTile(const TileCopy &copy, Value rowBase,
                              Value columnBase);
  /// Stores what `loadTile` returned into the stage at `stageOffset`.
  void storeTile(const TileCopy &copy, ArrayRef<Value> values,
                 Value stageOffset);
  Value stageOffset(const TileCopy &copy, Value step);
  /// The tile of C that workgroup (`blockX`, `blockY`) computes: with
  /// `groupM` > 1, workgroups in launch order walk down `groupM` tile rows
  /// before moving to the next tile column, so that the workgroups running
  /// together share tiles of A and B in the L2 cache.
  std::pair<Value, Value> getTilePosition(Value blockX, Value blockY);

  /// Multiplies one K step out of the workgroup buffers at the given stage.
  void multiplyStep(Value aStage, Value bStage,
                    MutableArrayRef<Value> accumulators);

  SmallVector<Value> initAccumulators();
  void storeAccumulators(ArrayRef<Value> accumulators);
  /// The offset in C of result matrix (i, j) of this subgroup.
  Value resultRow(int64_t i) { return add(subgroupRow, i * config.getM()); }
  Value resultColumn(int64_t j) {
    return add(subgroupColumn, j * config.getN());
  }
  /// Whether C needs bounds checks (some workgroup tile crosses its edge).
  bool hasRaggedResult() const {
    return problem.m % tiling.tileM || problem.n % tiling.tileN;
  }
  /// Copies result matrix (row, column) of C between global memory and this
  /// subgroup's scratch, element by element, within the bounds of C.
  void copyResultThroughScratch(Value row, Value column, bool toScratch);

  const MatmulProblem &problem;
  MatrixConfigAttr config;
  TargetAttr target;
  const MatmulTiling &tiling;

  /// Builds the kernel body; `loc` is the matmul's.
  OpBuilder b;
  Location loc;
  Block *entry = nullptr;
  DenseMap<int64_t, Value> indexConstants;

  TileCopy copyA, copyB;
  Value c, scratch;
  Value threadId, laneId, subgroupId;
  /// Where this workgroup's tile and this subgroup's block start in C.
  Value rowBase, columnBase, subgroupRow, subgroupColumn;
  int64_t blockM = 0, blockN = 0;
};

} // namespace

Value MatmulKernelEmitter::index(int64_t value) {
  Value &constant = indexConstants[value];
  if (!constant) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    constant = arith::ConstantIndexOp::create(b, loc, value);
  }
  return constant;
}

Value MatmulKernelEmitter::zeroOf(Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

Type MatmulKernelEmitter::getCopyType(const TileCopy &copy) {
  if (copy.width == 1)
    return copy.storage;
  int64_t words = copy.width * copy.storage.getIntOrFloatBitWidth() / 32;
  return VectorType::get({words}, b.getI32Type());
}

LogicalResult MatmulKernelEmitter::planCopy(TileCopy &copy,
                                            linalg::MatmulOp matmul,
                                            StringRef operandName) {
  copy.sharedStride = copy.tileCols + tiling.padding;
  copy.stageElements = copy.tileRows * copy.sharedStride;
  // Vectors must not straddle a row, globally or in the workgroup copy:
  // halve the width down to 64 bits until they do, else copy scalars.
  int64_t elementBits = copy.storage.getIntOrFloatBitWidth();
  copy.width = tiling.vectorWidth;
  while (copy.width > 1 &&
         (copy.globalCols % copy.width || copy.tileCols % copy.width ||
          copy.sharedStride % copy.width))
    copy.width = copy.width * elementBits > 64 ? copy.width / 2 : 1;
  int64_t vectors = copy.tileRows * copy.tileCols / copy.width;
  if (vectors % getThreads())
    return matmul.emitOpError()
               << "cannot be tiled: the " << copy.tileRows << "x"
               << copy.tileCols << " tile of " << operandName << " is "
               << vectors << " copies of " << copy.width
               << " element(s), which " << getThreads()
               << " invocations cannot share evenly",
           failure();
  return success();
}

void MatmulKernelEmitter::computeCopyPositions(TileCopy &copy) {
  int64_t vectorsPerRow = copy.tileCols / copy.width;
  int64_t threads = getThreads();
  int64_t count = copy.tileRows * vectorsPerRow / threads;
  for (int64_t i = 0; i < count; ++i) {
    Value row, column;
    if (threads % vectorsPerRow == 0) {
      // Every invocation stays in one column: cheaper index arithmetic.
      Value threadRow =
          arith::DivUIOp::create(b, loc, threadId, index(vectorsPerRow));
      row = add(threadRow, i * (threads / vectorsPerRow));
      column = arith::RemUIOp::create(b, loc, threadId, index(vectorsPerRow));
    } else {
      Value element = add(threadId, i * threads);
      row = arith::DivUIOp::create(b, loc, element, index(vectorsPerRow));
      column = arith::RemUIOp::create(b, loc, element, index(vectorsPerRow));
    }
    column = mul(column, copy.width);
    copy.rows.push_back(row);
    copy.columns.push_back(column);
    copy.sharedOffsets.push_back(add(mul(row, copy.sharedStride), column));
  }
}

SmallVector<Value> MatmulKernelEmitter::loadTile(const TileCopy &copy,
                                                 Value rowBase,
                                                 Value columnBase) {
  SmallVector<Value> values;
  Type copyType = getCopyType(copy);
  for (auto [row, column] : llvm::zip(copy.rows, copy.columns)) {
    Value globalRow = add(rowBase, row);
    Value globalColumn = add(columnBase, column);
    Value inBounds;
    if (copy.checkRows())
      inBounds = lessThan(globalRow, copy.globalRows);
    // Vectors never straddle the end of a row (the width divides it).
    if (copy.checkColumns())
      inBounds = both(inBounds, lessThan(globalColumn, copy.globalCols));
    Value address = add(mul(globalRow, copy.globalCols), globalColumn);
    // Out of bounds, read element 0 (always there) and replace it by zero,
    // rather than branch.
    if (inBounds)
      address = arith::SelectOp::create(b, loc, inBounds, address, index(0));
    Value value;
    if (copy.width == 1) {
      value = memref::LoadOp::create(b, loc, copy.global, address);
    } else {
      auto vectorType = VectorType::get({copy.width}, copy.storage);
      Value vector =
          vector::LoadOp::create(b, loc, vectorType, copy.global, address);
      value = vector::BitCastOp::create(b, loc, copyType, vector);
    }
    if (inBounds)
      value =
          arith::SelectOp::create(b, loc, inBounds, value, zeroOf(copyType));
    values.push_back(value);
  }
  return values;
}

void MatmulKernelEmitter::storeTile(const TileCopy &copy,
                                    ArrayRef<Value> values, Value stageOffset) {
  for (auto [value, offset] : llvm::zip(values, copy.sharedOffsets)) {
    Value address = add(stageOffset, offset);
    if (copy.width == 1) {
      memref::StoreOp::create(b, loc, value, copy.shared, address);
      continue;
    }
    auto vectorType = VectorType::get({copy.width}, copy.storage);
    Value vector = vector::BitCastOp::create(b, loc, vectorType, value);
    vector::StoreOp::create(b, loc, vector, copy.shared, address);
  }
}

std::pair<Value, Value> MatmulKernelEmitter::getTilePosition(Value blockX,
                                                             Value blockY) {
  int64_t rows = getGridY(), columns = getGridX();
  if (tiling.groupM <= 1 || rows <= 1)
    return {blockY, blockX};
  Value launchIndex = add(mul(blockY, columns), blockX);
  int64_t perGroup = tiling.groupM * columns;
  Value group = arith::DivUIOp::create(b, loc, launchIndex, index(perGroup));
  Value firstRow = mul(group, tiling.groupM);
  // The last group may have fewer rows.
  Value remainingRows = arith::SubIOp::create(b, loc, index(rows), firstRow);
  Value groupRows =
      arith::MinUIOp::create(b, loc, remainingRows, index(tiling.groupM));
  Value inGroup = arith::RemUIOp::create(b, loc, launchIndex, index(perGroup));
  Value row = add(firstRow, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value column = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {row, column};
}

Value MatmulKernelEmitter::stageOffset(const TileCopy &copy, Value step) {
  if (tiling.stages == 1)
    return index(0);
  Value stage = arith::RemUIOp::create(b, loc, step, index(2));
  return mul(stage, copy.stageElements);
}

void MatmulKernelEmitter::multiplyStep(Value aStage, Value bStage,
                                       MutableArrayRef<Value> accumulators) {
  MLIRContext *context = b.getContext();
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  auto leftType = LeftMatrixType::get(context, fm, fk, problem.inputComponent);
  auto rightType =
      RightMatrixType::get(context, fk, fn, problem.inputComponent);
  Value strideA = index(copyA.sharedStride);
  Value strideB = index(copyB.sharedStride);
  // Loop invariant: where this subgroup's rows of A and columns of B start.
  Value aBase = add(aStage, mul(subgroupRow, copyA.sharedStride));
  Value bBase = problem.transposedB
                    ? add(bStage, mul(subgroupColumn, copyB.sharedStride))
                    : add(bStage, subgroupColumn);
  for (int64_t step = 0; step < tiling.tileK / fk; ++step) {
    SmallVector<Value> lefts, rights;
    for (int64_t i = 0; i < blockM; ++i) {
      Value offset = add(aBase, i * fm * copyA.sharedStride + step * fk);
      lefts.push_back(LoadOp::create(b, loc, leftType, copyA.shared,
                                     ValueRange{offset}, strideA,
                                     /*col_major=*/false));
    }
    for (int64_t j = 0; j < blockN; ++j) {
      // B^T rows are B's columns: the right matrix is read column-major.
      Value offset = problem.transposedB
                         ? add(bBase, j * fn * copyB.sharedStride + step * fk)
                         : add(bBase, step * fk * copyB.sharedStride + j * fn);
      rights.push_back(LoadOp::create(b, loc, rightType, copyB.shared,
                                      ValueRange{offset}, strideB,
                                      problem.transposedB));
    }
    for (int64_t i = 0; i < blockM; ++i)
      for (int64_t j = 0; j < blockN; ++j) {
        Value &acc = accumulators[i * blockN + j];
        acc = MmaOp::create(b, loc, acc.getType(), lefts[i], rights[j], acc);
      }
  }
}

void MatmulKernelEmitter::copyResultThroughScratch(Value row, Value column,
                                                   bool toScratch) {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroupSize = target.getSubgroupSize();
  Value scratchBase = mul(subgroupId, fm * fn);
  for (int64_t first = 0; first < fm * fn; first += subgroupSize) {
    // fm * fn is a multiple of the subgroup size for every configuration.
    Value element = add(laneId, first);
    Value r = arith::DivUIOp::create(b, loc, element, index(fn));
    Value col = arith::RemUIOp::create(b, loc, element, index(fn));
    Value globalRow = add(row, r), globalColumn = add(column, col);
    Value inBounds =
        both(lessThan(globalRow, problem.m), lessThan(globalColumn, problem.n));
    Value address = add(mul(globalRow, problem.n), globalColumn);
    Value scratchAddress = add(scratchBase, element);
    if (toScratch) {
      Value safeAddress =
          arith::SelectOp::create(b, loc, inBounds, address, index(0));
      Value value = memref::LoadOp::create(b, loc, c, safeAddress);
      Type type = value.getType();
      value = arith::SelectOp::create(b, loc, inBounds, value, zeroOf(type));
      memref::StoreOp::create(b, loc, value, scratch, scratchAddress);
    } else {
      auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value value = memref::LoadOp::create(b, loc, scratch, scratchAddress);
      memref::StoreOp::create(b, loc, value, c, address);
    }
  }
}

SmallVector<Value> MatmulKernelEmitter::initAccumulators() {
  MLIRContext *context = b.getContext();
  int64_t fm = config.getM(), fn = config.getN();
  auto resultType =
      ResultMatrixType::get(context, fm, fn, problem.resultComponent);
  SmallVector<Value> accumulators;
  if (problem.fillValue) {
    // The fill value, as the scalar type that splat takes.
    Type scalarType = getScalarType(problem.resultComponent);
    Attribute value = problem.fillValue;
    if (auto integer = dyn_cast<IntegerAttr>(value))
      value = IntegerAttr::get(scalarType, integer.getValue().sextOrTrunc(32));
    Value scalar = arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
    Value splat = SplatOp::create(b, loc, resultType, scalar);
    accumulators.assign(blockM * blockN, splat);
    return accumulators;
  }
  for (int64_t i = 0; i < blockM; ++i) {
    for (int64_t j = 0; j < blockN; ++j) {
      Value row = add(rowBase, resultRow(i));
      Value column = add(columnBase, resultColumn(j));
      if (!hasRaggedResult()) {
        Value offset = add(mul(row, problem.n), column);
        accumulators.push_back(LoadOp::create(b, loc, resultType, c,
                                              ValueRange{offset},
                                              index(problem.n), false));
        continue;
      }
      copyResultThroughScratch(row, column, /*toScratch=*/true);
      gpu::BarrierOp::create(b, loc);
      accumulators.push_back(LoadOp::create(
          b, loc, resultType, scratch, ValueRange{mul(subgroupId, fm * fn)},
          index(fn), false));
      gpu::BarrierOp::create(b, loc);
    }
  }
  return accumulators;
}

void MatmulKernelEmitter::storeAccumulators(ArrayRef<Value> accumulators) {
  int64_t fm = config.getM(), fn = config.getN();
  for (int64_t i = 0; i < blockM; ++i) {
    for (int64_t j = 0; j < blockN; ++j) {
      Value acc = accumulators[i * blockN + j];
      Value row = add(rowBase, resultRow(i));
      Value column = add(columnBase, resultColumn(j));
      if (!hasRaggedResult()) {
        Value offset = add(mul(row, problem.n), column);
        StoreOp::create(b, loc, acc, c, ValueRange{offset}, index(problem.n),
                        false);
        continue;
      }
      // Edge workgroups must not write outside C, and a result matrix
      // cannot be stored partially: it goes through workgroup memory.
      StoreOp::create(b, loc, acc, scratch,
                      ValueRange{mul(subgroupId, fm * fn)}, index(fn), false);
      gpu::BarrierOp::create(b, loc);
      copyResultThroughScratch(row, column, /*toScratch=*/false);
      gpu::BarrierOp::create(b, loc);
    }
  }
}

FailureOr<gpu::GPUFuncOp> MatmulKernelEmitter::emit(OpBuilder &moduleBuilder,
                                                    StringRef name,
                                                    linalg::MatmulOp matmul) {
  MLIRContext *context = moduleBuilder.getContext();
  blockM = tiling.tileM / tiling.subgroupsM / config.getM();
  blockN = tiling.tileN / tiling.subgroupsN / config.getN();

  Type inputStorage = getStorageType(problem.inputComponent);
  Type resultStorage = getStorageType(problem.resultComponent);
  copyA.storage = copyB.storage = inputStorage;
  copyA.globalRows = problem.m;
  copyA.globalCols = problem.k;
  copyA.tileRows = tiling.tileM;
  copyA.tileCols = tiling.tileK;
  copyB.globalRows = problem.transposedB ? problem.n : problem.k;
  copyB.globalCols = problem.transposedB ? problem.k : problem.n;
  copyB.tileRows = problem.transposedB ? tiling.tileN : tiling.tileK;
  copyB.tileCols = problem.transposedB ? tiling.tileK : tiling.tileN;
  if (failed(planCopy(copyA, matmul, "A")) ||
      failed(planCopy(copyB, matmul, "B")))
    return failure();

  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroups = tiling.subgroupsM * tiling.subgroupsN;
  int64_t inputBytes = inputStorage.getIntOrFloatBitWidth() / 8;
  int64_t sharedBytes =
      tiling.stages * (copyA.stageElements + copyB.stageElements) * inputBytes;
  if (hasRaggedResult())
    sharedBytes +=
        subgroups * fm * fn * resultStorage.getIntOrFloatBitWidth() / 8;
  int64_t limit = getWorkgroupMemoryLimit(target);
  if (sharedBytes > limit)
    return matmul.emitOpError()
               << "cannot be tiled: the tiling needs " << sharedBytes
               << " bytes of workgroup memory, more than the " << limit
               << " a kernel may use on target '"
               << (target.getName() ? target.getName().getValue() : "custom")
               << "'",
           failure();

  auto workgroupSpace =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto flat = [&](int64_t size, Type element, Attribute space = nullptr) {
    return MemRefType::get({size}, element, MemRefLayoutAttrInterface(), space);
  };
  SmallVector<Type> arguments = {flat(problem.m * problem.k, inputStorage),
                                 flat(problem.k * problem.n, inputStorage),
                                 flat(problem.m * problem.n, resultStorage)};
  SmallVector<Type> attributions = {
      flat(tiling.stages * copyA.stageElements, inputStorage, workgroupSpace),
      flat(tiling.stages * copyB.stageElements, inputStorage, workgroupSpace)};
  if (hasRaggedResult())
    attributions.push_back(
        flat(subgroups * fm * fn, resultStorage, workgroupSpace));

  auto kernel = gpu::GPUFuncOp::create(
      moduleBuilder, loc, name, FunctionType::get(context, arguments, {}),
      attributions);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  moduleBuilder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(getThreads()), 1, 1}));

  entry = &kernel.getBody().front();
  b.setInsertionPointToEnd(entry);
  copyA.global = entry->getArgument(0);
  copyB.global = entry->getArgument(1);
  c = entry->getArgument(2);
  copyA.shared = kernel.getWorkgroupAttributions()[0];
  copyB.shared = kernel.getWorkgroupAttributions()[1];
  if (hasRaggedResult())
    scratch = kernel.getWorkgroupAttributions()[2];

  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  subgroupId = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
  laneId = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  auto [tileRow, tileColumn] = getTilePosition(blockX, blockY);
  rowBase = mul(tileRow, tiling.tileM);
  columnBase = mul(tileColumn, tiling.tileN);
  Value subgroupM =
      arith::DivUIOp::create(b, loc, subgroupId, index(tiling.subgroupsN));
  Value subgroupN =
      arith::RemUIOp::create(b, loc, subgroupId, index(tiling.subgroupsN));
  subgroupRow = mul(subgroupM, tiling.tileM / tiling.subgroupsM);
  subgroupColumn = mul(subgroupN, tiling.tileN / tiling.subgroupsN);
  computeCopyPositions(copyA);
  computeCopyPositions(copyB);

  // Where the copies of K step `step` start in A and B.
  auto loadStep = [&](Value step) {
    Value k = mul(step, tiling.tileK);
    SmallVector<Value> a = loadTile(copyA, rowBase, k);
    SmallVector<Value> bValues = problem.transposedB
                                     ? loadTile(copyB, columnBase, k)
                                     : loadTile(copyB, k, columnBase);
    return std::make_pair(a, bValues);
  };
  auto storeStep =
      [&](const std::pair<SmallVector<Value>, SmallVector<Value>> &values,
          Value step) {
        storeTile(copyA, values.first, stageOffset(copyA, step));
        storeTile(copyB, values.second, stageOffset(copyB, step));
      };

  SmallVector<Value> accumulators = initAccumulators();
  int64_t steps = llvm::divideCeil(problem.k, tiling.tileK);
  if (tiling.stages == 2)
    storeStep(loadStep(index(0)), index(0));
  if (tiling.stages == 2)
    gpu::BarrierOp::create(b, loc);
  auto loop = scf::ForOp::create(b, loc, index(0), index(steps), index(1),
                                 accumulators);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    SmallVector<Value> carried(loop.getRegionIterArgs());
    if (tiling.stages == 2) {
      // Load the next step while this one multiplies; the last iteration
      // reloads its own step rather than branch.
      std::optional<std::pair<SmallVector<Value>, SmallVector<Value>>> next;
      Value nextStep;
      if (steps > 1) {
        nextStep =
            arith::MinUIOp::create(b, loc, add(step, 1), index(steps - 1));
        next = loadStep(nextStep);
      }
      multiplyStep(stageOffset(copyA, step), stageOffset(copyB, step), carried);
      if (next) {
        storeStep(*next, add(step, 1));
        gpu::BarrierOp::create(b, loc);
      }
    } else {
      auto values = loadStep(step);
      gpu::BarrierOp::create(b, loc);
      storeStep(values, step);
      gpu::BarrierOp::create(b, loc);
      multiplyStep(index(0), index(0), carried);
    }
    scf::YieldOp::create(b, loc, carried);
  }
  storeAccumulators(SmallVector<Value>(loop.getResults()));
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

/// The runner's description of the kernel's launch, arguments and check.
static DictionaryAttr getLaunchDescription(OpBuilder &builder,
                                           const MatmulProblem &problem,
                                           int64_t gridX, int64_t gridY) {
  bool isUnsigned = problem.inputComponent.isUnsignedInteger();
  StringRef input =
      getRunnerElementName(getStorageType(problem.inputComponent), isUnsigned);
  StringRef result =
      getRunnerElementName(getStorageType(problem.resultComponent), isUnsigned);
  // C starts random, so that an element the kernel never wrote shows as a
  // mismatch; with a fill, C starts poisoned and the check uses the fill.
  std::string check = llvm::formatv("gemm:M={0},N={1},K={2},A=0,B=1,C=2",
                                    problem.m, problem.n, problem.k);
  if (problem.transposedB)
    check += ",b-col-major";
  std::string initial = "random";
  if (problem.fillValue) {
    initial = "poison";
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(problem.fillValue))
      value = f.getValueAsDouble();
    else
      value = double(cast<IntegerAttr>(problem.fillValue).getInt());
    check += llvm::formatv(",init={0}", llvm::format("%.17g", value)).str();
  } else {
    check += ",acc=2";
  }
  SmallVector<Attribute> arguments = {
      builder.getStringAttr(
          llvm::formatv("{0}:{1}:random", input, problem.m * problem.k)),
      builder.getStringAttr(
          llvm::formatv("{0}:{1}:random", input, problem.k * problem.n)),
      builder.getStringAttr(llvm::formatv("{0}:{1}:{2}", result,
                                          problem.m * problem.n, initial))};
  return builder.getDictionaryAttr({
      builder.getNamedAttr("grid",
                           builder.getDenseI32ArrayAttr(
                               {int32_t(gridX), int32_t(gridY), int32_t(1)})),
      builder.getNamedAttr("arguments", builder.getArrayAttr(arguments)),
      builder.getNamedAttr("check", builder.getStringAttr(check)),
  });
}

FailureOr<gpu::LaunchFuncOp>
mlir::subgroup_matrix::tileMatmul(RewriterBase &rewriter,
                                  linalg::MatmulOp matmul, TargetAttr target,
                                  const MatmulTiling &requested) {
  FailureOr<MatmulProblem> problem = analyzeMatmul(matmul);
  if (failed(problem))
    return failure();
  FailureOr<MatrixConfigAttr> config = chooseConfig(matmul, *problem, target);
  if (failed(config))
    return failure();
  FailureOr<MatmulTiling> tiling =
      resolveMatmulTiling(matmul, *problem, *config, target, requested);
  if (failed(tiling))
    return failure();

  // The kernel goes into a gpu.module of its own, next to the top-level
  // function that holds the matmul.
  Operation *topLevel = matmul->getParentOfType<FunctionOpInterface>();
  while (topLevel && !isa<ModuleOp>(topLevel->getParentOp()))
    topLevel = topLevel->getParentOp();
  if (!topLevel)
    return matmul.emitOpError(
               "cannot be tiled: it is not inside a function of a module"),
           failure();
  auto module = cast<ModuleOp>(topLevel->getParentOp());
  Location loc = matmul.getLoc();
  MLIRContext *context = rewriter.getContext();

  OpBuilder moduleBuilder(topLevel);
  auto gpuModule =
      gpu::GPUModuleOp::create(moduleBuilder, loc, "matmul_kernels");
  SymbolTable(module).insert(gpuModule, Block::iterator(topLevel));
  gpuModule->setAttr(SubgroupMatrixDialect::getTargetAttrName(), target);
  OpBuilder kernelBuilder = OpBuilder::atBlockBegin(gpuModule.getBody());
  MatmulKernelEmitter emitter(*problem, *config, target, *tiling, loc);
  FailureOr<gpu::GPUFuncOp> kernel =
      emitter.emit(kernelBuilder, "matmul", matmul);
  if (failed(kernel)) {
    gpuModule.erase();
    return failure();
  }
  // The emitter recomputes shared index arithmetic freely; CSE keeps the
  // kernel readable.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, *kernel);
  (*kernel)->setAttr(SubgroupMatrixDialect::getLaunchAttrName(),
                     getLaunchDescription(rewriter, *problem,
                                          emitter.getGridX(),
                                          emitter.getGridY()));
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(context));

  // The host side: flat views of the operands and the launch.
  rewriter.setInsertionPoint(matmul);
  SmallVector<Value> operands;
  for (Value operand : {problem->a, problem->b, problem->c}) {
    SmallVector<ReassociationIndices> all = {{0, 1}};
    operands.push_back(
        memref::CollapseShapeOp::create(rewriter, loc, operand, all));
  }
  DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) -> Value {
    Value &result = constants[value];
    if (!result)
      result = arith::ConstantIndexOp::create(rewriter, loc, value);
    return result;
  };
  Value one = constant(1);
  gpu::KernelDim3 grid{constant(emitter.getGridX()),
                       constant(emitter.getGridY()), one};
  gpu::KernelDim3 block{constant(emitter.getThreads()), one, one};
  auto launch =
      gpu::LaunchFuncOp::create(rewriter, loc, *kernel, grid, block,
                                /*dynamicSharedMemorySize=*/Value(), operands);
  if (problem->fill)
    rewriter.eraseOp(problem->fill);
  rewriter.eraseOp(matmul);
  return launch;
}

namespace {
struct TileMatmulPass
    : public subgroup_matrix::impl::TileMatmulPassBase<TileMatmulPass> {
  using TileMatmulPassBase::TileMatmulPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(module.getLoc(), targetName);
    if (failed(overrideTarget))
      return signalPassFailure();
    MatmulTiling requested;
    requested.tileM = tileM;
    requested.tileN = tileN;
    requested.tileK = tileK;
    requested.subgroupsM = subgroupsM;
    requested.subgroupsN = subgroupsN;
    requested.padding = padding;
    requested.stages = stages;
    requested.vectorWidth = vectorWidth;
    requested.groupM = groupM;

    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp matmul) {
      // Matmuls already inside kernels are left alone.
      if (!matmul->getParentOfType<gpu::GPUModuleOp>())
        matmuls.push_back(matmul);
    });
    IRRewriter rewriter(&getContext());
    bool failedAny = false;
    for (linalg::MatmulOp matmul : matmuls) {
      TargetAttr target =
          *overrideTarget ? *overrideTarget : findEnclosingTarget(matmul);
      if (!target) {
        matmul.emitOpError("cannot be tiled: no target (pass target=NAME or "
                           "set subgroup_matrix.target on the module)");
        failedAny = true;
        continue;
      }
      if (failed(tileMatmul(rewriter, matmul, target, requested)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
