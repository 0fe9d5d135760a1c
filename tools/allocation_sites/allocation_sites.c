// LD_PRELOAD library: counts heap allocations per call stack (malloc, calloc, realloc and the
// aligned variants, all forwarded to glibc's own __libc_* functions) and, at exit, writes
// allocation_sites.<pid>.txt into $ALLOCATION_SITES_DIR (default: the working directory): the
// totals, every distinct stack (up to 10 return addresses) with its count and bytes, and the
// process's memory map, which report.py needs to name the functions.
//
//   gcc -O2 -shared -fPIC tools/allocation_sites/allocation_sites.c -o /tmp/allocation_sites.so
//   LD_PRELOAD=/tmp/allocation_sites.so setarch -R ./build/bench/bench_sas_step --rounds 2
//
// `setarch -R` turns address randomisation off, so that two runs (say of 10 and 30 steps) have
// the same addresses and report.py can subtract them: what is left is per step.
#define _GNU_SOURCE
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

enum { kSites = 1 << 17, kDepth = 10 };
struct site {
  void* frames[kDepth];
  int depth;
  long count, bytes;
};
static struct site sites[kSites];
static long total_count, total_bytes;
static __thread int inside;  // backtrace() may allocate: do not record that

static void record(size_t bytes) {
  __sync_fetch_and_add(&total_count, 1);
  __sync_fetch_and_add(&total_bytes, (long)bytes);
  if (inside) return;
  inside = 1;
  void* frames[kDepth + 2];
  const int n = backtrace(frames, kDepth + 2) - 2;  // less record() and the wrapper
  unsigned long hash = 0;
  for (int i = 0; i < n; ++i) hash = hash * 1000003u ^ (unsigned long)frames[i + 2];
  for (unsigned probe = 0; probe < kSites; ++probe) {
    struct site* s = &sites[(hash + probe) % kSites];
    if (s->depth == 0) {
      memcpy(s->frames, frames + 2, sizeof(void*) * n);
      s->depth = n;
    } else if (s->depth != n || memcmp(s->frames, frames + 2, sizeof(void*) * n)) {
      continue;
    }
    __sync_fetch_and_add(&s->count, 1);
    __sync_fetch_and_add(&s->bytes, (long)bytes);
    break;
  }
  inside = 0;
}

void* malloc(size_t n) {
  record(n);
  return __libc_malloc(n);
}
void* calloc(size_t k, size_t n) {
  record(k * n);
  return __libc_calloc(k, n);
}
void* realloc(void* p, size_t n) {
  record(n);
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  record(n);
  return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  record(n);
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
  record(n);
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;  // ENOMEM
}

__attribute__((destructor)) static void write_report(void) {
  inside = 1;
  const char* dir = getenv("ALLOCATION_SITES_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/allocation_sites.%d.txt", dir ? dir : ".", (int)getpid());
  FILE* out = fopen(path, "w");
  if (!out) return;
  fprintf(out, "total %ld bytes %ld\n", total_count, total_bytes);
  for (int i = 0; i < kSites; ++i) {
    if (!sites[i].depth) continue;
    fprintf(out, "site %ld %ld\n", sites[i].count, sites[i].bytes);
    for (int k = 0; k < sites[i].depth; ++k) fprintf(out, "  %p\n", sites[i].frames[k]);
  }
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps && fgets(line, sizeof line, maps)) fprintf(out, "map %s", line);
  if (maps) fclose(maps);
  fclose(out);
}
