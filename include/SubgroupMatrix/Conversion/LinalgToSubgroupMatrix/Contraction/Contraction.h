//===- Contraction.h - what a linalg contraction computes -------*- C++ -*-===//
//
// The first of the three steps from linalg to a kernel: read a linalg op
// (matmul, batch_matmul, a contraction written as linalg.generic, with
// either operand transposed) and the element-wise ops around it that the
// kernel can take over (extensions of its inputs, an epilogue on its
// result) into a `Contraction`. TilingPlan.h chooses how to tile it and
// KernelEmitter.h writes the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTION_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTION_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace subgroup_matrix {

/// A `tensor.pad` folded into a gathering prologue: its input is read
/// through its map where that falls inside the input, and is `value`
/// elsewhere (the padding, which is never stored).
struct GatherPadding {
  TypedAttr value;
  /// The dimensions the map may fall outside of.
  SmallVector<bool> checked;
};

/// An input of the contraction as the kernel reads it: a dense row-major
/// buffer holding one matrix per batch (or one matrix for all).
struct ContractionInput {
  Value buffer;
  /// A stored K x M, B stored N x K.
  bool transposed = false;
  /// One matrix per batch; otherwise the same matrix for every batch.
  bool batched = false;
  /// An element-wise producer (a scale, say) whose body the kernel applies
  /// to each element as it stages it; `buffer` is then what it reads.
  mutable linalg::GenericOp prologue;
  /// Whether the prologue reads its inputs itself, element by element
  /// through their indexing maps (a dequantization: a narrower stored
  /// weight, maybe packed, with scales per column or per group of K):
  /// `buffer` is then its first input and `prologueOperands` the others.
  bool gathers = false;
  SmallVector<Value> prologueOperands;
  /// With `gathers`, the element of each prologue input that the element
  /// (row, column) of the stored matrix (batched: (batch, row, column)) is
  /// computed from.
  SmallVector<AffineMap> gatherMaps;
  /// With `gathers`, per prologue input, the padding folded into it.
  SmallVector<std::optional<GatherPadding>> gatherPadding;
};

/// How an epilogue operand other than the running result is indexed.
enum class EpilogueBroadcast {
  /// One element per element of the result (a residual).
  None,
  /// One element per column, the same in every row (a bias over N).
  AlongRows,
  /// One element per row, the same in every column (a bias over M).
  AlongColumns,
  /// One element for the whole result (a scale), element 0 of its buffer.
  Everywhere,
};

/// A buffer an epilogue op reads besides the running result.
struct EpilogueOperand {
  Value buffer;
  EpilogueBroadcast broadcast = EpilogueBroadcast::None;
  /// One slice per batch; otherwise shared by all batches.
  bool batched = false;
};

/// One element-wise consumer applied in the kernel: its linalg.generic, the
/// input that reads the running result, and the kernel operand (an index
/// into `Contraction::epilogueOperands`) each other input reads.
struct EpilogueStep {
  /// Mutable: op handles do not propagate const.
  mutable linalg::GenericOp op;
  unsigned resultInput = 0;
  SmallVector<int> operandOf;
  /// The temporary the step reads the running result from, which fusing
  /// made dead.
  Operation *inputAllocation = nullptr;
};

/// What a contraction computes, C[b] (+)= A[b] * B[b],
/// and what the kernel takes over around it.
struct Contraction {
  mutable linalg::LinalgOp op;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// The batch is summed over (C = sum over b of A[b] * B[b], as
  /// linalg.batch_reduce_matmul): C has no batch, and the K loop walks
  /// every batch in turn.
  bool reducesBatch = false;
  ContractionInput a, b;
  /// The accumulator buffer (read first unless `fillValue` is set).
  Value c;
  /// Component types of A and B, and of the accumulator.
  Type inputComponent, resultComponent;
  /// A `linalg.fill` of C with a constant right before the contraction,
  /// whose value becomes the initial accumulator.
  linalg::FillOp fill;
  TypedAttr fillValue;
  /// Element-wise extensions of 8-bit or f16 inputs folded into the loads,
  /// and the prologues of A and B (once each: A and B may be one buffer).
  llvm::SetVector<Operation *> fusedProducers;
  /// Element-wise consumers applied to the result before the store.
  SmallVector<EpilogueStep> epilogue;
  SmallVector<EpilogueOperand> epilogueOperands;
  /// Where the kernel stores: `c`, or the last epilogue op's output.
  Value output;
  /// With split K, the rows of each part's slice of the workspace `output`:
  /// M rounded up to whole workgroup tiles, so that the kernel stores whole
  /// result matrices (0: the output has M rows).
  int64_t outputRowsPerPart = 0;
  /// Buffers that only the fused ops used, erased with them.
  llvm::SetVector<Operation *> deadAllocations;
  /// The fusion the plan stage decided for this contraction (its
  /// `subgroup_matrix.fusion_group`): only ops that carry the same group
  /// fuse. Null: fusion is decided here, and only ops of no group fuse.
  IntegerAttr fusionGroup;

