// A curve reduced to min/max per pixel column (app/ui/decimate.hpp makes it, the plot kit draws it, Ui caches it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rv {

// A curve reduced to min/max per pixel column, cached until its data or width changes.
struct Decimated {
  std::vector<float> lo, hi;  // [columns]
  int columns = 0;
  std::size_t n = 0;  // points in the source curve
  std::uint64_t version = 0;
  int recomputes = 0;  // for tests: how often the cache was rebuilt
};

}  // namespace rv
