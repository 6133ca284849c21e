// Heatmaps: colour map, Gpu-or-CPU drawing, markers, legend (the downsampling is app/state/downsample.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "app/state/downsample.hpp"
#include "app/state/state.hpp"
#include "app/ui/gpu.hpp"
#include "imgui.h"

namespace rv {

// The diverging colour map shared with shaders/ui.glsl: t in [-1, 1], blue - dark - gold.
ImU32 diverging(float t);
constexpr ImU32 masked_cell = IM_COL32(52, 55, 62, 255);  // a cell with no value (a causal mask)

// [SECTION] drawing

// A value grid drawn into [a, b]: by the Gpu when there is one, else as at most 48 x 48 CPU cells
// (signed block max-abs, like every other downsampling here).
void heatmap(Gpu* gpu, HeatSlot slot, const Grid& grid, ImVec2 a, ImVec2 b, float vmin, float vmax);
// A small matrix drawn cell by cell into [a, b] (no texture; meant for at most about 64 x 64 cells: attention
// maps, bias matrices). value(r, c) gives a double, or NaN for a masked cell (hatched grey). Returns the cell under
// the mouse as {row, col}, or {-1, -1}.
template <class Value>
std::pair<int, int> cell_heatmap(ImVec2 a, ImVec2 b, int rows, int cols, float vmin, float vmax, const Value& value) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cw = (b.x - a.x) / float(std::max(1, cols)), ch = (b.y - a.y) / float(std::max(1, rows));
  const float span = vmax > vmin ? vmax - vmin : 1.0f;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double v = value(r, c);
      const ImVec2 p0(a.x + c * cw, a.y + r * ch), p1(a.x + (c + 1) * cw, a.y + (r + 1) * ch);
      dl->AddRectFilled(p0, p1,
                        std::isnan(v) ? masked_cell : diverging((float(v) - vmin) / span * 2.0f - 1.0f));
    }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!ImGui::IsWindowHovered() || mouse.x < a.x || mouse.y < a.y || mouse.x >= b.x || mouse.y >= b.y) return {-1, -1};
  return {std::min(rows - 1, int((mouse.y - a.y) / ch)), std::min(cols - 1, int((mouse.x - a.x) / cw))};
}

// A horizontal colour bar for [vmin, vmax] with its end labels, `width` wide, one line high.
void colour_legend(const char* label, float vmin, float vmax, float width);

// The rectangle a heatmap panel draws into: `margin` wide labels on the left, `below` pixels kept
// under it; reserved as an invisible button `id` so hovering is known.
struct HeatFrame {
  ImVec2 p0;     // top-left of the reserved area (labels start here)
  ImVec2 a, b;   // the heatmap itself
  float width;   // of the reserved area
  bool hovered;  // the mouse is over the reserved area
  // The mouse position as fractions (u across, v down) of [a, b], clamped to [0, 1].
  ImVec2 mouse_uv() const;
};
HeatFrame heat_frame(const char* id, float margin, float below);

// Height that `text` takes wrapped at the content region's width, with the item spacing after it.
float wrapped_height(const char* text);
// Text on a dark plate, readable over stripes.
void plate_text(ImDrawList* dl, ImVec2 at, ImU32 colour, const char* text);
// A line across the frame at fraction t of its width (vertical) or height (horizontal), with a
// label on a plate at its start (top / left) or end (bottom / right); dashed lines are for
// boundaries, solid ones for positions. Skipped outside [0, 1].
enum class Marker { Vertical, Horizontal };
enum class LabelAt { Start, End };
void frame_marker(ImDrawList* dl, const HeatFrame& f, Marker kind, double t, ImU32 colour, const char* label,
                  LabelAt where, bool dashed);
// Labels for the first and last row, right-aligned in the left margin.
void row_end_labels(ImDrawList* dl, const HeatFrame& f, const char* first, const char* last);
// Greys and hatches [a, b] and centres `label` in it when it fits: cells that are not drawn
// because the sampling cannot resolve them.
void hatch_band(ImDrawList* dl, ImVec2 a, ImVec2 b, const char* label);
// Hatches the cells of flagged pairs: `per_flag` of the frame's `cells` rows (Horizontal) or
// columns (Vertical) per flag, each run of flags as one band labelled `label`.
void hatch_flagged(ImDrawList* dl, const HeatFrame& f, Marker kind, const std::vector<bool>& flags, int per_flag,
                   int cells, const char* label);
}  // namespace rv
