// Heatmaps: the diverging colour map, Gpu or CPU-preview drawing,
// the panel frame with its markers and hatched bands, and the colour legend.
#include "app/ui/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "app/ui/theme.hpp"
#include "core/base/format.hpp"

namespace rv {
namespace {

constexpr int kCpuPreviewSide = 48;  // cells per side of the headless preview
constexpr ImU32 plate = IM_COL32(20, 22, 26, 210);

}  // namespace

ImU32 diverging(float t) {
  // Keep in step with shaders/ui.glsl.
  const float a = std::pow(std::min(1.0f, std::fabs(t)), 0.8f);
  const float mid[3] = {0.13f, 0.14f, 0.17f};
  const float neg[3] = {0.26f, 0.55f, 0.98f};
  const float pos[3] = {1.00f, 0.74f, 0.28f};
  const float* end = t < 0 ? neg : pos;
  float c[3];
  for (int i = 0; i < 3; ++i) c[i] = mid[i] + (end[i] - mid[i]) * a;
  return IM_COL32(int(c[0] * 255 + 0.5f), int(c[1] * 255 + 0.5f), int(c[2] * 255 + 0.5f), 255);
}

// [SECTION] drawing

void heatmap(Gpu* gpu, HeatSlot slot, const Grid& grid, ImVec2 a, ImVec2 b, float vmin, float vmax) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (grid.rows <= 0 || grid.cols <= 0) return;
  if (gpu) {
    gpu->upload(slot, grid.values.data(), grid.rows, grid.cols, grid.version);
    gpu->draw(dl, slot, a, b, vmin, vmax);
    return;
  }
  // No renderer (headless tests): a coarse preview.
  const BlockSteps s = block_steps(grid.rows, grid.cols, kCpuPreviewSide, kCpuPreviewSide);
  const int rows = (grid.rows + s.rows - 1) / s.rows, cols = (grid.cols + s.cols - 1) / s.cols;
  const float cw = (b.x - a.x) / cols, ch = (b.y - a.y) / rows;
  const float span = vmax > vmin ? vmax - vmin : 1.0f;
  for_each_block_maxabs([&](int r, int c) { return grid.values[size_t(r) * grid.cols + c]; }, grid.rows, grid.cols, s,
                        [&](int r, int c, double v) {
                          const ImVec2 p0(a.x + c * cw, a.y + r * ch);
                          dl->AddRectFilled(p0, ImVec2(p0.x + cw + 0.5f, p0.y + ch + 0.5f),
                                            diverging((float(v) - vmin) / span * 2.0f - 1.0f));
                        });
}

