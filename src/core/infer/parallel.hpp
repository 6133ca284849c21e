// The forward pass's threads: fn(i) for every i in [0, n), on up to `threads` threads in native builds (the page runs
// one per Web Worker). Each i is computed the same way on any thread, so the numbers do not depend on the count.
#pragma once

#include <functional>

namespace rv {

void parallel_for(int n, int threads, const std::function<void(int)>& fn);

}  // namespace rv
