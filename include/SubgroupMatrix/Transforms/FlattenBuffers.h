//===- FlattenBuffers.h - views folded, N-D buffers made 1-D ----*- C++ -*-===//
//
// The per-invocation lowerings (the emulated matrices of
// sm-lower-to-vulkan, the Intel form) address each matrix element through
// one linear index into its buffer. Kernels are written against N-D
// memrefs and views of them; these rewrites bring such kernels to the 1-D
// form those lowerings address, without changing what any access reads or
// writes.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_FLATTENBUFFERS_H
#define SUBGROUPMATRIX_TRANSFORMS_FLATTENBUFFERS_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace subgroup_matrix {

/// Adds patterns that fold a `memref.subview` into the indices of the
/// accesses through it: subgroup_matrix loads and stores, `memref.load`
/// and `memref.store`, `vector.load` and `vector.store`. The access then
/// addresses the subview's source at the same element; a matrix's stride
/// still counts elements of the underlying buffer, as it did.
void populateFoldSubViewIntoAccessPatterns(RewritePatternSet &patterns);

/// Folds the subviews of every access in `root` (see
/// populateFoldSubViewIntoAccessPatterns) and erases those left unused.
void foldSubViewsIntoAccesses(Operation *root);

/// Rewrites each buffer of `function` of rank 2 or more whose layout has
/// static strides and offset (memref arguments of a kernel, `memref.alloc`
/// results in any memory space) into the 1-D buffer of the same memory,
/// and every access to it into the access of the same element by its
/// linear index (offset + sum of index * stride). The 1-D buffer spans what
/// SPIR-V's type conversion gives the N-D one, so a kernel's bindings are
/// unchanged. A buffer used by anything but the accesses named above (a
/// call, a view) is left as it is.
void flattenBuffers(FunctionOpInterface function);

/// Rewrites each 1-D buffer of packed i32 words (`memref<Nxvector<Wxi32>>`,
/// a form the native lowering reads matrices from) whose subgroup matrices
/// share one storage type into the buffer of that type holding the same
/// bytes: matrix accesses address elements (index and stride scaled by the
/// elements per word), and loads and stores of whole words become vector
/// accesses of the word's elements. Kernel arguments and allocations only;
/// a buffer with other uses is left as it is.
void unpackWordBuffers(FunctionOpInterface function);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_FLATTENBUFFERS_H