void colour_legend(const char* label, float vmin, float vmax, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const std::string lo = format_sig(vmin, 3), hi = format_sig(vmax, 3);
  ImGui::TextUnformatted(lo.c_str());
  ImGui::SameLine();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float bar = std::max(40.0f, width - ImGui::CalcTextSize(lo.c_str()).x - ImGui::CalcTextSize(hi.c_str()).x -
                                        ImGui::CalcTextSize(label).x - 4 * ImGui::GetStyle().ItemSpacing.x);
  constexpr int kSegments = 24;
  for (int s = 0; s < kSegments; ++s) {
    const float t0 = -1.0f + 2.0f * s / kSegments, t1 = -1.0f + 2.0f * (s + 1) / kSegments;
    const ImU32 c0 = diverging(t0), c1 = diverging(t1);
    dl->AddRectFilledMultiColor(ImVec2(p.x + bar * s / kSegments, p.y),
                                ImVec2(p.x + bar * (s + 1) / kSegments, p.y + h), c0, c1, c1, c0);
  }
  ImGui::Dummy(ImVec2(bar, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(hi.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", label);
}

ImVec2 HeatFrame::mouse_uv() const {
  const ImVec2 mp = ImGui::GetIO().MousePos;
  return ImVec2(std::clamp((mp.x - a.x) / std::max(1.0f, b.x - a.x), 0.0f, 1.0f),
                std::clamp((mp.y - a.y) / std::max(1.0f, b.y - a.y), 0.0f, 1.0f));
}

HeatFrame heat_frame(const char* id, float margin, float below) {
  HeatFrame f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  f.p0 = ImGui::GetCursorScreenPos();
  f.width = avail.x;
  const ImVec2 size(std::max(40.0f, avail.x - margin), std::max(40.0f, avail.y - below));
  ImGui::InvisibleButton(id, ImVec2(std::max(1.0f, avail.x), size.y));
  f.hovered = ImGui::IsItemHovered();
  f.a = ImVec2(f.p0.x + margin, f.p0.y);
  f.b = ImVec2(f.a.x + size.x, f.a.y + size.y);
  return f;
}

float wrapped_height(const char* text) {
  const float width = std::max(1.0f, ImGui::GetContentRegionAvail().x);
  return ImGui::CalcTextSize(text, nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
}

void plate_text(ImDrawList* dl, ImVec2 at, ImU32 colour, const char* text) {
  const ImVec2 size = ImGui::CalcTextSize(text);
  dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y), plate, 2.0f);
  dl->AddText(at, colour, text);
}

void frame_marker(ImDrawList* dl, const HeatFrame& f, Marker kind, double t, ImU32 colour, const char* label,
                  LabelAt where, bool dashed) {
  if (!(t >= 0.0 && t <= 1.0)) return;
  const bool vertical = kind == Marker::Vertical;
  const ImVec2 size = ImGui::CalcTextSize(label);
  const float at = vertical ? f.a.x + float(t) * (f.b.x - f.a.x) : f.a.y + float(t) * (f.b.y - f.a.y);
  const ImVec2 from = vertical ? ImVec2(at, f.a.y) : ImVec2(f.a.x, at);
  const ImVec2 to = vertical ? ImVec2(at, f.b.y) : ImVec2(f.b.x, at);
  const float length = vertical ? to.y - from.y : to.x - from.x;
  const float dash = dashed ? 5.0f : length;
  for (float s = 0; s < length; s += 2 * dash) {
    const float e = std::min(s + dash, length);
    dl->AddLine(vertical ? ImVec2(at, from.y + s) : ImVec2(from.x + s, at),
                vertical ? ImVec2(at, from.y + e) : ImVec2(from.x + e, at), colour, dashed ? 1.5f : 2.0f);
  }
  const bool start = where == LabelAt::Start;
  const ImVec2 text_at = vertical ? ImVec2(std::min(at + 3, f.b.x - size.x - 2), start ? f.a.y + 1 : f.b.y - size.y - 1)
                                  : ImVec2(start ? f.a.x + 4 : f.b.x - size.x - 4, std::min(at + 1, f.b.y - size.y));
  plate_text(dl, text_at, colour, label);
}

void row_end_labels(ImDrawList* dl, const HeatFrame& f, const char* first, const char* last) {
  const float right = f.a.x - 4.0f;
  dl->AddText(ImVec2(right - ImGui::CalcTextSize(first).x, f.a.y), theme::kMuted, first);
  dl->AddText(ImVec2(right - ImGui::CalcTextSize(last).x, f.b.y - ImGui::GetTextLineHeight()), theme::kMuted, last);
}

void hatch_band(ImDrawList* dl, ImVec2 a, ImVec2 b, const char* label) {
  if (b.x <= a.x || b.y <= a.y) return;
  dl->AddRectFilled(a, b, IM_COL32(58, 60, 66, 255));
  dl->PushClipRect(a, b, true);
  const float h = b.y - a.y;
  for (float x = a.x - h; x < b.x; x += 9.0f)  // 45° hatching
    dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), IM_COL32(96, 99, 108, 255), 1.0f);
  const ImVec2 size = ImGui::CalcTextSize(label);
  if (size.x + 8 <= b.x - a.x && size.y <= h)
    plate_text(dl, ImVec2(0.5f * (a.x + b.x - size.x), 0.5f * (a.y + b.y - size.y)), IM_COL32_WHITE, label);
  dl->PopClipRect();
}

void hatch_flagged(ImDrawList* dl, const HeatFrame& f, Marker kind, const std::vector<bool>& flags, int per_flag,
                   int cells, const char* label) {
  const int n = int(flags.size());
  for (int i0 = 0; i0 < n;) {
    if (!flags[size_t(i0)]) {
      ++i0;
      continue;
    }
    int i1 = i0;
    while (i1 < n && flags[size_t(i1)]) ++i1;
    const float t0 = float(i0 * per_flag) / float(cells), t1 = float(std::min(cells, i1 * per_flag)) / float(cells);
    if (kind == Marker::Horizontal)
      hatch_band(dl, ImVec2(f.a.x, f.a.y + t0 * (f.b.y - f.a.y)), ImVec2(f.b.x, f.a.y + t1 * (f.b.y - f.a.y)), label);
    else
      hatch_band(dl, ImVec2(f.a.x + t0 * (f.b.x - f.a.x), f.a.y), ImVec2(f.a.x + t1 * (f.b.x - f.a.x), f.b.y), label);
    i0 = i1;
  }
}

}  // namespace rv
