//===- IntelHostRuntime.cpp - SPV_INTEL matrices on the host --------------===//
//
// Runs the per-invocation kernels of sm-lower-to-intel on the CPU: every
// invocation is a fiber of the host thread that runs its workgroup
// (InvocationFibers.h), a subgroup is subgroupSize consecutive invocations
// of a workgroup, and the OpenCL builtins the kernels call read the running
// invocation's position.
//
// __spirv_SubgroupMatrixMultiplyAccumulateINTEL is implemented here from the
// extension's "Mapping Matrix Data to Invocations" rules alone, not from the
// lowering's packing code: every invocation of the subgroup hands over its
// slices of A, B and C, the last to arrive rebuilds the matrices, multiplies
// them and hands every invocation its slice of the result.
//
//===----------------------------------------------------------------------===//

#include "InvocationFibers.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace {

struct Workgroup;

struct Invocation {
  unsigned local[3], group[3], groups[3], size[3];
  unsigned linear, lane, subgroup;
  Workgroup *workgroup;
};

/// What one subgroup's invocations share to rendezvous.
struct Subgroup {
  explicit Subgroup(unsigned lanes)
      : barrier(lanes), slices(lanes), words(lanes), sources(lanes),
        shuffled(lanes) {}
  sm_fibers::Barrier barrier;
  struct Slice {
    unsigned char a[64], b[64], c[64], result[64];
  };
  std::vector<Slice> slices;
  /// For shuffles: each invocation's 32-bit value, the lane it reads and
  /// what it read.
  std::vector<uint32_t> words, sources, shuffled;
};

struct Workgroup {
  explicit Workgroup(unsigned size) : barrier(size) {}
  sm_fibers::Barrier barrier;
  unsigned subgroupSize = 16;
  std::vector<std::unique_ptr<Subgroup>> subgroups;
  std::vector<Invocation> invocations;
};

/// The workgroup the calling host thread runs.
thread_local Workgroup *runningWorkgroup = nullptr;

/// The running invocation.
Invocation &self() {
  return runningWorkgroup->invocations[sm_fibers::Workgroup::get()->current()];
}

