//===- KernelSignature.h - what a kernel takes, checked before a run -*- C++
//-*-===//
//
// Every runner learns from the kernel file what its arguments are (buffers or
// scalars, and of which element type where the file says it) and checks the
// command line against it before anything runs, so that a missing or
// mistyped argument is an error message instead of a fault inside the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_KERNELSIGNATURE_H
#define SM_RUNTIME_RUNNER_KERNELSIGNATURE_H

#include "DevicePlan.h"
#include "HostBuffer.h"

#include <string>
#include <vector>

namespace sm_runner {

/// One kernel argument as its binary declares it.
struct KernelParameter {
  /// A buffer of elements, or one scalar value.
  bool isScalar = false;
  /// The element's class as stored; Opaque when the binary does not say
  /// (words that hold packed data, structures), which accepts any type.
  enum class Kind { Opaque, Float, BFloat, Integer } kind = Kind::Opaque;
  unsigned bitWidth = 0;
};

/// Parses the signature text that the host kernel files carry: one entry per
/// argument, separated by commas, each `buffer:TYPE` or `scalar:TYPE` with
/// TYPE `f16`, `bf16`, `f32`, `f64`, `iN` or `?`. Returns false on
/// malformed text.
bool parseKernelSignature(const std::string &text,
                          std::vector<KernelParameter> &parameters);

/// "f16 buffer", "i32 scalar", ... for messages.
std::string describeParameter(const KernelParameter &parameter);

/// Checks the arguments of the command line against the kernel's
/// parameters: their number, and each one's element type where the kernel
/// declares it. Returns an error message naming the first mismatch (and, for
/// a wrong count, what the kernel takes), or an empty string.
std::string checkArguments(const std::string &entry,
                           const std::vector<KernelParameter> &parameters,
                           const std::vector<BufferSpec> &arguments);

/// checkArguments for a kernel whose signature is text (the host runners');
/// a malformed text is an error too.
std::string checkKernelArguments(const std::string &entry,
                                 const std::string &signature,
                                 const std::vector<BufferSpec> &arguments);

/// Checks the arguments of a plan's launch against the kernel's signature
/// text: their number, and for each whether it is a buffer or a scalar and
/// a scalar's width. Returns an error message, or an empty string.
std::string checkLaunchArguments(const std::string &entry,
                                 const std::string &signature,
                                 const DevicePlan::Step &step);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_KERNELSIGNATURE_H
