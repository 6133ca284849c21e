// The renderer seam for shader heatmaps. Panels stay GL-free: they hand a float grid and a
// rectangle to a Gpu, which the platform implements with a texture and a colour-map shader
// (src/platform/gl/gl_heatmap.cpp). Headless, there is no Gpu and plots draw a coarse CPU preview.
#pragma once
#include <cstdint>

#include "imgui.h"

namespace rv {

enum class HeatSlot { Table = 0, Field = 1, Sinusoidal = 2, Count = 3 };

class Gpu {
 public:
  virtual ~Gpu() = default;
  // Makes values [rows, cols] (row-major, row 0 at the top) the texture of `slot`; uploads only
  // when `version` differs from the one it holds.
  virtual void upload(HeatSlot slot, const float* values, int rows, int cols, std::uint64_t version) = 0;
  // Queues a draw of slot's texture into the screen rectangle [a, b] of dl: value v is coloured
  // by the diverging map at t = (v - vmin) / (vmax - vmin) * 2 - 1. Rendered with the draw list.
  virtual void draw(ImDrawList* dl, HeatSlot slot, ImVec2 a, ImVec2 b, float vmin, float vmax) = 0;
};

}  // namespace rv
