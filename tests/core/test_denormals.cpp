// Flushing subnormals (core/denormals): inside the scope subnormal results become zero and
// subnormal operands read as zero, outside it they do not; the previous control word comes back;
// worker threads of a parallel region compute under the caller's setting, whatever theirs was.
#include "gplvm/core/denormals.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <vector>

#include "gplvm/core/threads.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

// Volatile so the compiler cannot fold the products at compile time (where no MXCSR applies).
volatile float tiny = 1e-30f;          // normal
volatile float tinier = 1e-10f;        // tiny * tinier = 1e-40: subnormal in float
volatile float subnormal = 1e-40f;     // a subnormal operand
volatile double tiny_double = 1e-300;  // tiny_double * 1e-10: subnormal in double

float subnormal_product() {
  return tiny * tinier;
}

#if defined(__x86_64__) || defined(__SSE__)

TEST(Denormals, ScopeFlushesResultsAndOperandsThenRestores) {
  ASSERT_FALSE(flushes_denormals());
  ASSERT_GT(subnormal_product(), 0.0f);  // IEEE gradual underflow outside the scope
  ASSERT_LT(subnormal_product(), FLT_MIN);
  const unsigned before = floating_point_control();
  {
    const ScopedFlushDenormals flush;
    EXPECT_TRUE(flushes_denormals());
    EXPECT_EQ(subnormal_product(), 0.0f);      // FTZ: the result
    EXPECT_EQ(subnormal * 1.0f + 0.0f, 0.0f);  // DAZ: the operand
    EXPECT_EQ(tiny_double * 1e-10, 0.0);       // doubles too (the same control word)
    EXPECT_EQ(tiny * 1.0f, tiny);              // normal numbers are untouched
    {
      const ScopedFlushDenormals nested;  // already flushing: nothing to change or restore
      EXPECT_TRUE(flushes_denormals());
    }
    EXPECT_TRUE(flushes_denormals());
  }
  EXPECT_EQ(floating_point_control(), before);
  EXPECT_GT(subnormal_product(), 0.0f);
}

TEST(Denormals, DisabledScopeChangesNothing) {
  const unsigned before = floating_point_control();
  {
    const ScopedFlushDenormals flush(false);
    EXPECT_FALSE(flushes_denormals());
    EXPECT_GT(subnormal_product(), 0.0f);
  }
  EXPECT_EQ(floating_point_control(), before);
}

// Each of 3 shares computes the subnormal product on its own thread: under the caller's scope all
// flush, without it none does, and the pool's threads keep no trace of the scope afterwards.
TEST(Denormals, WorkerThreadsComputeUnderTheCallersSetting) {
  const testing::ScopedThreads threads(3);
  std::vector<float> products(3, -1.0f);
  std::vector<int> flushing(3, -1);
  auto compute = [&] {
    for_each_thread_share(3, 1, [&](Index i0, Index i1) {
      for (Index i = i0; i < i1; ++i) {
        products[i] = subnormal_product();
        flushing[i] = flushes_denormals() ? 1 : 0;
      }
    });
  };
  {
    const ScopedFlushDenormals flush;
    compute();
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(products[i], 0.0f) << "share " << i;
    EXPECT_EQ(flushing[i], 1) << "share " << i;
  }
  compute();
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(products[i], 0.0f) << "share " << i;
    EXPECT_EQ(flushing[i], 0) << "share " << i;
  }
}

#else

TEST(Denormals, NoControlWordOnThisProcessor) {
  const ScopedFlushDenormals flush;
  EXPECT_FALSE(flushes_denormals());
  EXPECT_GT(subnormal_product(), 0.0f);
}

#endif

}  // namespace
}  // namespace gplvm
