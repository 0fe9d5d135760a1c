#pragma once
// Counts heap allocations (malloc, calloc, realloc and the aligned variants, which operator new
// and Eigen both end in) made by any thread of the process. Only in the test binaries that link
// allocation_counter.cpp: it replaces glibc's allocation entry points with counting wrappers around
// glibc's own (__libc_malloc and friends), so nothing else about the heap changes.
#include <cstdint>

namespace gplvm::testing {

// Allocations so far in this process.
std::uint64_t heap_allocations();

}  // namespace gplvm::testing
