// Curves reduced to min/max per pixel column, so a 131,073-point curve costs the plot kit
// (app/ui/plot_kit.hpp) what a 600-point one does.
#pragma once
#include <cstddef>
#include <cstdint>

#include "app/state/decimated.hpp"

namespace rv {

// Reduces y[0..n) to min/max per column (column c covers indices [c n / columns, (c + 1) n / columns)).
// Rebuilds only when version or columns changed; never reallocates once sized.
void decimate(const double* y, std::size_t n, int columns, std::uint64_t version, Decimated& out);

}  // namespace rv
