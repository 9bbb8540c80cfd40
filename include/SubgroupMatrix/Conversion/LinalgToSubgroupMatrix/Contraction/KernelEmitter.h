//===- KernelEmitter.h - a contraction's kernel -----------------*- C++ -*-===//
//
// The third step from linalg to a kernel: write the `gpu.func` of a
// `Contraction` tiled by a `TilingPlan`, in subgroup_matrix ops, with the
// fused producers folded into its loads and the fused epilogue applied
// before its single store.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_KERNELEMITTER_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_KERNELEMITTER_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/KernelLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// A contraction's kernel and how to launch it.
struct ContractionKernel {
  gpu::GPUFuncOp function;
  /// Workgroups along N, M and the batch; invocations per workgroup.
  /// `gridX` is 0 when N is dynamic (ceil(N / tileN) at run time), `gridY`
  /// when M is.
  int64_t gridX = 1, gridY = 1, gridZ = 1, threads = 1;
  /// The workgroup tile (for the grid of a dynamic M or N).
  int64_t tileM = 0, tileN = 0;
  /// The host buffers the launch passes, in the kernel's argument order
  /// (each flattened to one dimension); the dynamic sizes (M, N, K) follow
  /// them.
  SmallVector<Value> arguments;
};

/// The host buffers the kernel of `problem` takes, in its argument order
/// (every kernel family of a contraction takes them so, and the launch
/// description counts them so): A, B, C when it is read, the epilogue's
/// operands, A's and B's gathering prologues' other inputs, and the output
/// when it is not C.
SmallVector<Value> getContractionKernelArguments(const Contraction &problem);

/// The one-dimensional view of `buffer` (dense, row-major) that kernels of
/// this generator take: `buffer` itself when it has one dimension, else a
/// memref.collapse_shape of all of them, built with `builder` on the host.
Value flattenForLaunch(OpBuilder &builder, Location loc, Value buffer);
/// The flat (rank-1) type a kernel takes a buffer of `type` as (that of
/// flattenForLaunch's view): of its element count, or dynamic.
MemRefType getFlatKernelArgumentType(MemRefType type);
/// The same of `buffer`'s type.
MemRefType getFlatKernelArgumentType(Value buffer);

/// A subgroup_matrix.map of `inputs` to `resultType` whose body `body`
/// builds (at the builder's insertion point) from the element's row and
/// column and the inputs' elements, returning the yielded value.
Value createMap(
    OpBuilder &builder, Location loc, Type resultType, ValueRange inputs,
    function_ref<Value(Value row, Value column, ValueRange elements)> body);

/// A size in a kernel's `subgroup_matrix.launch` description: the product
/// of `factors` (static sizes, or ShapedType::kDynamic for the size named
/// by the same position of `names`). A number when all are static, else an
/// expression that sm-vulkan-runner evaluates once it is given the sizes
/// (`--size M=130`), such as "{M*72}".
std::string formatLaunchSize(ArrayRef<int64_t> factors,
                             ArrayRef<StringRef> names);

/// Builds the kernel `name` of `layout.problem` (its output the buffer the
/// kernel writes) with `moduleBuilder`, as `plan` lays it out (planning
/// checked the layout: layOutContractionKernel).
FailureOr<ContractionKernel>
emitContractionKernel(OpBuilder &moduleBuilder, StringRef name,
                      const ContractionKernelLayout &layout, TargetAttr target,
                      const TilingPlan &plan);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_KERNELEMITTER_H
