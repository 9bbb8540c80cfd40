//===- Translations.h - sm-translate registrations --------------*- C++ -*-===//
//
// Every translation `sm-translate` offers is registered from here, so tools
// and tests share one list.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TARGET_TRANSLATIONS_H
#define SUBGROUPMATRIX_TARGET_TRANSLATIONS_H

namespace mlir {
namespace subgroup_matrix {

/// Registers the translations of `sm-translate`: for now MLIR's SPIR-V
/// binary serializer and deserializer (`--serialize-spirv`,
/// `--deserialize-spirv`); the emitters of this project join them here.
void registerSubgroupMatrixTranslations();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TARGET_TRANSLATIONS_H
