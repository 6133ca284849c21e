// Plot widgets: diverging colour map, min/max decimation, heatmaps through the Gpu seam (or a
// coarse CPU preview), colour legends, decimated curves and axes.
#include "app/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/theme.hpp"

namespace rv {

ImU32 diverging(float t) {
  // Keep in step with shaders/heatmap.glsl.
  const float a = std::pow(std::min(1.0f, std::fabs(t)), 0.8f);
  const float mid[3] = {0.13f, 0.14f, 0.17f};
  const float neg[3] = {0.26f, 0.55f, 0.98f};
  const float pos[3] = {1.00f, 0.74f, 0.28f};
  const float* end = t < 0 ? neg : pos;
  float c[3];
  for (int i = 0; i < 3; ++i) c[i] = mid[i] + (end[i] - mid[i]) * a;
  return IM_COL32(int(c[0] * 255 + 0.5f), int(c[1] * 255 + 0.5f), int(c[2] * 255 + 0.5f), 255);
}

void decimate(const double* y, std::size_t n, int columns, std::uint64_t version, Decimated& out) {
  columns = int(std::min<std::size_t>(std::size_t(std::max(columns, 1)), std::max<std::size_t>(n, 1)));
  if (out.version == version && out.columns == columns && out.n == n) return;
  out.lo.resize(size_t(columns));
  out.hi.resize(size_t(columns));
  for (int c = 0; c < columns; ++c) {
    const std::size_t i0 = std::size_t(c) * n / columns;
    const std::size_t i1 = std::max(i0 + 1, std::size_t(c + 1) * n / columns);
    double lo = n ? y[i0] : 0.0, hi = lo;
    for (std::size_t i = i0 + 1; i < i1 && i < n; ++i) {
      lo = std::min(lo, y[i]);
      hi = std::max(hi, y[i]);
    }
    out.lo[c] = float(lo);
    out.hi[c] = float(hi);
  }
  out.columns = columns;
  out.n = n;
  out.version = version;
  out.recomputes += 1;
}

void heatmap(Gpu* gpu, HeatSlot slot, const Grid& grid, ImVec2 a, ImVec2 b, float vmin, float vmax) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (grid.rows <= 0 || grid.cols <= 0) return;
  if (gpu) {
    gpu->upload(slot, grid.values.data(), grid.rows, grid.cols, grid.version);
    gpu->draw(dl, slot, a, b, vmin, vmax);
    return;
  }
  // No renderer (headless tests): a coarse preview, sampling the grid at cell centres.
  const int rows = std::min(grid.rows, 48), cols = std::min(grid.cols, 48);
  const float cw = (b.x - a.x) / cols, ch = (b.y - a.y) / rows;
  const float span = vmax > vmin ? vmax - vmin : 1.0f;
  for (int r = 0; r < rows; ++r) {
    const int gr = std::min(grid.rows - 1, int((r + 0.5f) * grid.rows / rows));
    for (int c = 0; c < cols; ++c) {
      const int gc = std::min(grid.cols - 1, int((c + 0.5f) * grid.cols / cols));
      const float v = grid.values[size_t(gr) * grid.cols + gc];
      const ImVec2 p0(a.x + c * cw, a.y + r * ch);
      dl->AddRectFilled(p0, ImVec2(p0.x + cw + 0.5f, p0.y + ch + 0.5f), diverging((v - vmin) / span * 2.0f - 1.0f));
    }
  }
}

void colour_legend(const char* label, float vmin, float vmax, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  char lo[32], hi[32];
  std::snprintf(lo, sizeof lo, "%.3g", vmin);
  std::snprintf(hi, sizeof hi, "%.3g", vmax);
  ImGui::TextUnformatted(lo);
  ImGui::SameLine();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float bar = std::max(40.0f, width - ImGui::CalcTextSize(lo).x - ImGui::CalcTextSize(hi).x -
                                        ImGui::CalcTextSize(label).x - 4 * ImGui::GetStyle().ItemSpacing.x);
  constexpr int segments = 24;
  for (int s = 0; s < segments; ++s) {
    const float t0 = -1.0f + 2.0f * s / segments, t1 = -1.0f + 2.0f * (s + 1) / segments;
    const ImU32 c0 = diverging(t0), c1 = diverging(t1);
    dl->AddRectFilledMultiColor(ImVec2(p.x + bar * s / segments, p.y), ImVec2(p.x + bar * (s + 1) / segments, p.y + h),
                                c0, c1, c1, c0);
  }
  ImGui::Dummy(ImVec2(bar, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(hi);
  ImGui::SameLine();
  ImGui::TextDisabled("%s", label);
}

}  // namespace rv
