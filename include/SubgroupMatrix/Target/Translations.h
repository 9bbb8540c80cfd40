//===- Translations.h - sm-translate registrations --------------*- C++ -*-===//
//
// Every translation `sm-translate` offers is registered from here, so tools
// and tests share one list.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TARGET_TRANSLATIONS_H
#define SUBGROUPMATRIX_TARGET_TRANSLATIONS_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace subgroup_matrix {

/// Writes the single spirv.module nested in `op` as a SPIR-V binary.
LogicalResult serializeToSPIRV(Operation *op, raw_ostream &output);

/// Serializes `module` into `binary`, with the notes the runners read (the
/// subgroup size it was lowered for, each kernel's recorded launch).
LogicalResult serializeSPIRVModule(spirv::ModuleOp module,
                                   SmallVectorImpl<uint32_t> &binary);

/// Writes the Intel per-invocation kernels of `op` (the output of
/// sm-lower-to-intel) as an OpenCL SPIR-V binary.
LogicalResult translateToIntelSPIRV(Operation *op, raw_ostream &output);

/// Writes the Intel per-invocation kernels of `op` as LLVM IR for the host,
/// the builtins left to sm-intel-host-runner's runtime.
LogicalResult translateToIntelHostLLVM(Operation *op, raw_ostream &output);

/// The arguments of `kernel` as the host runners read them from the files
/// they run ("buffer:f16,scalar:i32,...": a memref is a buffer of its element
/// type, index and integer scalars travel as 32 bits, types the runners do
/// not name are "?"), so that they check a command line before they run.
std::string getHostRunnerSignature(FunctionOpInterface kernel);

/// Registers every translation of `sm-translate`: this project's
/// `--serialize-spirv`, `--emit-msl`, `--emit-intel-spirv` and
/// `--emit-intel-host-llvm`, and MLIR's `--deserialize-spirv`.
void registerSubgroupMatrixTranslations();

/// `--serialize-spirv`: writes the single spirv.module of its input (or the
/// one named by `--spirv-module`) as a binary.
void registerSerializeSPIRVTranslation();

/// `--emit-intel-spirv` (an OpenCL SPIR-V binary through LLVM's SPIR-V
/// backend) and `--emit-intel-host-llvm` (the same kernels as LLVM IR for
/// the host), for the output of `sm-lower-to-intel`.
void registerToIntelSPIRVTranslation();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TARGET_TRANSLATIONS_H