float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16, exponent = (half >> 10) & 31,
           mantissa = half & 0x3FF, bits;
  if (exponent == 0) {
    if (!mantissa) {
      bits = sign;
    } else {
      int shift = 0;
      while (!(mantissa & 0x400))
        mantissa <<= 1, ++shift;
      bits = sign | (uint32_t(127 - 15 - shift + 1) << 23) |
             ((mantissa & 0x3FF) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7F800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t floatToHalf(float value) {
  _Float16 half = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &half, 2);
  return bits;
}

/// Bits [offset, offset + width) of a little-endian slice.
uint32_t readBits(const unsigned char *bytes, unsigned offset, unsigned width) {
  uint64_t word = 0;
  std::memcpy(&word, bytes + offset / 8, (offset % 8 + width + 7) / 8);
  return uint32_t((word >> (offset % 8)) & ((uint64_t(1) << width) - 1));
}

} // namespace

extern "C" {

// The OpenCL builtins that MLIR's GPU-to-SPIR-V-flavoured-LLVM conversion
// calls, by their mangled names.
uint32_t _Z22get_sub_group_local_id() { return self().lane; }
uint32_t _Z16get_sub_group_id() { return self().subgroup; }
uint32_t _Z18get_sub_group_size() { return self().workgroup->subgroupSize; }
uint32_t _Z18get_num_sub_groups() {
  uint32_t invocations = self().size[0] * self().size[1] * self().size[2];
  uint32_t subgroupSize = self().workgroup->subgroupSize;
  return (invocations + subgroupSize - 1) / subgroupSize;
}
uint64_t _Z12get_local_idj(uint32_t d) { return self().local[d]; }
uint64_t _Z12get_group_idj(uint32_t d) { return self().group[d]; }
uint64_t _Z14get_local_sizej(uint32_t d) { return self().size[d]; }
uint64_t _Z14get_num_groupsj(uint32_t d) { return self().groups[d]; }
uint64_t _Z13get_global_idj(uint32_t d) {
  return uint64_t(self().group[d]) * self().size[d] + self().local[d];
}
void _Z22__spirv_ControlBarrierjjj(uint32_t executionScope, uint32_t,
                                   uint32_t) {
  // SPIR-V scopes: 2 is the workgroup, 3 the subgroup.
  constexpr uint32_t subgroupScope = 3;
  if (executionScope == subgroupScope)
    self().workgroup->subgroups[self().subgroup]->barrier.arriveAndWait();
  else
    self().workgroup->barrier.arriveAndWait();
}
void _Z7barrierj(uint32_t) { self().workgroup->barrier.arriveAndWait(); }

/// sub_group_shuffle and sub_group_shuffle_xor (cl_intel_subgroups) on
/// 32-bit values: every invocation posts its value and the lane it reads;
/// the last to arrive hands each the value of its lane (its own where there
/// is none). No invocation posts again before every one has arrived, so
/// what it read stays until it takes it.
static uint32_t exchange(uint32_t value, unsigned source) {
  Subgroup &subgroup = *self().workgroup->subgroups[self().subgroup];
  unsigned lane = self().lane;
  subgroup.words[lane] = value;
  subgroup.sources[lane] = source;
  subgroup.barrier.arriveAndWait([&subgroup] {
    unsigned lanes = subgroup.words.size();
    for (unsigned i = 0; i < lanes; ++i)
      subgroup.shuffled[i] = subgroup.sources[i] < lanes
                                 ? subgroup.words[subgroup.sources[i]]
                                 : subgroup.words[i];
  });
  return subgroup.shuffled[lane];
}
/// The compiler-rt builtin that LLVM calls to round f32 to bf16 on the host
/// (the system's libgcc lacks it): to nearest even, NaNs kept quiet. bf16
/// travels like _Float16, in the low 16 bits of an SSE register.
_Float16 __truncsfbf2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t result = (bits & 0x7FFFFFFF) > 0x7F800000
                        ? uint16_t((bits >> 16) | 0x40)
                        : uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
  _Float16 half;
  std::memcpy(&half, &result, 2);
  return half;
}

uint32_t _Z17sub_group_shuffleij(uint32_t value, uint32_t lane) {
  return exchange(value, lane);
}
uint32_t _Z21sub_group_shuffle_xorij(uint32_t value, uint32_t mask) {
  return exchange(value, self().lane ^ mask);
}

/// __spirv_SubgroupMatrixMultiplyAccumulateINTEL(K, A, B, C, operands) for
/// the calling invocation, whose A, B and C slices are aBytes, bBytes and
/// cBytes long; M = rows.
void sm_intel_multiply_accumulate(int k, const void *a, int aBytes,
                                  const void *b, int bBytes, const void *c,
                                  int cBytes, void *result, int operands,
                                  int rows) {
  Workgroup &workgroup = *self().workgroup;
  Subgroup &subgroup = *workgroup.subgroups[self().subgroup];
  Subgroup::Slice &mine = subgroup.slices[self().lane];
  std::memcpy(mine.a, a, aBytes);
  std::memcpy(mine.b, b, bBytes);
  std::memcpy(mine.c, c, cBytes);
  subgroup.barrier.arriveAndWait([&subgroup, &workgroup, k, cBytes, operands,
                                  rows] {
    const unsigned n = workgroup.subgroupSize, m = rows;
    // The component types the operands select.
    bool int8 = operands & (0x10 | 0x20), f16 = operands & (0x400 | 0x800),
         bf16 = operands & (0x1000 | 0x2000), tf32 = operands & (0x100 | 0x200);
    bool signedA = operands & 0x1, signedB = operands & 0x2;
    unsigned bits = int8 ? 8 : (f16 || bf16) ? 16 : 32;
    auto decode = [&](uint32_t raw, bool isSigned) -> double {
      if (int8)
        return isSigned ? double(int8_t(raw)) : double(uint8_t(raw));
      if (f16)
        return halfToFloat(uint16_t(raw));
      if (bf16) {
        uint32_t wide = raw << 16;
        float value;
        std::memcpy(&value, &wide, 4);
        return value;
      }
      float value;
      std::memcpy(&value, &raw, 4);
      (void)tf32;
      return value;
    };
    // At most 8 rows, K of 32 (8-bit) and 16 columns: no allocation per
    // call.
    double matA[8 * 32] = {}, matB[32 * 16] = {};
    if (m > 8 || unsigned(k) > 32 || n > 16) {
      std::fprintf(stderr,
                   "error: a %ux%dx%u multiply-accumulate is larger "
                   "than the extension's\n",
                   m, k, n);
      std::abort();
    }
    // Matrix A: M x K, from "Mapping Matrix Data to Invocations".
    for (unsigned lane = 0; lane < n; ++lane) {
      const unsigned char *slice = subgroup.slices[lane].a;
      if (unsigned(k) >= n) {
        // Each invocation holds K / N consecutive columns, packed low-first
        // into one value per row.
        unsigned perValue = k / n, valueBits = perValue * bits;
        for (unsigned r = 0; r < m; ++r)
          for (unsigned s = 0; s < perValue; ++s)
            matA[r * k + lane * perValue + s] = decode(
                readBits(slice, r * valueBits + s * bits, bits), signedA);
      } else {
        // N > K: invocation i holds rows i / K + j * (N / K) of column i % K.
        unsigned spread = n / k;
        unsigned components = m / spread ? m / spread : 1;
        for (unsigned j = 0; j < components; ++j) {
          unsigned row = lane / k + j * spread;
          if (row < m)
            matA[row * k + lane % k] =
                decode(readBits(slice, j * bits, bits), signedA);
        }
      }
    }
    // Matrix B: K x N, one column per invocation, rows packed into 32-bit
    // values for components of 16 bits or fewer.
    for (unsigned lane = 0; lane < n; ++lane) {
      const unsigned char *slice = subgroup.slices[lane].b;
      for (unsigned row = 0; row < unsigned(k); ++row)
        matB[row * n + lane] =
            decode(readBits(slice, row * bits, bits), signedB);
    }
    // C and the result: one column per invocation, a row per component.
    // Integer sums too are doubles: every 8-bit product, and an int32
    // accumulator plus at most 32 of them, is exact in one. A row's sums
    // go along K for all columns at once.
    unsigned resultBytes = cBytes / m;
    bool resultHalf = !int8 && resultBytes == 2;
    for (unsigned r = 0; r < m; ++r) {
      double sums[16];
      for (unsigned lane = 0; lane < n; ++lane) {
        const unsigned char *slice = subgroup.slices[lane].c;
        if (int8) {
          int32_t value;
          std::memcpy(&value, slice + 4 * r, 4);
          sums[lane] = value;
        } else if (resultHalf) {
          uint16_t value;
          std::memcpy(&value, slice + 2 * r, 2);
          sums[lane] = halfToFloat(value);
        } else {
          float value;
          std::memcpy(&value, slice + 4 * r, 4);
          sums[lane] = value;
        }
      }
      for (unsigned p = 0; p < unsigned(k); ++p) {
        double a = matA[r * k + p];
        const double *bRow = matB + p * n;
        for (unsigned lane = 0; lane < n; ++lane)
          sums[lane] += a * bRow[lane];
      }
      for (unsigned lane = 0; lane < n; ++lane) {
        unsigned char *out = subgroup.slices[lane].result;
        if (int8) {
          uint32_t wrapped = uint32_t(int64_t(sums[lane]));
          std::memcpy(out + 4 * r, &wrapped, 4);
        } else if (resultHalf) {
          uint16_t half = floatToHalf(float(sums[lane]));
          std::memcpy(out + 2 * r, &half, 2);
        } else {
          float value = float(sums[lane]);
          std::memcpy(out + 4 * r, &value, 4);
        }
      }
    }
  });
  // No invocation posts new slices before every one has arrived again.
  std::memcpy(result, mine.result, cBytes);
}

/// Runs `entry` over `grid` workgroups of info[1..3] invocations in
/// subgroups of info[0], the workgroups spread over the host's cores.
void sm_intel_launch(void (*entry)(void **), void **arguments,
                     const unsigned grid[3], const unsigned info[4]) {
  unsigned subgroupSize = info[0];
  unsigned size[3] = {info[1], info[2], info[3]};
  unsigned count = size[0] * size[1] * size[2];
  uint64_t groups = uint64_t(grid[0]) * grid[1] * grid[2];
  sm_fibers::runWorkgroups(groups, [&](sm_fibers::Workgroup &fibers,
                                       uint64_t index) {
    unsigned group[3] = {unsigned(index % grid[0]),
                         unsigned(index / grid[0] % grid[1]),
                         unsigned(index / (uint64_t(grid[0]) * grid[1]))};
    Workgroup workgroup(count);
    workgroup.subgroupSize = subgroupSize;
    for (unsigned s = 0; s * subgroupSize < count; ++s)
      workgroup.subgroups.push_back(std::make_unique<Subgroup>(
          std::min(subgroupSize, count - s * subgroupSize)));
    workgroup.invocations.resize(count);
    for (unsigned linear = 0; linear < count; ++linear) {
      Invocation &inv = workgroup.invocations[linear];
      inv.local[0] = linear % size[0];
      inv.local[1] = linear / size[0] % size[1];
      inv.local[2] = linear / (size[0] * size[1]);
      for (int d = 0; d < 3; ++d)
        inv.group[d] = group[d], inv.groups[d] = grid[d], inv.size[d] = size[d];
      inv.linear = linear;
      inv.lane = linear % subgroupSize;
      inv.subgroup = linear / subgroupSize;
      inv.workgroup = &workgroup;
    }
    runningWorkgroup = &workgroup;
    auto invoke = [entry, arguments](unsigned) { entry(arguments); };
    fibers.run(count, invoke);
    runningWorkgroup = nullptr;
  });
}

} // extern "C"
