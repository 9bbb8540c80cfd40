//===- MSLEmitter.h - the Metal Shading Language printer -------*- C++ -*-===//
//
// The private emitter class of TranslateToMSL.cpp, whose operation groups
// are printed by two files: TranslateToMSL.cpp (module, kernels, types,
// names, subgroup matrices) and EmitOrdinaryOps.cpp (arith, math, gpu, scf,
// memref).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TARGET_MSL_MSLEMITTER_H
#define LIB_TARGET_MSL_MSLEMITTER_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace subgroup_matrix {
namespace msl {

/// Prints the kernels of the gpu.modules that sm-lower-to-metal left as one
/// Metal Shading Language source (translateToMSL's implementation).
class MSLEmitter {
public:
  explicit MSLEmitter(raw_ostream &output) : output(output) {}

  LogicalResult emitModule(Operation *root);

private:
  LogicalResult emitKernel(gpu::GPUFuncOp kernel);
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOperation(Operation &op);

  // Types.
  FailureOr<std::string> getTypeName(Location loc, Type type);
  std::string getUnsignedTypeName(Type type);
  FailureOr<std::string> getMatrixTypeName(Location loc,
                                           SubgroupMatrixTypeInterface type);

  // Names.
  /// A fresh C identifier based on `hint`.
  std::string uniqueName(StringRef hint);
  std::string bind(Value value, StringRef hint) {
    std::string variable = uniqueName(hint);
    names[value] = variable;
    return variable;
  }
  std::string name(Value value) { return names.lookup(value); }
  /// Declares `value` as a new variable holding `expression`.
  LogicalResult assign(Value value, StringRef hint, const std::string &expr);

  // Op groups.
  LogicalResult emitArith(Operation &op);
  LogicalResult emitGPU(Operation &op);
  LogicalResult emitSCF(Operation &op);
  LogicalResult emitMemRef(Operation &op);
  LogicalResult emitMatrix(Operation &op);

  FailureOr<std::string> getElementAddress(Operation *op, Value memref,
                                           ValueRange indices);
  std::string usePosition(StringRef attribute, StringRef component = "");

  raw_ostream &output;
  std::string body;
  llvm::raw_string_ostream bodyStream{body};
  raw_indented_ostream os{bodyStream};

  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> usedNames;
  /// Matrix types used, by struct name: each becomes a struct of fragments.
  struct MatrixStruct {
    std::string name, element;
    int64_t rowFragments, columnFragments;
  };
  SmallVector<MatrixStruct> matrixStructs;
  llvm::StringSet<> matrixStructNames;
  /// Position attributes the current kernel reads.
  llvm::SetVector<StringRef> usedPositions;
  /// The kernels emitted so far.
  std::string kernelsText;
  /// Variables that the innermost scf.yield assigns.
  SmallVector<SmallVector<std::string>> yieldTargets;
  bool usesBFloat = false;
};

} // namespace msl
} // namespace subgroup_matrix
} // namespace mlir

#endif // LIB_TARGET_MSL_MSLEMITTER_H
