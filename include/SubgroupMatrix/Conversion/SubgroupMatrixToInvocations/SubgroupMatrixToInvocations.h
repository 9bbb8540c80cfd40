//===- SubgroupMatrixToInvocations.h - the per-invocation form -*- C++ -*-===//
//
// Patterns that lower subgroup_matrix ops to the per-invocation form, where
// each invocation holds its own slice of every matrix: the VNNI-packed form
// of SPV_INTEL_subgroup_matrix_multiply_accumulate (vectors, scalar loads
// and stores, calls of the extension's builtin), which sm-lower-to-intel
// uses, and the unpacked emulated form, which Vulkan emulation uses.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_SUBGROUPMATRIXTOINVOCATIONS_H
#define SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_SUBGROUPMATRIXTOINVOCATIONS_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace subgroup_matrix {

/// Teaches `converter` that each matrix type is the vector one invocation
/// holds (see InvocationLayout) for subgroups of `subgroupSize`.
void populateSubgroupMatrixToIntelTypeConversion(TypeConverter &converter,
                                                 unsigned subgroupSize);

/// Adds the patterns lowering every subgroup_matrix op.
void populateSubgroupMatrixToIntelPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           unsigned subgroupSize);

/// Teaches `converter` the emulated form of each matrix type (devices
/// without matrix units): the scalars one invocation holds
/// (InvocationLayout::getEmulated), a 1:N conversion.
void populateEmulatedSubgroupMatrixTypeConversion(TypeConverter &converter,
                                                  unsigned subgroupSize);

/// Checks, before anything is rewritten, that every subgroup_matrix op in
/// `root` can take the per-invocation form for subgroups of `subgroupSize`
/// (the emulated form when `emulated`): each matrix has a layout and no
/// access goes through a memref of packed words. Reports each op that
/// cannot.
LogicalResult checkPerInvocationForm(Operation *root, unsigned subgroupSize,
                                     bool emulated);

/// How emulated multiplications give each invocation the operand elements
/// other invocations hold. By default by subgroup broadcast and shuffle;
/// with `scratch` (a 1-D i32 buffer in workgroup memory holding
/// `wordsPerSubgroup` words per subgroup), each operand an invocation does
/// not hold whole is written there, between `subgroup_matrix.subgroup_barrier`s
/// (only one subgroup shares each region), and read back element by element.
///
/// Operands in `readInPlace` (sm-emulate-matrices fills it where the
/// exchange goes through workgroup memory) need neither: they were loaded
/// from workgroup memory that nothing writes before the multiplication, so
/// each invocation reads the elements it multiplies from there (see
/// findOperandsReadInPlace).
struct EmulatedOperandExchange {
  Value scratch;
  int64_t wordsPerSubgroup = 0;
  DenseSet<OpOperand *> readInPlace;
};

/// The `mma` and `multiply` operands in `root` that the emulation can read
/// from the workgroup memory they were loaded from instead of exchanging
/// them: the operand is a `subgroup_matrix.load` of workgroup memory in the
/// multiplication's block, and no op between the two may write memory.
/// Every invocation then reads its row of the left and column of the right
/// matrix directly: no exchange, no barrier, and the reads of one operand
/// by several multiplications are the same loads.
DenseSet<OpOperand *> findOperandsReadInPlace(Operation *root);

/// The scratch words per subgroup that the multiplications in `root` need
/// to exchange their operands (all but `readInPlace`) through workgroup
/// memory.
int64_t getEmulatedExchangeWords(Operation *root, unsigned subgroupSize,
                                 const DenseSet<OpOperand *> &readInPlace);

/// Adds the patterns lowering every subgroup_matrix op to the emulated form:
/// the Intel form's patterns with unpacked slots, column-major accesses as
/// vector accesses of four elements (see packWideAccesses, which keeps them
/// only where the buffer allows), and `mma` as multiply-adds fed by subgroup
/// broadcasts and shuffles.
void populateEmulatedSubgroupMatrixPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, const EmulatedOperandExchange &exchange = {});

/// Rewrites the matrices of `function` into their emulated form (scalars per
/// invocation, see populateEmulatedSubgroupMatrixPatterns) for subgroups of
/// `subgroupSize`, exchanging operands through workgroup scratch it
/// allocates when `exchangeThroughWorkgroup` (the kernel must then have a
/// known_block_size), else by subgroup broadcasts and shuffles; bf16
/// becomes f32 arithmetic on the bits. Expects 1-D buffers of the
/// matrices' storage type (flattenBuffers, unpackWordBuffers). Reports
/// each op that has no emulated form. sm-emulate-matrices (Vulkan, Metal)
/// and sm-lower-to-intel call it for the kernels that take that form.
LogicalResult emulateSubgroupMatrices(Operation *function,
                                      unsigned subgroupSize,
                                      bool exchangeThroughWorkgroup);

/// The Itanium-mangled name of __spirv_SubgroupMatrixMultiplyAccumulateINTEL
/// for operands of types `a`, `b` and `c` (LLVM's SPIR-V backend recognises
/// the builtin by it).
std::string getIntelMultiplyBuiltinName(Type a, Type b, Type c);

/// The Matrix Multiply Accumulate Operands for a component type: the packed
/// or tf32 interpretation of A and B, and signedness for signed integers.
uint32_t getIntelMultiplyOperands(Type component);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_SUBGROUPMATRIXTOINVOCATIONS_H
