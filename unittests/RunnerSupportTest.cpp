//===- RunnerSupportTest.cpp - the runners' guard regions and checks ------===//
//
// The runners must catch kernels that access memory outside their buffers
// and say which elements of C were never written; these tests damage guard
// regions and results by hand and check what is reported.
//
//===----------------------------------------------------------------------===//

#include "BufferGuards.h"
#include "GemmCheck.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace sm_runner;

/// Defined when AddressSanitizer is linked in.
extern "C" void __asan_init() __attribute__((weak));

namespace {

HostBuffer makeBuffer(ElementType type, size_t count, Fill::Kind kind) {
  HostBuffer buffer(type, count);
  Fill fill;
  fill.kind = kind;
  fill.seed = 7;
  std::string error;
  EXPECT_TRUE(buffer.fill(fill, error)) << error;
  return buffer;
}

TEST(BufferGuardsTest, IntactGuardsReportNothing) {
  HostBuffer buffer = makeBuffer(ElementType::F32, 16, Fill::Kind::Random);
  std::vector<uint8_t> front(64), back(64);
  fillGuardBytes(front.data(), front.size(), -64);
  fillGuardBytes(back.data(), back.size(), 0);
  EXPECT_EQ(checkGuardBytes(front.data(), 64, back.data(), 64,
                            getElementSize(buffer.getType()),
                            buffer.getBytes().size()),
            "");
}

TEST(BufferGuardsTest, PatternHasNoRunsAndNoPoison) {
  std::vector<uint8_t> bytes(4096);
  fillGuardBytes(bytes.data(), bytes.size(), -2048);
  size_t equalNeighbours = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    EXPECT_NE(bytes[i], 0xFF);
    EXPECT_NE(bytes[i], 0);
    if (i && bytes[i] == bytes[i - 1])
      ++equalNeighbours;
  }
  // A kernel storing one value repeatedly must change most guard bytes.
  EXPECT_LT(equalNeighbours, bytes.size() / 16);
}

TEST(BufferGuardsTest, NamesTheNearestDamagedElementOnEachSide) {
  HostBuffer buffer = makeBuffer(ElementType::I32, 8, Fill::Kind::Poison);
  std::vector<uint8_t> front(64), back(64);
  fillGuardBytes(front.data(), front.size(), -64);
  fillGuardBytes(back.data(), back.size(), 0);
  // Element -2 (bytes -8..-5) and element 9 (bytes 36..39 of the buffer,
  // 4..7 after its end) overwritten.
  std::memset(&front[56], 0x11, 4);
  std::memset(&back[4], 0x22, 4);
  std::string damage = checkGuardBytes(front.data(), 64, back.data(), 64,
                                       getElementSize(buffer.getType()),
                                       buffer.getBytes().size());
  EXPECT_NE(damage.find("written before its start at byte offset -8 "
                        "(element -2), 4 guard bytes changed"),
            std::string::npos)
      << damage;
  EXPECT_NE(damage.find("written past its end at byte offset 36 (element 9), "
                        "4 guard bytes changed, the farthest at 39"),
            std::string::npos)
      << damage;
}

TEST(BufferGuardsTest, HostBuffersRoundTripAndAreAligned) {
  std::vector<HostBuffer> buffers = {
      makeBuffer(ElementType::F16, 3, Fill::Kind::Random),
      makeBuffer(ElementType::U8, 4097, Fill::Kind::Iota)};
  GuardedHostBuffers guarded(buffers);
  std::vector<void *> pointers = guarded.getPointers();
  ASSERT_EQ(pointers.size(), 2u);
  for (void *pointer : pointers)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointer) % 64, 0u);
  guarded.run([&] { static_cast<uint8_t *>(pointers[1])[4096] = 42; });
  std::vector<HostBuffer> after = buffers;
  std::vector<std::string> damages = guarded.copyBack(after);
  EXPECT_EQ(damages, std::vector<std::string>(2, ""));
  EXPECT_EQ(after[0].getBytes(), buffers[0].getBytes());
  EXPECT_EQ(after[1].get(4096), 42);
}

