// Plot widgets: diverging colour map, min/max decimation, heatmaps through the Gpu seam (or a
// coarse CPU preview), colour legends, decimated curves and axes.
#include "app/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/theme.hpp"

namespace rv {

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

void draw_decimated(ImDrawList* dl, const PlotFrame& f, const Decimated& d, ImU32 colour, float thickness) {
  if (d.columns == 0 || d.n == 0) return;
  const double dx = d.n > 1 ? (f.x1 - f.x0) / double(d.n - 1) : 0.0;
  float last_y = f.sy(d.lo[0]);
  for (int c = 0; c < d.columns; ++c) {
    const std::size_t i0 = std::size_t(c) * d.n / d.columns;
    const std::size_t i1 = std::max(i0 + 1, std::size_t(c + 1) * d.n / d.columns);
    const float x = f.sx(f.x0 + 0.5 * double(i0 + i1 - 1) * dx);
    const float ylo = f.sy(d.lo[c]), yhi = f.sy(d.hi[c]);
    // Visit the end nearer the previous point first, so the polyline does not zig-zag.
    const bool lo_first = std::fabs(ylo - last_y) <= std::fabs(yhi - last_y);
    dl->PathLineTo(ImVec2(x, lo_first ? ylo : yhi));
    if (ylo != yhi) dl->PathLineTo(ImVec2(x, lo_first ? yhi : ylo));
    last_y = lo_first ? yhi : ylo;
  }
  dl->PathStroke(colour, 0, thickness);
}

void draw_axes(ImDrawList* dl, const PlotFrame& f, const char* x_label, const char* y_label) {
  dl->AddRect(f.a, f.b, theme::grid);
  char buf[32];
  const ImU32 text = theme::muted;
  const float lh = ImGui::GetTextLineHeight();
  if (f.y0 < 0 && f.y1 > 0) dl->AddLine(ImVec2(f.a.x, f.sy(0)), ImVec2(f.b.x, f.sy(0)), theme::grid);
  if (f.x0 < 0 && f.x1 > 0) dl->AddLine(ImVec2(f.sx(0), f.a.y), ImVec2(f.sx(0), f.b.y), theme::grid);
  std::snprintf(buf, sizeof buf, "%.4g", f.y1);
  dl->AddText(ImVec2(f.a.x - ImGui::CalcTextSize(buf).x - 4, f.a.y - lh * 0.5f), text, buf);
  std::snprintf(buf, sizeof buf, "%.4g", f.y0);
  dl->AddText(ImVec2(f.a.x - ImGui::CalcTextSize(buf).x - 4, f.b.y - lh * 0.5f), text, buf);
  std::snprintf(buf, sizeof buf, "%.6g", f.x0);
  dl->AddText(ImVec2(f.a.x, f.b.y + 2), text, buf);
  std::snprintf(buf, sizeof buf, "%.6g", f.x1);
  dl->AddText(ImVec2(f.b.x - ImGui::CalcTextSize(buf).x, f.b.y + 2), text, buf);
  if (x_label)
    dl->AddText(ImVec2(0.5f * (f.a.x + f.b.x) - ImGui::CalcTextSize(x_label).x * 0.5f, f.b.y + 2), text, x_label);
  if (y_label) dl->AddText(ImVec2(f.a.x + 4, f.a.y + 2), text, y_label);
}

}  // namespace rv
