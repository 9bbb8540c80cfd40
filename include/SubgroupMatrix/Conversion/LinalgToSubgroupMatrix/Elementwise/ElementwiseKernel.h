//===- ElementwiseKernel.h - a kernel for an element-wise op ----*- C++ -*-===//
//
// What sm-linalg-to-gpu does with an element-wise linalg op it cannot fuse
// into a contraction: a kernel of its own, one invocation per element, so
// that no computation stays on the host.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ELEMENTWISEKERNEL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ELEMENTWISEKERNEL_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Invocations per workgroup of element-wise kernels: a multiple of every
/// target's subgroup size.
constexpr int64_t kElementwiseWorkgroupSize = 256;

/// Vulkan guarantees 65535 workgroups per grid dimension.
constexpr int64_t kMaxGridDimension = 65535;

/// Whether `value` can be a kernel's scalar argument: an integer, index or
/// float the host knows (a function argument, or computed from one).
bool isKernelScalar(Value value);

/// The scalars the kernel of `op` takes as arguments, in order: its
/// non-constant scalar operands, then the non-constant values its body
/// uses from outside.
SmallVector<Value> getKernelScalars(linalg::GenericOp op);

/// The kind of the associative op by which `op`'s body folds its
/// reduction (`out = combine(out, x)`, the output read nowhere else), if
/// it has one.
std::optional<arith::AtomicRMWKind> getReductionKind(linalg::GenericOp op);

/// The element type's name in a kernel's `subgroup_matrix.launch`
/// arguments (f16, bf16, f32, f64, i8 or i32), or "" for types the runners
/// do not fill (i64, i4).
StringRef getLaunchElementName(Type element);

/// Whether a kernel on `buffers` and host `scalars` can describe a launch
/// of its own (`subgroup_matrix.launch`, for the runners): a kernel alone
/// has no value for a scalar the host computes, and the runners fill only
/// the element types getLaunchElementName names.
bool canLaunchAlone(ArrayRef<Value> buffers, ArrayRef<Value> scalars);

/// The launch of an element-wise or row-group kernel on `buffers` (of
/// `counts` elements each, integers or size expressions in braces): a grid
/// of `grid` workgroups where its loops are static; else `workgroups`, a
/// size expression of the loop names `sizes`, spread over x up to
/// kMaxGridDimension and then over y.
LaunchAttr getSpreadLaunch(MLIRContext *context, ArrayRef<Value> buffers,
                           ArrayRef<std::string> counts,
                           std::array<int64_t, 2> grid, StringRef workgroups,
                           ArrayRef<std::string> sizes);

//===----------------------------------------------------------------------===//
// What the element-wise and row-group kernels build alike
//===----------------------------------------------------------------------===//

/// A workgroup buffer of `size` elements of `element`.
MemRefType getWorkgroupBufferType(int64_t size, Type element);

/// The arguments of a kernel of the element-wise family, in their order:
/// the buffers it reads and writes (each once, flattened:
/// getFlatKernelArgumentType), an index for each dynamic loop size,
/// `extraSizes` more indices, then the scalars the host knows (each once;
/// a constant is cloned into the kernel instead).
struct ElementKernelArguments {
  SmallVector<Value> buffers, scalars;
  unsigned extraSizes = 0;

  void addBuffer(Value buffer) {
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  }
  void addScalar(Value value);
};

/// A new kernel of the element-wise family: its function, created at the
/// end of `into` (taking `arguments` for loops of `ranges`, with workgroup
/// buffers `attributions`, workgroups of `workgroupSize` invocations), and
/// its entry block.
struct ElementKernelSkeleton {
  gpu::GPUFuncOp kernel;
  Block *entry = nullptr;
  /// Each loop's size: its constant, or its index argument.
  SmallVector<Value> loopSizes;
  /// The `extraSizes` index arguments.
  SmallVector<Value> extraSizes;
  /// Each host scalar's kernel argument.
  IRMapping scalarArguments;
};
ElementKernelSkeleton
createElementKernel(gpu::GPUModuleOp into, Location loc, StringRef name,
                    const ElementKernelArguments &arguments,
                    ArrayRef<int64_t> ranges, ArrayRef<Type> attributions,
                    int64_t workgroupSize);

/// The host side of a launch of an element kernel, built at `builder`'s
/// insertion point: its operands in the order of `arguments` (flat views
/// of the buffers, each dynamic loop size read off the buffer dimension
/// `sourceOfLoop` names, then the buffer dimensions `extraSizes` names,
/// then the scalars), and the product of the sizes of the loops of kind
/// `kind`.
struct ElementLaunchOperands {
  SmallVector<Value> operands;
  Value product;
};
ElementLaunchOperands buildElementLaunchOperands(
    OpBuilder &builder, Location loc, const ElementKernelArguments &arguments,
    ArrayRef<int64_t> ranges, ArrayRef<std::pair<Value, unsigned>> sourceOfLoop,
    ArrayRef<utils::IteratorType> iterators, utils::IteratorType kind,
    ArrayRef<std::pair<Value, unsigned>> extraSizes);

/// The launch description's text for the product of the sizes of the loops
/// of kind `kind` (named `names`), without braces: "{M*72}" gives "M*72".
std::string formatLoopProduct(ArrayRef<int64_t> ranges,
                              ArrayRef<utils::IteratorType> iterators,
                              ArrayRef<StringRef> names,
                              utils::IteratorType kind);

