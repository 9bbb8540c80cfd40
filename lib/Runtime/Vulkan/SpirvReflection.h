//===- SpirvReflection.h - what a SPIR-V binary declares and needs -*- C++
//-*-===//
//
// The runner reads a kernel's binary before it touches a device: that it is
// well formed, its entry points, the arguments each takes, the launch that
// sm-translate recorded in it, and what it needs from the device
// (capabilities, extensions, cooperative-matrix configurations, subgroup
// size), so that a kernel the device cannot run is refused by name instead
// of being handed to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_SPIRVREFLECTION_H
#define SM_RUNTIME_VULKAN_SPIRVREFLECTION_H

#include "KernelSignature.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sm_runner {

/// The operand and result component types of one
/// OpCooperativeMatrixMulAddKHR, as the names VkComponentTypeKHR has
/// (`f16`, `bf16`, `f32`, `si8`, `ui8`, `si32`, `ui32`; `?` for others).
struct CooperativeMatrixMultiply {
  uint32_t m = 0, n = 0, k = 0;
  std::string a, b, c, result;
  bool saturating = false;

  bool operator==(const CooperativeMatrixMultiply &other) const;
  /// "16x16x16 f16 x f16 + f32 -> f32".
  std::string describe() const;
};

/// What the runner needs to know about a SPIR-V module.
struct SpirvModule {
  std::vector<uint32_t> words;
  std::vector<std::string> entryPoints;
  std::vector<uint32_t> capabilities;
  std::vector<std::string> extensions;
  /// Every distinct multiply-accumulate configuration the module uses.
  std::vector<CooperativeMatrixMultiply> multiplies;
  /// The subgroup size the kernels were lowered for, where sm-translate
  /// recorded it (`OpModuleProcessed "subgroup_matrix.subgroup_size N"`);
  /// 0 when unknown.
  uint32_t subgroupSize = 0;
};

/// Reads `path` and checks that it is a well-formed SPIR-V binary (header,
/// instruction lengths, the ids matrix types name); on failure returns false
/// and sets `error` to a message that says what is wrong.
bool readSpirvModule(const std::string &path, SpirvModule &module,
                     std::string &error);

/// readSpirvModule for a binary in memory; messages call it `name`.
bool parseSpirvModule(std::vector<uint32_t> words, const std::string &name,
                      SpirvModule &module, std::string &error);

/// The runner options recorded for `entry`
/// (`OpModuleProcessed "subgroup_matrix.launch ENTRY OPTIONS..."`), split
/// into words; empty when there are none.
std::vector<std::string> findLaunchOptions(const SpirvModule &module,
                                           const std::string &entry);

/// The arguments of `entry`, one per binding of descriptor set 0 up to the
/// largest it uses: a buffer (a runtime or sized array in a Block) or a
/// scalar (a Block of one member), with the element type the binary
/// declares. From SPIR-V 1.4 on an entry point's interface lists every
/// global it uses, so other entry points' bindings do not count; before, all
/// of the module's do.
std::vector<KernelParameter> getEntryParameters(const SpirvModule &module,
                                                const std::string &entry);

/// The name of a SPIR-V capability ("Float64"), or its number.
std::string getCapabilityName(uint32_t capability);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_SPIRVREFLECTION_H