  bool accumulates() const { return !fillValue; }
  /// Sizes known only at run time (ShapedType::kDynamic): the kernel takes
  /// each of them as an argument after its buffers, in the order M, N, K,
  /// and the host reads them off A (M, K) and B (N).
  bool hasDynamicM() const { return ShapedType::isDynamic(m); }
  bool hasDynamicN() const { return ShapedType::isDynamic(n); }
  bool hasDynamicK() const { return ShapedType::isDynamic(k); }
  bool hasDynamicSizes() const {
    return hasDynamicM() || hasDynamicN() || hasDynamicK();
  }
  /// The dimension of A holding M (or K), and of B holding N, in storage
  /// order (after the batch, when the input has one).
  unsigned getDimOfM() const { return unsigned(a.batched) + a.transposed; }
  unsigned getDimOfK() const { return unsigned(a.batched) + !a.transposed; }
  unsigned getDimOfN() const { return unsigned(b.batched) + !b.transposed; }
  /// The component type of what the kernel stores.
  Type getOutputComponent() const;
};

/// The loops `map` indexes with, in order, when all its results are loops.
std::optional<SmallVector<unsigned>> getIndexingLoops(AffineMap map);

/// Whether `body` multiplies its two inputs (maybe extended) and adds the
/// product to the accumulator.
bool isMultiplyAccumulateBody(Block &body);

/// Whether `body` adds (a - za)(b - zb) to the accumulator, a and b its
/// first two arguments (maybe sign-extended) and za, zb its next two: the
/// body of linalg's quantized products and convolutions.
bool isQuantizedMultiplyAccumulateBody(Block &body);

/// Whether a kernel can compute `expr` from loop indices: dimensions and
/// constants under +, and *, floordiv and mod by positive constants (how
/// front-ends index a packed weight, a group's scale, or a window).
bool isComputableIndex(AffineExpr expr);

/// Emits `expr` (`isComputableIndex`) on the values `dims` of its
/// dimensions, which are never negative.
Value emitIndex(OpBuilder &builder, Location loc, AffineExpr expr,
                ValueRange dims);

/// Whether `op` is a linalg.generic on tensors, outside kernels, whose
/// loops are all parallel.
bool isElementwiseOnTensors(Operation *op);

/// Whether `op` is a contraction this project can put in a kernel (its
/// indexing maps and body are a matrix product, maybe batched).
bool isMatrixContraction(linalg::LinalgOp op);

/// Why `op` is not a matrix contraction (empty when it is one).
std::string whyNotMatrixContraction(linalg::LinalgOp op);

/// The `linalg.fill` of the buffer `c` before `op` in its block, when
/// nothing between them reads or writes `c` or a view of the same buffer
/// (so that `op` may start from the fill's value instead); none when `op`
/// reads that buffer through another operand too.
linalg::FillOp getFillBefore(Operation *op, Value c);

/// Cleans up after the tensor stages that reshape operands (batch loops
/// folded, contractions normalized): a reshape or transpose of a fill or an
/// empty tensor becomes a fill or an empty tensor of the new shape (so that
/// a product still sees its constant accumulator), and a reshape followed
/// by its inverse is the original value.
LogicalResult foldReshapedFills(ModuleOp module);

/// Rewrites each convolution on tensors (named, of any layout, or a generic
/// whose input map windows the image) that has output channels as a
/// contraction whose A is the gathered window, a linalg.generic that
/// copies the input through the convolution's map (implicit GEMM); a
/// quantized convolution keeps its zero points, as a quantized contraction.
/// Others (depthwise convolutions, dynamic sizes) are left as they are.
void rewriteConvolutionsAsContractions(ModuleOp module);

