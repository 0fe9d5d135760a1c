// The OpenBLAS kernel note: which kernels run, and a warning when auto-detection fell back to
// kernels narrower than the CPU's vectors (OpenBLAS 0.3.21 on CPUs newer than it).
#include "gplvm/linalg/blas_kernels.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::contains;

TEST(BlasKernels, FallbackOnAnAvx512CpuIsAWarningNamingTheFix) {
  const std::string advice = blas_kernel_advice("Prescott", false, true, true);
  EXPECT_TRUE(contains(advice, "warning")) << advice;
  EXPECT_TRUE(contains(advice, "Prescott")) << advice;
  EXPECT_TRUE(contains(advice, "OPENBLAS_CORETYPE=SkylakeX")) << advice;
  // AVX2 kernels on an AVX-512 CPU are narrower too.
  EXPECT_TRUE(contains(blas_kernel_advice("Haswell", false, true, true), "SkylakeX"));
}

TEST(BlasKernels, FallbackOnAnAvx2CpuPointsToHaswell) {
  const std::string advice = blas_kernel_advice("Nehalem", false, false, true);
  EXPECT_TRUE(contains(advice, "OPENBLAS_CORETYPE=Haswell")) << advice;
}

TEST(BlasKernels, FittingOrChosenKernelsGetNoAdvice) {
  for (const char* core : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    EXPECT_EQ(blas_kernel_advice(core, false, true, true), "") << core;
  for (const char* core : {"Haswell", "Zen"})
    EXPECT_EQ(blas_kernel_advice(core, false, false, true), "") << core;
  EXPECT_EQ(blas_kernel_advice("Prescott", false, false, false), "");  // an SSE-only CPU: nothing wider
  EXPECT_EQ(blas_kernel_advice("Prescott", true, true, true), "");     // OPENBLAS_CORETYPE chose it
}

TEST(BlasKernels, NoteNamesTheKernelsInUse) {
  const std::string note = blas_kernel_note();
  EXPECT_TRUE(contains(note, "OpenBLAS kernels: " + blas_core_name())) << note;
}

}  // namespace
}  // namespace gplvm
