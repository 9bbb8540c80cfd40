//===- RecordedLaunch.h - the launch a SPIR-V binary records ----*- C++ -*-===//
//
// A kernel built by the front end records in its binary how to launch and
// check it on its own (an `OpModuleProcessed "subgroup_matrix.launch ENTRY
// OPTIONS..."` note, written from the kernel's #subgroup_matrix.launch
// attribute by the SPIR-V serializer). Sizes the kernel leaves to run time
// appear in it as "{EXPRESSION}" (integers and size names, '*', ceildiv(X,Y)
// and min(X,Y)), evaluated here once the sizes are given.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_RECORDEDLAUNCH_H
#define SM_RUNTIME_VULKAN_RECORDEDLAUNCH_H

#include "SpirvReflection.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sm_runner {

/// The runner options recorded for `entry`, split into words, with every
/// "{EXPRESSION}" replaced by its value for `sizes` ("M" -> 130); empty when
/// the binary records none. False with `error` when an expression is
/// malformed or names a size `sizes` lacks.
bool readRecordedLaunch(const SpirvModule &module, const std::string &entry,
                        const std::map<std::string, uint64_t> &sizes,
                        std::vector<std::string> &words, std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_RECORDEDLAUNCH_H