/// Rewrites each quantized contraction on tensors
/// (`linalg.quantized_matmul`, `quantized_batch_matmul`, and generics with
/// their body, such as a quantized convolution's contraction) whose K has a
/// static size as the product of the stored values followed by the zero
/// points' corrections (row sums of A and column sums of B, reductions of
/// their own, in an element-wise epilogue). Others are left as they are.
void rewriteQuantizedMatmuls(ModuleOp module);

/// Reads the contraction `op` (on memrefs) computes. Reports on `op` why it
/// cannot be tiled into a kernel and fails otherwise.
FailureOr<Contraction> matchContraction(linalg::LinalgOp op);

/// Whether `op` computes each output element from the same element of its
/// one input (all loops parallel, identity maps).
bool isUnaryElementwise(linalg::GenericOp op);

/// Whether `buffer` is an allocation that only `uses` (and deallocations)
/// touch, so that fusing them away leaves nothing that reads it.
bool isPrivateTemporary(Value buffer, ArrayRef<Operation *> uses);

/// Why `buffer`'s layout is unknown, for a diagnostic: a cast of an
/// unranked buffer (a function taking tensors of dynamic rank); empty
/// otherwise.
std::string describeUnknownLayout(Value buffer);

/// `map` (into a view) composed with the view's static `offsets` and
/// `strides` (into what it views): result i becomes
/// `result_i * strides[i] + offsets[i]`.
AffineMap applyStaticView(AffineMap map, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> strides);

/// The one dimension of `group` (of `shape`'s dimensions) longer than 1,
/// the first when all are 1, or none when several are longer: the
/// dimension whose index a reshape that only adds or drops unit dimensions
/// carries.
std::optional<int64_t> getOnlyLongDimension(ArrayRef<int64_t> shape,
                                            ArrayRef<int64_t> group);

/// `map`, which indexes the result of a collapse of `sourceShape` by
/// `groups`, as a map of the source's dimensions: each collapsed index is
/// the index of its group's one long dimension (getOnlyLongDimension), the
/// others 0; none where a group has several long dimensions.
std::optional<AffineMap>
mapThroughCollapse(AffineMap map, ArrayRef<int64_t> sourceShape,
                   ArrayRef<ReassociationIndices> groups);

/// Clones the ops of `body` (but its terminator) with `builder`, first
/// copying the constants they use from outside it, and returns the values
/// the terminator yields. `emitInstead`, where given, may emit an op itself
/// (and map its results) and return true, for ops a plain copy would get
/// wrong.
SmallVector<Value>
cloneScalarBodyResults(OpBuilder &builder, Block &body, IRMapping &mapping,
                       function_ref<bool(Operation &)> emitInstead = nullptr);

/// cloneScalarBodyResults for a body that yields one value.
Value cloneScalarBody(OpBuilder &builder, Block &body, IRMapping &mapping);

/// Builds `C += A * B` over `maps` and `iterators` as a linalg.generic whose
/// body extends the inputs to C's element type (a contraction this
/// library's kernels take).
linalg::GenericOp
buildContractionGeneric(OpBuilder &builder, Location loc, Value a, Value b,
                        Value c, ArrayRef<AffineMap> maps,
                        ArrayRef<utils::IteratorType> iterators);

/// The component type of `storage` (a float type, or an integer type of
/// its width) with the contraction's signedness.
Type getComponent(Type storage, bool isUnsigned);

/// Takes over the extensions that produce A and B and the element-wise
/// consumers of C into `contraction` where it can (each only writes a
/// temporary buffer that nothing else reads). Extensions into a product
/// that `target` computes on widened operands (chooseProductForm) stay
/// prologues: the product is the f32 one.
void fuseElementwiseNeighbours(Contraction &contraction, TargetAttr target);

/// Records the fusion of `contraction` in the IR as `group`
/// (`subgroup_matrix.fusion_group` on the contraction and on every op fused
/// into it), for the stages after the plan to read.
void recordFusion(const Contraction &contraction, IntegerAttr group);

/// Gives the fused epilogue back to the program: the contraction writes C
/// again and the consumers stay where they are (for a split of K, whose
/// partial products must be added up before an epilogue applies).
void unfuseEpilogue(Contraction &contraction);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTION_H
