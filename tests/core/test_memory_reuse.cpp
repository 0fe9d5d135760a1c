// keep_freed_memory_for_reuse() must really change glibc's policy: a block far above the default
// 128 KiB mmap threshold has to come from the heap afterwards (mallinfo2().hblks counts blocks
// served by mmap), so a training step reuses the previous step's pages instead of faulting in
// fresh ones. (It was once a silent no-op: __GLIBC__ was tested before any libc header.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "gplvm/core/memory_reuse.hpp"

#if defined(__GLIBC__)
#include <malloc.h>

TEST(MemoryReuse, LargeBlocksComeFromTheHeapAfterwards) {
  gplvm::keep_freed_memory_for_reuse();
  const std::size_t mmapped_before = mallinfo2().hblks;
  constexpr std::size_t kBytes = 24u << 20;  // above glibc's largest dynamic threshold (32 MiB / 2 + ...)
  void* block = std::malloc(kBytes);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBytes);
  EXPECT_EQ(mallinfo2().hblks, mmapped_before) << "a 24 MiB block was served by mmap";
  std::free(block);
}
#endif
