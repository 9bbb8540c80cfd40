//===- BufferGuards.cpp - catch kernels that access past their buffers ----===//

#include "BufferGuards.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

using namespace sm_runner;

namespace {

/// The alignment of every host buffer: the widest vector access a kernel
/// makes.
constexpr size_t bufferAlignment = 64;

size_t roundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// Floor division, so that byte -1 lies in element -1.
int64_t elementOf(int64_t byteOffset, size_t elementSize) {
  int64_t size = int64_t(elementSize);
  return byteOffset >= 0 ? byteOffset / size
                         : -((-byteOffset + size - 1) / size);
}

std::string describeBuffer(int argument, const HostBuffer &buffer) {
  return "argument " + std::to_string(argument) + " (" +
         getElementTypeName(buffer.getType()) + " x " +
         std::to_string(buffer.size()) + ")";
}

} // namespace

void sm_runner::fillGuardBytes(uint8_t *bytes, size_t size, int64_t offset) {
  for (size_t i = 0; i < size; ++i) {
    // A multiplicative hash of the position: no run of equal bytes, and not
    // the poison (0xFF) or zero fills of the buffers themselves.
    uint64_t position = uint64_t(offset + int64_t(i));
    uint8_t value = uint8_t((position * 0x9E3779B97F4A7C15ull) >> 56);
    bytes[i] = value == 0xFF || value == 0 ? 0xA5 : value;
  }
}

std::string sm_runner::checkGuardBytes(const uint8_t *front, size_t frontSize,
                                       const uint8_t *back, size_t backSize,
                                       size_t elementSize, uint64_t dataSize) {
  elementSize = std::max<size_t>(elementSize, 1);
  std::vector<uint8_t> expected(std::max(frontSize, backSize));
  std::string damage;
  auto describe = [&](const char *where, int64_t nearest, int64_t farthest,
                      size_t changed) {
    if (!damage.empty())
      damage += "; ";
    // Named by the first byte of the nearest damaged element.
    int64_t element = elementOf(nearest, elementSize);
    damage += std::string("written ") + where + " at byte offset " +
              std::to_string(element * int64_t(elementSize)) + " (element " +
              std::to_string(element) + "), " + std::to_string(changed) +
              " guard byte" + (changed == 1 ? "" : "s") +
              " changed, the farthest at " + std::to_string(farthest);
  };

  fillGuardBytes(expected.data(), frontSize, -int64_t(frontSize));
  int64_t nearest = 0, farthest = 0;
  size_t changed = 0;
  for (size_t i = 0; i < frontSize; ++i) {
    if (front[i] == expected[i])
      continue;
    int64_t offset = int64_t(i) - int64_t(frontSize);
    if (!changed)
      farthest = offset;
    nearest = offset;
    ++changed;
  }
  if (changed)
    describe("before its start", nearest, farthest, changed);

  fillGuardBytes(expected.data(), backSize, 0);
  changed = 0;
  for (size_t i = 0; i < backSize; ++i) {
    if (back[i] == expected[i])
      continue;
    int64_t offset = int64_t(dataSize) + int64_t(i);
    if (!changed)
      nearest = offset;
    farthest = offset;
    ++changed;
  }
  if (changed)
    describe("past its end", nearest, farthest, changed);
  return damage;
}

bool sm_runner::reportBoundsChecks(const std::vector<std::string> &damages,
                                   const std::vector<HostBuffer> &buffers) {
  bool passed = true;
  for (size_t i = 0; i < damages.size(); ++i) {
    if (damages[i].empty())
      continue;
    passed = false;
    std::printf("check bounds: %s: FAILED: %s\n",
                describeBuffer(int(i), buffers[i]).c_str(), damages[i].c_str());
  }
  if (passed)
    std::printf("check bounds: PASSED: no argument accessed outside its "
                "buffer (%zu arguments between guard regions)\n",
                damages.size());
  return passed;
}

//===----------------------------------------------------------------------===//
// Guard pages on the host
//===----------------------------------------------------------------------===//

