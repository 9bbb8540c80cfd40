//===- SubgroupMatrixCAPI.cpp - the C API ---------------------------------===//

#include "SubgroupMatrix-c/SubgroupMatrix.h"

#include "DiagnosticCollector.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/InitAll.h"
#include "SubgroupMatrix/Target/MSL/TranslateToMSL.h"
#include "SubgroupMatrix/Target/Translations.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

MlirContext smContextCreate(void) {
  static bool passesRegistered = [] {
    registerAllPasses();
    registerSubgroupMatrixPassesAndPipelines();
    registerSubgroupMatrixTranslations();
    return true;
  }();
  (void)passesRegistered;
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerSubgroupMatrixDialect(registry);
  auto *context = new MLIRContext(registry);
  context->loadDialect<SubgroupMatrixDialect>();
  return wrap(context);
}

void smContextDestroy(MlirContext context) { delete unwrap(context); }

void smRegisterDialect(MlirContext context) {
  unwrap(context)->getOrLoadDialect<SubgroupMatrixDialect>();
}

MlirType smMatrixTypeGet(MlirContext context, enum SmMatrixKind kind,
                         unsigned rows, unsigned columns, MlirType element,
                         SmTextCallback diagnostics, void *userData) {
  return smMatrixTypeGetWithScope(context, kind, rows, columns, element,
                                  /*workgroupScope=*/false, diagnostics,
                                  userData);
}

MlirType smMatrixTypeGetWithScope(MlirContext context, enum SmMatrixKind kind,
                                  unsigned rows, unsigned columns,
                                  MlirType element, bool workgroupScope,
                                  SmTextCallback diagnostics, void *userData) {
  MLIRContext *ctx = unwrap(context);
  DiagnosticCollector collector(ctx, diagnostics, userData);
  auto emit = [&] { return emitError(UnknownLoc::get(ctx)); };
  Type elementType = unwrap(element);
  MatrixScope scope =
      workgroupScope ? MatrixScope::Workgroup : MatrixScope::Subgroup;
  switch (kind) {
  case SmMatrixKindLeft:
    return wrap(LeftMatrixType::getChecked(emit, ctx, rows, columns,
                                           elementType, scope));
  case SmMatrixKindRight:
    return wrap(RightMatrixType::getChecked(emit, ctx, rows, columns,
                                            elementType, scope));
  case SmMatrixKindResult:
    return wrap(ResultMatrixType::getChecked(emit, ctx, rows, columns,
                                             elementType, scope));
  }
  return wrap(Type());
}

bool smTypeIsMatrix(MlirType type) {
  return isa<SubgroupMatrixTypeInterface>(unwrap(type));
}
bool smMatrixTypeIsWorkgroupScope(MlirType type) {
  return cast<SubgroupMatrixTypeInterface>(unwrap(type)).getScope() ==
         MatrixScope::Workgroup;
}
enum SmMatrixKind smMatrixTypeGetKind(MlirType type) {
  return static_cast<SmMatrixKind>(
      cast<SubgroupMatrixTypeInterface>(unwrap(type)).getKind());
}
unsigned smMatrixTypeGetRows(MlirType type) {
  return cast<SubgroupMatrixTypeInterface>(unwrap(type)).getRows();
}
unsigned smMatrixTypeGetColumns(MlirType type) {
  return cast<SubgroupMatrixTypeInterface>(unwrap(type)).getColumns();
}
MlirType smMatrixTypeGetElementType(MlirType type) {
  return wrap(cast<SubgroupMatrixTypeInterface>(unwrap(type)).getElementType());
}

MlirType smTypeParse(MlirContext context, MlirStringRef text) {
  DiagnosticCollector silent(unwrap(context), nullptr, nullptr);
  return wrap(parseType(unwrap(text), unwrap(context)));
}

void smTypePrint(MlirType type, SmTextCallback callback, void *userData) {
  std::string text;
  llvm::raw_string_ostream os(text);
  unwrap(type).print(os);
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

MlirAttribute smTargetAttrGetPreset(MlirContext context, MlirStringRef name) {
  return wrap(lookupTargetPreset(unwrap(context), unwrap(name)));
}
bool smAttributeIsTarget(MlirAttribute attribute) {
  return isa<TargetAttr>(unwrap(attribute));
}
unsigned smTargetAttrGetSubgroupSize(MlirAttribute target) {
  return cast<TargetAttr>(unwrap(target)).getSubgroupSize();
}
intptr_t smTargetAttrGetNumConfigs(MlirAttribute target) {
  return cast<TargetAttr>(unwrap(target)).getConfigs().size();
}
void smTargetAttrGetConfig(MlirAttribute target, intptr_t index, unsigned *m,
                           unsigned *n, unsigned *k, MlirType *component,
                           MlirType *result) {
  MatrixConfigAttr config =
      cast<TargetAttr>(unwrap(target)).getConfigs()[index];
  *m = config.getM(), *n = config.getN(), *k = config.getK();
  *component = wrap(config.getComponentType());
  *result = wrap(config.getResultType());
}
bool smTargetAttrSupportsType(MlirAttribute target, MlirType matrix) {
  return cast<TargetAttr>(unwrap(target))
      .supportsType(cast<SubgroupMatrixTypeInterface>(unwrap(matrix)));
}

MlirModule smModuleParse(MlirContext context, MlirStringRef text,
                         SmTextCallback diagnostics, void *userData) {
  MLIRContext *ctx = unwrap(context);
  DiagnosticCollector collector(ctx, diagnostics, userData);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(text), ctx, "input.mlir");
  if (!module)
    return MlirModule{nullptr};
  return wrap(module.release());
}

void smModulePrint(MlirModule module, SmTextCallback callback, void *userData) {
  std::string text;
  llvm::raw_string_ostream os(text);
  unwrap(module)->print(os);
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

void smModuleDestroy(MlirModule module) { unwrap(module)->erase(); }

MlirLogicalResult smRunPipeline(MlirModule module, MlirStringRef pipeline,
                                SmTextCallback diagnostics, void *userData) {
  ModuleOp op = unwrap(module);
  DiagnosticCollector collector(op.getContext(), diagnostics, userData);
  PassManager pm(op.getContext());
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(unwrap(pipeline), pm, errorStream))) {
    emitError(op.getLoc()) << "invalid pass pipeline: " << error;
    return mlirLogicalResultFailure();
  }
  return wrap(pm.run(op));
}

MlirLogicalResult smTranslate(MlirModule module, MlirStringRef output,
                              SmTextCallback result, void *resultUserData,
                              SmTextCallback diagnostics,
                              void *diagnosticsUserData) {
  ModuleOp op = unwrap(module);
  DiagnosticCollector collector(op.getContext(), diagnostics,
                                diagnosticsUserData);
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef kind = unwrap(output);
  LogicalResult status = failure();
  if (kind == "spirv")
    status = serializeToSPIRV(op, os);
  else if (kind == "intel-spirv")
    status = translateToIntelSPIRV(op, os);
  else if (kind == "msl")
    status = lowerAndTranslateToMSL(op, os);
  else
    emitError(op.getLoc()) << "unknown output '" << kind
                           << "'; expected spirv, intel-spirv or msl";
  if (succeeded(status))
    result(mlirStringRefCreate(text.data(), text.size()), resultUserData);
  return wrap(status);
}
