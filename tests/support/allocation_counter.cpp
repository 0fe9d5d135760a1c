// glibc-specific: a definition of malloc in the executable takes precedence over libc's for every
// shared library too (symbol interposition), and glibc exports its implementation as __libc_malloc
// etc. free() needs no wrapper: the blocks are glibc's.
#include "support/allocation_counter.hpp"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* block, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {
std::atomic<std::uint64_t> allocations{0};
void count() {
  allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {

void* malloc(std::size_t size) noexcept {
  count();
  return __libc_malloc(size);
}

void* calloc(std::size_t count_, std::size_t size) noexcept {
  count();
  return __libc_calloc(count_, size);
}

void* realloc(void* block, std::size_t size) noexcept {
  count();
  return __libc_realloc(block, size);
}

void* memalign(std::size_t alignment, std::size_t size) noexcept {
  count();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** block, std::size_t alignment, std::size_t size) noexcept {
  count();
  *block = __libc_memalign(alignment, size);
  return *block ? 0 : ENOMEM;
}

}  // extern "C"

namespace gplvm::testing {

std::uint64_t heap_allocations() {
  return allocations.load(std::memory_order_relaxed);
}

}  // namespace gplvm::testing
