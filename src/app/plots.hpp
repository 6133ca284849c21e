// Plot widgets drawn with ImDrawList, in ImPlot's shape: a frame, axes, and data through plain
// pointers + counts. The heatmap goes through the Gpu seam; curves are decimated to min/max per
// pixel column so a 131,073-point curve costs what a 600-point one does.
#pragma once
#include <cstddef>
#include <cstdint>

#include "app/gpu.hpp"
#include "app/state.hpp"
#include "imgui.h"

namespace rv {

// The diverging colour map shared with shaders/heatmap.glsl: t in [-1, 1], blue - dark - gold.
ImU32 diverging(float t);

// Reduces y[0..n) to min/max per column (column c covers indices [c n / columns, (c + 1) n / columns)).
// Rebuilds only when version or columns changed; never reallocates once sized.
void decimate(const double* y, std::size_t n, int columns, std::uint64_t version, Decimated& out);

// A value grid drawn into [a, b]: by the Gpu when there is one, else as at most 48 x 48 CPU cells.
void heatmap(Gpu* gpu, HeatSlot slot, const Grid& grid, ImVec2 a, ImVec2 b, float vmin, float vmax);
// A horizontal colour bar for [vmin, vmax] with its end labels, `width` wide, one line high.
void colour_legend(const char* label, float vmin, float vmax, float width);

}  // namespace rv
