// Replaces the global operator new / delete of the UI test binary with counting versions.
#include "alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
long long g_allocations = 0;
}

namespace rv::test {
long long allocations() {
  return g_allocations;
}
}  // namespace rv::test

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
