//===- TemporaryDirectory.h - a scratch directory that goes -*- C++ -*-===//

#ifndef SM_RUNNER_TEMPORARYDIRECTORY_H
#define SM_RUNNER_TEMPORARYDIRECTORY_H

#include <string>

namespace sm_runner {

/// A fresh directory under the system's temporary directory for the files
/// a host runner compiles a kernel into. It is removed, with what it holds,
/// by remove() (the runners call it as soon as the kernel library is
/// loaded, before the kernel runs, so that a kernel that faults leaves
/// nothing behind) and otherwise when the process exits through exit(),
/// as every error report does.
class TemporaryDirectory {
public:
  /// Creates the directory, named PREFIX followed by random characters;
  /// returns false, with a message in `error`, when it cannot.
  bool create(const std::string &prefix, std::string &error);
  ~TemporaryDirectory() { remove(); }

  const std::string &getPath() const { return path; }
  /// Removes the directory and everything in it now.
  void remove();

private:
  std::string path;
};

} // namespace sm_runner

#endif // SM_RUNNER_TEMPORARYDIRECTORY_H
