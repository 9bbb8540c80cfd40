/*===-- SubgroupMatrix-c/SubgroupMatrix.h - the C API -------------*- C -*-===*\
|*                                                                            *|
|* The subgroup_matrix dialect, its types and targets, its pipelines and its  *|
|* three outputs, for callers that cannot use C++ (the Python package uses it *|
|* through ctypes). Handles are MLIR's C API ones. Diagnostics never go to    *|
|* stderr: every call that can fail hands them to a callback.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SUBGROUPMATRIX_C_SUBGROUPMATRIX_H
#define SUBGROUPMATRIX_C_SUBGROUPMATRIX_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Receives text: a diagnostic ("LOCATION: error: MESSAGE"), printed IR or a
/// binary output (not NUL-terminated; use the length).
typedef void (*SmTextCallback)(MlirStringRef text, void *userData);

//===----------------------------------------------------------------------===//
// Context and dialect
//===----------------------------------------------------------------------===//

/// A context with the subgroup_matrix dialect and every upstream dialect
/// and pass the project's pipelines use.
MLIR_CAPI_EXPORTED MlirContext smContextCreate(void);
MLIR_CAPI_EXPORTED void smContextDestroy(MlirContext context);

/// Registers the dialect with a context made elsewhere.
MLIR_CAPI_EXPORTED void smRegisterDialect(MlirContext context);

//===----------------------------------------------------------------------===//
// Matrix types
//===----------------------------------------------------------------------===//

/// The roles of the three matrix types.
enum SmMatrixKind {
  SmMatrixKindLeft = 0,
  SmMatrixKindRight = 1,
  SmMatrixKindResult = 2
};

/// !subgroup_matrix.left/right/result<ROWSxCOLUMNSxELEMENT>; a null type
/// (and a diagnostic) when the shape or the component type is invalid.
MLIR_CAPI_EXPORTED MlirType smMatrixTypeGet(MlirContext context,
                                            enum SmMatrixKind kind,
                                            unsigned rows, unsigned columns,
                                            MlirType element,
                                            SmTextCallback diagnostics,
                                            void *userData);
/// The same type held by a whole workgroup where `workgroupScope` is set:
/// !subgroup_matrix.KIND<ROWSxCOLUMNSxELEMENT, workgroup>.
MLIR_CAPI_EXPORTED MlirType smMatrixTypeGetWithScope(
    MlirContext context, enum SmMatrixKind kind, unsigned rows,
    unsigned columns, MlirType element, bool workgroupScope,
    SmTextCallback diagnostics, void *userData);
MLIR_CAPI_EXPORTED bool smTypeIsMatrix(MlirType type);
/// Whether a whole workgroup holds the matrix type `type`.
MLIR_CAPI_EXPORTED bool smMatrixTypeIsWorkgroupScope(MlirType type);
MLIR_CAPI_EXPORTED enum SmMatrixKind smMatrixTypeGetKind(MlirType type);
MLIR_CAPI_EXPORTED unsigned smMatrixTypeGetRows(MlirType type);
MLIR_CAPI_EXPORTED unsigned smMatrixTypeGetColumns(MlirType type);
MLIR_CAPI_EXPORTED MlirType smMatrixTypeGetElementType(MlirType type);

/// Parses a type from its spelling (for component types: "f16", "si8").
MLIR_CAPI_EXPORTED MlirType smTypeParse(MlirContext context,
                                        MlirStringRef text);

/// Prints a type ("f16", "!subgroup_matrix.left<8x16xf16>") to `callback`.
MLIR_CAPI_EXPORTED void smTypePrint(MlirType type, SmTextCallback callback,
                                    void *userData);

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

/// The named preset (nvidia-h100, amd-rdna3, intel-xe-hpc, intel-xe-hpg,
/// apple-m1), or a null attribute.
MLIR_CAPI_EXPORTED MlirAttribute smTargetAttrGetPreset(MlirContext context,
                                                       MlirStringRef name);
MLIR_CAPI_EXPORTED bool smAttributeIsTarget(MlirAttribute attribute);
MLIR_CAPI_EXPORTED unsigned smTargetAttrGetSubgroupSize(MlirAttribute target);
MLIR_CAPI_EXPORTED intptr_t smTargetAttrGetNumConfigs(MlirAttribute target);
/// Configuration `index` as M, N, K and the component and result types.
MLIR_CAPI_EXPORTED void smTargetAttrGetConfig(MlirAttribute target,
                                              intptr_t index, unsigned *m,
                                              unsigned *n, unsigned *k,
                                              MlirType *component,
                                              MlirType *result);
/// Whether `target` supports a matrix type.
MLIR_CAPI_EXPORTED bool smTargetAttrSupportsType(MlirAttribute target,
                                                 MlirType matrix);

//===----------------------------------------------------------------------===//
// Modules, pipelines and outputs
//===----------------------------------------------------------------------===//

/// Parses and verifies a module; a null module (and diagnostics) on error.
MLIR_CAPI_EXPORTED MlirModule smModuleParse(MlirContext context,
                                            MlirStringRef text,
                                            SmTextCallback diagnostics,
                                            void *userData);
MLIR_CAPI_EXPORTED void smModulePrint(MlirModule module,
                                      SmTextCallback callback, void *userData);
MLIR_CAPI_EXPORTED void smModuleDestroy(MlirModule module);

/// Runs a textual pass pipeline on the module, for example
/// "sm-lower-to-vulkan{target=nvidia-h100}" (sm-opt's syntax, without
/// "builtin.module(...)").
MLIR_CAPI_EXPORTED MlirLogicalResult smRunPipeline(MlirModule module,
                                                   MlirStringRef pipeline,
                                                   SmTextCallback diagnostics,
                                                   void *userData);

/// The outputs of sm-translate: "spirv" (--serialize-spirv), "intel-spirv"
/// (--emit-intel-spirv) and "msl" (--emit-msl). The module must already be
/// lowered for the binary outputs; "msl", like --emit-msl, runs
/// sm-lower-to-metal on the module first.
MLIR_CAPI_EXPORTED MlirLogicalResult smTranslate(MlirModule module,
                                                 MlirStringRef output,
                                                 SmTextCallback result,
                                                 void *resultUserData,
                                                 SmTextCallback diagnostics,
                                                 void *diagnosticsUserData);

#ifdef __cplusplus
}
#endif

#endif /* SUBGROUPMATRIX_C_SUBGROUPMATRIX_H */
