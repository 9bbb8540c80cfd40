//===- Files.h - whole files read without surprises -------------*- C++ -*-===//
//
// The runtime and its runners read every file they are given (.npy arrays,
// plans, SPIR-V binaries) through one function, which reports what is wrong
// with a path (missing, a directory, unreadable) instead of throwing.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_FILES_H
#define SM_RUNTIME_RUNNER_FILES_H

#include <string>
#include <vector>

namespace sm_runner {

/// Reads the regular file at `path` whole into `data`; on failure, `error`
/// says why, naming the path.
bool readWholeFile(const std::string &path, std::vector<char> &data,
                   std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_FILES_H
