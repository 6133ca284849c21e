// parallel_for (core/infer/parallel.hpp): contiguous shares of [0, n) on std::threads, serial in the page's build.
#include "core/infer/parallel.hpp"

#include <algorithm>
#include <vector>
#ifndef __EMSCRIPTEN__
#include <thread>
#endif

namespace rv {

void parallel_for(int n, int threads, const std::function<void(int)>& fn) {
  threads = std::max(1, std::min(threads, n));
#ifndef __EMSCRIPTEN__
  if (threads > 1) {
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
      pool.emplace_back([&, k] {
        for (int i = k * n / threads; i < (k + 1) * n / threads; ++i) fn(i);
      });
    for (std::thread& t : pool) t.join();
    return;
  }
#endif
  for (int i = 0; i < n; ++i) fn(i);
}

}  // namespace rv