TEST(BufferGuardsTest, CanaryAfterAnUnalignedEndCatchesAWrite) {
  std::vector<HostBuffer> buffers = {
      makeBuffer(ElementType::F32, 10, Fill::Kind::Poison)};
  GuardedHostBuffers guarded(buffers);
  auto *data = static_cast<float *>(guarded.getPointers()[0]);
  guarded.run([&] { data[10] = 1.0f; });
  std::vector<std::string> damages = guarded.copyBack(buffers);
  EXPECT_NE(damages[0].find("written past its end at byte offset 40 "
                            "(element 10)"),
            std::string::npos)
      << damages[0];
}

TEST(BufferGuardsDeathTest, GuardPageStopsAWritePastTheEnd) {
  std::vector<HostBuffer> buffers = {
      makeBuffer(ElementType::F32, 16, Fill::Kind::Poison)};
  GuardedHostBuffers guarded(buffers);
  auto *data = static_cast<volatile float *>(guarded.getPointers()[0]);
  EXPECT_EXIT(guarded.run([&] { data[16] = 1.0f; }),
              ::testing::ExitedWithCode(1), "");
}

TEST(BufferGuardsDeathTest, GuardPageStopsAReadBeforeTheStart) {
  std::vector<HostBuffer> buffers = {
      makeBuffer(ElementType::F32, 16, Fill::Kind::Poison)};
  GuardedHostBuffers guarded(buffers);
  auto *data = static_cast<volatile float *>(guarded.getPointers()[0]);
  // 64 bytes of canary lie before the buffer; the page is beyond them.
  EXPECT_EXIT(guarded.run([&] { (void)data[-1024]; }),
              ::testing::ExitedWithCode(1), "");
}

TEST(BufferGuardsDeathTest, FaultsElsewhereStillCrash) {
  std::vector<HostBuffer> buffers = {
      makeBuffer(ElementType::F32, 16, Fill::Kind::Poison)};
  GuardedHostBuffers guarded(buffers);
  auto crash = [&] {
    guarded.run([] { *static_cast<volatile int *>(nullptr) = 1; });
  };
  // The fault goes back to the handler that was there before: the default
  // one, which kills the process with SIGSEGV, or in the sanitizer build
  // AddressSanitizer's, which ends it its own way.
  if (&__asan_init)
    EXPECT_DEATH(crash(), "");
  else
    EXPECT_EXIT(crash(), ::testing::KilledBySignal(SIGSEGV), "");
}

TEST(GemmCheckTest, NamesTheUnwrittenElementsOfC) {
  // A 2x4x1 GEMM whose kernel wrote only the first column of C.
  std::vector<HostBuffer> before = {
      makeBuffer(ElementType::F32, 2, Fill::Kind::Random),
      makeBuffer(ElementType::F32, 4, Fill::Kind::Random),
      makeBuffer(ElementType::F32, 8, Fill::Kind::Poison)};
  std::vector<HostBuffer> after = before;
  for (size_t row = 0; row < 2; ++row)
    after[2].set(row * 4, before[0].get(row) * before[1].get(0));
  std::string error;
  std::optional<GemmCheck> check =
      parseGemmCheck("gemm:M=2,N=4,K=1,A=0,B=1,C=2", error);
  ASSERT_TRUE(check) << error;
  CheckReport report = runGemmCheck(*check, before, after);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.mismatches, 6u);
  EXPECT_EQ(report.unwritten, 6u);
  EXPECT_EQ(report.unwrittenPositions,
            " C[0][1] C[0][2] C[0][3] C[1][1] C[1][2] C[1][3]");
}

TEST(GemmCheckTest, WrongValuesAreNotCalledUnwritten) {
  std::vector<HostBuffer> before = {
      makeBuffer(ElementType::F32, 1, Fill::Kind::Random),
      makeBuffer(ElementType::F32, 1, Fill::Kind::Random),
      makeBuffer(ElementType::F32, 1, Fill::Kind::Poison)};
  std::vector<HostBuffer> after = before;
  after[2].set(0, 1e6);
  std::string error;
  CheckReport report = runGemmCheck(
      *parseGemmCheck("gemm:M=1,N=1,K=1,A=0,B=1,C=2", error), before, after);
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_EQ(report.unwritten, 0u);
}

} // namespace
