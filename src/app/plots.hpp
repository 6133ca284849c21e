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

// Reduces y[0..n) to min/max per column (column c covers indices [c n / columns, (c + 1) n / columns)).
// Rebuilds only when version or columns changed; never reallocates once sized.
void decimate(const double* y, std::size_t n, int columns, std::uint64_t version, Decimated& out);

// Maps data coordinates to a screen rectangle.
struct PlotFrame {
  ImVec2 a, b;            // screen rectangle (inner, after margins)
  double x0, x1, y0, y1;  // data range
  float sx(double x) const { return a.x + float((x - x0) / (x1 - x0)) * (b.x - a.x); }
  float sy(double y) const { return b.y - float((y - y0) / (y1 - y0)) * (b.y - a.y); }
  double data_x(float px) const { return x0 + double(px - a.x) / double(b.x - a.x) * (x1 - x0); }
};

// Draws a decimated curve (one vertical segment per column, joined) into f.
void draw_decimated(ImDrawList* dl, const PlotFrame& f, const Decimated& d, ImU32 colour, float thickness);
// Axis box with tick labels at the ends and at zero when in range.
void draw_axes(ImDrawList* dl, const PlotFrame& f, const char* x_label, const char* y_label);

}  // namespace rv
