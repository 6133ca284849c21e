// Replaces the global operator new / delete of the UI test binary with counting versions.
#include "alloc_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long long> g_allocations{0};  // the lab's threads allocate too
thread_local long long t_allocations = 0;
}  // namespace

namespace rv::test {
long long allocations() {
  return g_allocations.load();
}
long long allocations_on_this_thread() {
  return t_allocations;
}
}  // namespace rv::test

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  ++t_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow forms too (std::stable_sort's temporary buffer asks for one): with only the throwing new replaced, a
// sanitizer's own nothrow new would meet this delete's free (alloc-dealloc-mismatch under ASan).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  ++t_allocations;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
