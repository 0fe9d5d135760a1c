#pragma once
// Keeps freed heap memory in the process for reuse. By default glibc serves blocks above 128 KiB
// with mmap and returns them on free, so every training step that allocates its B x D and A x R
// temporaries pays page faults to zero fresh pages (6% of a step, measured with perf). Raising
// the mmap and trim thresholds makes the second step reuse the first step's pages.
// Call once at program start; a no-op where the C library lacks mallopt.
#include <cstddef>

namespace gplvm {
void keep_freed_memory_for_reuse();

// Asks for transparent huge pages (2 MiB) on a large buffer before its first touch. Where THP is
// "madvise" (Debian's default), a fresh n x n matrix otherwise faults in 4 KiB at a time: a 1.6 GB
// kernel matrix takes 400,000 page faults, half of kernel PCA's time at n = 20,000 on a VM
// (perf). NumPy does the same for its arrays. A no-op below 4 MiB or where madvise is missing.
void advise_huge_pages(void* data, std::size_t bytes);
}  // namespace gplvm
