// The OpenBLAS kernel note: which kernels run, and a warning when auto-detection fell back to
// kernels narrower than the CPU's vectors (OpenBLAS 0.3.21 on CPUs newer than it).
#include "gplvm/linalg/blas_kernels.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>

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

TEST(BlasKernels, RecommendedCoretypeIsTheValueTheAdviceNames) {
  EXPECT_EQ(blas_recommended_coretype("Prescott", false, true, true), "SkylakeX");
  EXPECT_EQ(blas_recommended_coretype("Haswell", false, true, true), "SkylakeX");
  EXPECT_EQ(blas_recommended_coretype("Nehalem", false, false, true), "Haswell");
  EXPECT_EQ(blas_recommended_coretype("Cooperlake", false, true, true), "");
  EXPECT_EQ(blas_recommended_coretype("Zen", false, false, true), "");
  EXPECT_EQ(blas_recommended_coretype("Prescott", true, true, true), "");  // the user's choice stands
  for (const auto& [core, avx512] : {std::pair{"Prescott", true}, {"Nehalem", false}}) {
    const std::string coretype = blas_recommended_coretype(core, false, avx512, true);
    EXPECT_TRUE(contains(blas_kernel_advice(core, false, avx512, true), "OPENBLAS_CORETYPE=" + coretype))
        << core;
  }
}

// What `gplvm --openblas-coretype` prints: the variable when set; else the value the run's note
// advises (none when it advises nothing). OpenBLAS chose its kernels at load time, so the note's
// advice changes with the variable only through whether it counts as forced.
TEST(BlasKernels, CoretypeToUseIsTheSetValueOrTheNotesAdvice) {
  const char* saved = std::getenv("OPENBLAS_CORETYPE");
  const std::string original = saved ? saved : "";
  ::setenv("OPENBLAS_CORETYPE", "Zen", 1);
  EXPECT_EQ(blas_coretype_to_use(), "Zen");
  ::unsetenv("OPENBLAS_CORETYPE");
  const std::string coretype = blas_coretype_to_use(), note = blas_kernel_note();
  if (coretype.empty())
    EXPECT_FALSE(contains(note, "set OPENBLAS_CORETYPE=")) << note;
  else
    EXPECT_TRUE(contains(note, "set OPENBLAS_CORETYPE=" + coretype + " ")) << note;
  if (saved) ::setenv("OPENBLAS_CORETYPE", original.c_str(), 1);
}

TEST(BlasKernels, NoteNamesTheKernelsInUse) {
  const std::string note = blas_kernel_note();
  EXPECT_TRUE(contains(note, "OpenBLAS kernels: " + blas_core_name())) << note;
}

}  // namespace
}  // namespace gplvm