namespace {

/// What the signal handler needs to name the argument a fault hit. Set while
/// a kernel runs; a fault elsewhere is left to the default handler.
struct FaultTable {
  const GuardedHostBuffers::Region *regions = nullptr;
  size_t count = 0;
  const char *const *names = nullptr;
};
FaultTable activeTable;
struct sigaction previousAction;

/// Whether the faulting access was a write, where the processor says so.
const char *accessKind(void *context) {
#if defined(__x86_64__)
  auto *state = static_cast<ucontext_t *>(context);
  return (state->uc_mcontext.gregs[REG_ERR] & 2) ? "written" : "read";
#else
  (void)context;
  return "read or written";
#endif
}

void handleGuardFault(int signal, siginfo_t *info, void *context) {
  auto *address = static_cast<uint8_t *>(info->si_addr);
  long page = sysconf(_SC_PAGESIZE);
  for (size_t i = 0; i < activeTable.count; ++i) {
    const GuardedHostBuffers::Region &region = activeTable.regions[i];
    uint8_t *frontPageEnd = region.mapping + page;
    uint8_t *backPage = region.data + region.dataSize + region.canaryAfter;
    bool before = address >= region.mapping && address < frontPageEnd;
    bool after =
        address >= backPage && address < region.mapping + region.mappingSize;
    if (!before && !after)
      continue;
    int64_t offset = address - region.data;
    // snprintf into a local buffer and write(2): nothing here allocates.
    char line[512];
    int length = std::snprintf(
        line, sizeof(line),
        "check bounds: %s: FAILED: %s %s at byte offset %lld (element %lld); "
        "the kernel was stopped there by a guard page\n",
        activeTable.names[i], accessKind(context),
        before ? "before its start" : "past its end",
        static_cast<long long>(offset),
        static_cast<long long>(elementOf(offset, region.elementSize)));
    if (length > 0 && write(STDOUT_FILENO, line, size_t(length)) < 0)
      _exit(1);
    _exit(1);
  }
  // Not ours: let the fault take its usual course.
  sigaction(signal, &previousAction, nullptr);
}

} // namespace

GuardedHostBuffers::GuardedHostBuffers(const std::vector<HostBuffer> &buffers) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  for (const HostBuffer &buffer : buffers) {
    Region region;
    region.dataSize = buffer.getBytes().size();
    region.elementSize = getElementSize(buffer.getType());
    size_t alignedSize =
        roundUp(std::max<size_t>(region.dataSize, 1), bufferAlignment);
    // At least one alignment's worth of canary bytes before the buffer, then
    // its aligned end right at the trailing guard page.
    size_t middle = roundUp(alignedSize + bufferAlignment, page);
    region.mappingSize = page + middle + page;
    void *mapping = mmap(nullptr, region.mappingSize, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
      std::fprintf(stderr, "error: cannot map %zu bytes for a buffer\n",
                   region.mappingSize);
      std::exit(2);
    }
    region.mapping = static_cast<uint8_t *>(mapping);
    region.data = region.mapping + page + (middle - alignedSize);
    region.canaryAfter = alignedSize - region.dataSize;
    uint8_t *front = region.mapping + page;
    fillGuardBytes(front, region.data - front, -(region.data - front));
    std::memcpy(region.data, buffer.getBytes().data(), region.dataSize);
    fillGuardBytes(region.data + region.dataSize, region.canaryAfter, 0);
    mprotect(region.mapping, page, PROT_NONE);
    mprotect(region.mapping + page + middle, page, PROT_NONE);
    regions.push_back(region);
    names.push_back(describeBuffer(int(names.size()), buffer));
  }
}

GuardedHostBuffers::~GuardedHostBuffers() {
  for (const Region &region : regions)
    munmap(region.mapping, region.mappingSize);
}

std::vector<void *> GuardedHostBuffers::getPointers() const {
  std::vector<void *> pointers;
  for (const Region &region : regions)
    pointers.push_back(region.data);
  return pointers;
}

void GuardedHostBuffers::run(const std::function<void()> &kernel) const {
  // The handler prints the descriptions made before the run.
  std::vector<const char *> namePointers;
  for (const std::string &name : names)
    namePointers.push_back(name.c_str());
  activeTable = {regions.data(), regions.size(), namePointers.data()};
  struct sigaction action = {};
  action.sa_sigaction = handleGuardFault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previousAction);
  // What the runner printed before must come before the handler's report.
  std::fflush(stdout);
  kernel();
  sigaction(SIGSEGV, &previousAction, nullptr);
  activeTable = {};
}

std::vector<std::string>
GuardedHostBuffers::copyBack(std::vector<HostBuffer> &buffers) const {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  std::vector<std::string> damages;
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region &region = regions[i];
    std::memcpy(buffers[i].getBytes().data(), region.data, region.dataSize);
    const uint8_t *front = region.mapping + page;
    damages.push_back(checkGuardBytes(
        front, size_t(region.data - front), region.data + region.dataSize,
        region.canaryAfter, getElementSize(buffers[i].getType()),
        buffers[i].getBytes().size()));
  }
  return damages;
}
