#pragma once
// Keeps freed heap memory in the process for reuse. By default glibc serves blocks above 128 KiB
// with mmap and returns them on free, so every training step that allocates its B x D and A x R
// temporaries pays page faults to zero fresh pages (6% of a step, measured with perf). Raising
// the mmap and trim thresholds makes the second step reuse the first step's pages.
// Call once at program start; a no-op where the C library lacks mallopt.
namespace gplvm {
void keep_freed_memory_for_reuse();
}