/// The launch description's element count of `buffer`, which `ops` read
/// or write: its static size, or a product that names, for each dynamic
/// dimension, the loop of `names` that indexes it.
std::string formatBufferSize(Value buffer, ArrayRef<linalg::GenericOp> ops,
                             ArrayRef<StringRef> names);

/// Sets `loops[d]`, for each loop d of kind `kind` from the last to the
/// first, to its position in `linear` (row-major over `loopSizes`).
void decomposeLinearIndex(OpBuilder &b, Location loc, Value linear,
                          ArrayRef<Value> loopSizes,
                          ArrayRef<utils::IteratorType> iterators,
                          utils::IteratorType kind,
                          MutableArrayRef<Value> loops);

/// The value of a host scalar in a kernel: its kernel argument in
/// `scalarArguments`, else a clone of the constant that defines it.
Value getScalarInKernel(OpBuilder &b, Value scalar,
                        const IRMapping &scalarArguments);

/// Combines the `partial` values of a workgroup's `size` invocations
/// (`thread` each) with `kind`, pairwise in the workgroup buffer `parts`;
/// afterwards parts[0] holds the total, visible to every invocation.
void emitWorkgroupReduction(OpBuilder &b, Location loc,
                            arith::AtomicRMWKind kind, Value partial,
                            Value parts, Value thread, int64_t size);

/// The values of the arguments of `op`'s body for one element, on top of
/// `scalarArguments`: an input operand `known` has a value for takes it, a
/// scalar its kernel argument (getScalarInKernel), a buffer the load that
/// `loadOperand` builds; each linalg.index its loop in `loops`.
IRMapping mapElementArguments(OpBuilder &b, linalg::GenericOp op,
                              const IRMapping &scalarArguments,
                              const IRMapping &known,
                              function_ref<Value(OpOperand *)> loadOperand,
                              ArrayRef<Value> loops);

/// Whether `op` can become an element-wise kernel; otherwise reports why on
/// `op` (with `report`) and returns false.
/// Operands in `computed` are buffers that a kernel of several ops computes
/// itself (a row group's reductions) and are not checked.
/// With `allowBodyLoads`, the body may load from statically shaped
/// row-major buffers of the host (a gather: an embedding's rows chosen by
/// ids), which emitElementwiseKernel passes to the kernel.
bool canEmitElementwiseKernel(linalg::GenericOp op, bool report,
                              ArrayRef<Value> computed = {},
                              bool allowBodyLoads = false);

/// The buffers of the host that `op`'s body loads from (gathers), in order.
SmallVector<Value> getBodyLoadedBuffers(linalg::GenericOp op);

/// Gives each rank-0 operand of a linalg op on buffers (a scale, a zero
/// point, a threshold, a dot product's result), and each rank-0 buffer its
/// body loads from outside, a one-element view read at the constant index
/// 0: kernels address their buffers by position, and a scalar in memory is
/// the buffer's element 0. Named ops become generics for their maps to
/// change.
void viewScalarsAsVectors(ModuleOp module);

/// The loop sizes an element-wise kernel runs a generic on `operands`
/// (through `maps`) over: per loop, the smallest static size of the operand
/// dimensions it indexes alone (kDynamic where none is static). They differ
/// where a generic reads or writes part of a larger buffer (a split-K sum
/// reading its parts, a copy into a view folded into its buffer's map).
SmallVector<int64_t> getKernelLoopSizes(ArrayRef<AffineMap> maps,
                                        ValueRange operands,
                                        unsigned loopCount);

/// A reduction split in two steps (splitLongReduction): the fill of the
/// partial results with the reduction's identity, the generic that folds
/// each part into its partial result, and the one that folds the partial
/// results into the output.
struct SplitReduction {
  linalg::FillOp fill;
  linalg::GenericOp parts, total;
};

/// Splits `op`, a reduction of at least 2^16 elements into fewer outputs
/// than `target` has compute units whose body folds with one associative
/// op (getReductionKind), in two generics that replace it, so that its
/// kernels fill the device; fails, changing nothing, for every other op.
/// The first generic reads its inputs with the outermost reduction loop
/// split into parts (a new first loop) and writes one partial result per
/// part into a new buffer, the second folds them into the output.
FailureOr<SplitReduction> splitLongReduction(RewriterBase &rewriter,
                                             linalg::GenericOp op,
                                             TargetAttr target);

/// Whether the kernel of `op` can start each element of output `init` from
/// the value of `fill` (a fill of that output) instead of reading it, so
/// that the fill needs no kernel: the value is a constant or a kernel
/// scalar, and `op` writes every element of the output.
bool canStartFromFill(linalg::GenericOp op, OpOperand &init,
                      linalg::FillOp fill);

/// Replaces `op` (element-wise, on statically shaped row-major memrefs) by
/// the launch of kernel `name`, added to `into`. `startingFills` has one
/// entry per output of `op` or none: a fill (`canStartFromFill`) whose
/// value the kernel starts that output from, erased too, or null.
FailureOr<gpu::LaunchFuncOp>
emitElementwiseKernel(RewriterBase &rewriter, linalg::GenericOp op,
                      gpu::GPUModuleOp into, StringRef name,
                      ArrayRef<linalg::FillOp> startingFills = {});

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ELEMENTWISEKERNEL_H
