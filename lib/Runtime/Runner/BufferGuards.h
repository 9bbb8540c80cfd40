//===- BufferGuards.h - catch kernels that access past their buffers -*- C++
//-*-===//
//
// Every kernel argument lies between guard regions: bytes filled with a known
// pattern that are checked after the run (in the same device allocation on a
// GPU), and on the host also inaccessible pages, so that a read or write past
// either end stops the kernel where it happens. A kernel that writes past its
// buffers must fail its run with a report that names the argument and the
// offset, rather than corrupt the runner.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_BUFFERGUARDS_H
#define SM_RUNTIME_RUNNER_BUFFERGUARDS_H

#include "HostBuffer.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sm_runner {

/// Fills `size` guard bytes. `offset` is the position of the first of them
/// relative to the start (before it: negative) or the end of the buffer they
/// guard; the pattern depends on the position, so that a kernel storing one
/// value over and over cannot reproduce it.
void fillGuardBytes(uint8_t *bytes, size_t size, int64_t offset);

/// Checks the guard regions of a buffer of `dataSize` bytes holding
/// elements of `elementSize` bytes: `front` holds the `frontSize` bytes right
/// before the buffer and `back` the `backSize` bytes right after it. Returns
/// an empty string when both hold their pattern, otherwise what was damaged,
/// e.g. "written past its end at byte offset 256 (element 64), 4 guard bytes
/// changed, the farthest at 259".
std::string checkGuardBytes(const uint8_t *front, size_t frontSize,
                            const uint8_t *back, size_t backSize,
                            size_t elementSize, uint64_t dataSize);

/// Prints the bounds check: one line for every argument whose guards were
/// damaged (`damages[i]`, from checkGuardBytes, non-empty), or one line
/// saying that all passed. Returns whether all passed.
bool reportBoundsChecks(const std::vector<std::string> &damages,
                        const std::vector<HostBuffer> &buffers);

/// Kernel arguments in host memory, each in a mapping of its own: an
/// inaccessible page, canary bytes, the buffer (64-byte aligned), canary
/// bytes up to the alignment, and an inaccessible page right after the
/// buffer's aligned end.
class GuardedHostBuffers {
public:
  /// Copies `buffers` into guarded mappings.
  explicit GuardedHostBuffers(const std::vector<HostBuffer> &buffers);
  ~GuardedHostBuffers();
  GuardedHostBuffers(const GuardedHostBuffers &) = delete;
  GuardedHostBuffers &operator=(const GuardedHostBuffers &) = delete;

  /// The buffers' addresses, in argument order, to pass to the kernel.
  std::vector<void *> getPointers() const;

  /// Runs `kernel`. An access to a guard page ends the process with a
  /// failed bounds check on standard output ("argument N ...: read or
  /// written before its start / past its end at byte B") and exit status 1.
  void run(const std::function<void()> &kernel) const;

  /// Copies the buffers back into `buffers` (which must be those given to
  /// the constructor, or copies of them) and returns, for each, what
  /// checkGuardBytes says of its canaries.
  std::vector<std::string> copyBack(std::vector<HostBuffer> &buffers) const;

  /// One guarded mapping; public for the signal handler's table.
  struct Region {
    uint8_t *mapping = nullptr;
    size_t mappingSize = 0;
    uint8_t *data = nullptr;
    size_t dataSize = 0;
    size_t canaryAfter = 0; // canary bytes between the data and the page
    size_t elementSize = 1;
  };

private:
  std::vector<Region> regions;
  std::vector<std::string> names;
};

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_BUFFERGUARDS_H
