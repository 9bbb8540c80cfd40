//===- InvocationFibers.h - a workgroup's invocations as fibers -*- C++ -*-===//
//
// The host runners run the invocations of one workgroup as fibers of one
// host thread: an invocation runs until it waits for others (a barrier, a
// subgroup's rendezvous), then the next one runs. A thread per invocation
// paid a futex wake and a kernel context switch for every wait, which made
// corpus-sized programs take minutes; a fiber switch is a few instructions
// on x86-64 (elsewhere ucontext's, which makes a system call per switch).
// Workgroups run in parallel, one per host thread (runWorkgroups).
//
// Header-only and free of the rest of the project: the MSL host runner
// compiles it into each kernel library.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_INVOCATIONFIBERS_H
#define SM_RUNTIME_RUNNER_INVOCATIONFIBERS_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SM_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SM_FIBERS_ASAN 1
#endif
#endif
#ifdef SM_FIBERS_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace sm_fibers {

/// The stack of one fiber: mapped once per host thread and reused by every
/// workgroup that thread runs, with an unmapped guard page below it so that
/// an overflow faults instead of corrupting the next stack.
struct Stack {
  /// As large as a host thread's default stack: per-invocation arrays live
  /// there. Only the pages an invocation touches take memory.
  static constexpr size_t size = size_t(8) << 20;
  char *base = nullptr;

  Stack() = default;
  Stack(const Stack &) = delete;
  Stack &operator=(const Stack &) = delete;
  Stack(Stack &&other) noexcept : base(other.base) { other.base = nullptr; }
  ~Stack() {
    if (base)
      munmap(base - pageSize(), size + pageSize());
  }

  void map() {
    void *mapped = mmap(nullptr, size + pageSize(), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) {
      std::fprintf(stderr, "error: cannot map an invocation's stack\n");
      std::abort();
    }
    mprotect(mapped, pageSize(), PROT_NONE);
    base = static_cast<char *>(mapped) + pageSize();
  }
  char *top() const { return base + size; }

private:
  static size_t pageSize() { return size_t(sysconf(_SC_PAGESIZE)); }
};

