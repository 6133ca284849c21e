// Replaces malloc, calloc and realloc of the core test binary with counting versions that call glibc's own.
#include "malloc_counter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#define RV_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RV_COUNT_MALLOC 0
#endif
#endif
#if !defined(RV_COUNT_MALLOC) && defined(__GLIBC__)
#define RV_COUNT_MALLOC 1
#elif !defined(RV_COUNT_MALLOC)
#define RV_COUNT_MALLOC 0
#endif

namespace {
std::atomic<long long> g_mallocs{0};  // the lab's threads (test_lab_parallel.cpp) allocate too
}

namespace rv::test {
bool mallocs_counted() {
  return RV_COUNT_MALLOC;
}
long long mallocs() {
  return g_mallocs.load();
}
}  // namespace rv::test

#if RV_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t n);
void* __libc_calloc(std::size_t count, std::size_t n);
void* __libc_realloc(void* p, std::size_t n);

void* malloc(std::size_t n) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t count, std::size_t n) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, n);
}
void* realloc(void* p, std::size_t n) noexcept {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
}
#endif