#if defined(__x86_64__)
/// Saves the running context (its callee-saved registers on its stack, the
/// stack pointer in *save) and resumes the one whose stack pointer is
/// `load`. Not inlined: its callers then assume every caller-saved register
/// changed, and the clobbers make it save the callee-saved ones.
__attribute__((noinline)) inline void switchStacks(void **save, void *load) {
  asm volatile("subq $128, %%rsp\n\t" // the red zone stays intact
               "leaq 1f(%%rip), %%rax\n\t"
               "pushq %%rax\n\t"
               "pushq %%rbp\n\t"
               "movq %%rsp, (%0)\n\t"
               "movq %1, %%rsp\n\t"
               "popq %%rbp\n\t"
               "popq %%rax\n\t"
               "jmpq *%%rax\n"
               "1:\n\t"
               "addq $128, %%rsp\n\t"
               : "+D"(save), "+S"(load)
               :
               : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12",
                 "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
                 "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                 "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
#endif

/// The invocations of one workgroup, run as fibers of the calling thread.
class Workgroup {
public:
  /// Runs body(i) for every i in [0, count) until each returns. Invocations
  /// start in order and take turns at each wait (yield).
  template <typename Body> void run(unsigned count, Body &body) {
    runningBody = &body;
    invoke = [](void *body, unsigned index) {
      (*static_cast<Body *>(body))(index);
    };
    fibers.resize(std::max<size_t>(fibers.size(), count));
    for (unsigned i = 0; i < count; ++i) {
      Fiber &fiber = fibers[i];
      if (!fiber.stack.base)
        fiber.stack.map();
      fiber.done = false;
      start(fiber);
    }
    Workgroup *outer = running;
    running = this;
    for (unsigned left = count; left;) {
      for (unsigned i = 0; i < count; ++i) {
        if (fibers[i].done)
          continue;
        active = i;
        resume(fibers[i]);
        if (fibers[i].done)
          --left;
      }
    }
    running = outer;
  }

  /// The index of the running invocation.
  unsigned current() const { return active; }

  /// From an invocation: lets the others run, then goes on.
  void yield() { suspend(fibers[active]); }

  /// The workgroup whose invocation runs on this thread.
  static Workgroup *get() { return running; }

private:
  struct Fiber {
    Stack stack;
    bool done = false;
#if defined(__x86_64__)
    void *stackPointer = nullptr;
#else
    ucontext_t context;
#endif
  };

  static inline thread_local Workgroup *running = nullptr;

  std::vector<Fiber> fibers;
  unsigned active = 0;
  void *runningBody = nullptr;
  void (*invoke)(void *, unsigned) = nullptr;
#if defined(__x86_64__)
  void *schedulerStackPointer = nullptr;
#else
  ucontext_t scheduler;
#endif
#ifdef SM_FIBERS_ASAN
  void *schedulerFakeStack = nullptr;
  const void *schedulerBottom = nullptr;
  size_t schedulerSize = 0;
#endif

  /// Where every fiber begins: runs its invocation, then returns to the
  /// scheduler for good.
  static void entry() {
    Workgroup *workgroup = running;
#ifdef SM_FIBERS_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &workgroup->schedulerBottom,
                                    &workgroup->schedulerSize);
#endif
    workgroup->invoke(workgroup->runningBody, workgroup->active);
    Fiber &fiber = workgroup->fibers[workgroup->active];
    fiber.done = true;
#ifdef SM_FIBERS_ASAN
    // The fiber ends: nothing of its stack is kept.
    __sanitizer_start_switch_fiber(nullptr, workgroup->schedulerBottom,
                                   workgroup->schedulerSize);
#endif
#if defined(__x86_64__)
    void *unused;
    switchStacks(&unused, workgroup->schedulerStackPointer);
#else
    setcontext(&workgroup->scheduler);
#endif
    __builtin_unreachable();
  }

  /// Prepares `fiber` to begin at entry() when first resumed.
  void start(Fiber &fiber) {
#if defined(__x86_64__)
    // switchStacks pops rbp and the address to go on at; entry() then sees
    // the stack as after a call (a return address that is never used).
    auto *top = reinterpret_cast<uintptr_t *>(
        reinterpret_cast<uintptr_t>(fiber.stack.top()) & ~uintptr_t(15));
    top[-1] = 0;
    top[-2] = reinterpret_cast<uintptr_t>(&entry);
    top[-3] = 0;
    fiber.stackPointer = top - 3;
#else
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.stack.base;
    fiber.context.uc_stack.ss_size = Stack::size;
    fiber.context.uc_link = nullptr;
    makecontext(&fiber.context, &entry, 0);
#endif
  }

  /// From the scheduler: runs `fiber` until it waits or ends.
  void resume(Fiber &fiber) {
#ifdef SM_FIBERS_ASAN
    __sanitizer_start_switch_fiber(&schedulerFakeStack, fiber.stack.base,
                                   Stack::size);
#endif
#if defined(__x86_64__)
    switchStacks(&schedulerStackPointer, fiber.stackPointer);
#else
    swapcontext(&scheduler, &fiber.context);
#endif
#ifdef SM_FIBERS_ASAN
    __sanitizer_finish_switch_fiber(schedulerFakeStack, nullptr, nullptr);
#endif
  }

  /// From `fiber`: returns to the scheduler until it is resumed.
  void suspend(Fiber &fiber) {
#ifdef SM_FIBERS_ASAN
    void *fakeStack = nullptr;
    __sanitizer_start_switch_fiber(&fakeStack, schedulerBottom, schedulerSize);
#endif
#if defined(__x86_64__)
    switchStacks(&fiber.stackPointer, schedulerStackPointer);
#else
    swapcontext(&fiber.context, &scheduler);
#endif
#ifdef SM_FIBERS_ASAN
    __sanitizer_finish_switch_fiber(fakeStack, &schedulerBottom,
                                    &schedulerSize);
#endif
  }
};

/// A barrier of `count` invocations of the running workgroup: the last to
/// arrive runs `completion` (a subgroup's shared computation) before any
/// goes on.
class Barrier {
public:
  explicit Barrier(unsigned count) : count(count) {}

  template <typename Completion> void arriveAndWait(Completion completion) {
    uint64_t phase = this->phase;
    if (++arrived == count) {
      arrived = 0;
      completion();
      ++this->phase;
      return;
    }
    Workgroup *workgroup = Workgroup::get();
    while (this->phase == phase)
      workgroup->yield();
  }
  void arriveAndWait() {
    arriveAndWait([] {});
  }

private:
  unsigned count, arrived = 0;
  uint64_t phase = 0;
};

/// Runs runWorkgroup(workgroup, index) for every index in [0, count), the
/// workgroups spread over the host's cores: each host thread takes the next
/// index until none is left, with a Workgroup of its own (and its stacks).
template <typename RunWorkgroup>
void runWorkgroups(uint64_t count, RunWorkgroup runWorkgroup) {
  std::atomic<uint64_t> next{0};
  auto work = [&] {
    Workgroup workgroup;
    for (uint64_t index; (index = next.fetch_add(1)) < count;)
      runWorkgroup(workgroup, index);
  };
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<uint64_t>(threads, count));
  std::vector<std::thread> helpers;
  for (unsigned i = 1; i < threads; ++i)
    helpers.emplace_back(work);
  work();
  for (std::thread &helper : helpers)
    helper.join();
}

} // namespace sm_fibers

#endif // SM_RUNTIME_RUNNER_INVOCATIONFIBERS_H
