// Run it's passkey grids: one per rope, length across and depth down, the trained context marked (run_bench.hpp).
// Drawn from the study with fixed buffers: a steady frame allocates nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/run/run_bench.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr float kDepthLabels = 40.0f;  // the left margin for "100%"

// One rope's grid at the cursor, `cell` pixels a cell; its hover's tooltip.
void grid_view(const RunSession& s, const RunGrid& g, const char* title, float cell) {
  const std::vector<std::vector<double>>& shown = s.bench_by_logprob ? g.key_logprob : g.accuracy;
  const float lo = s.bench_by_logprob ? float(s.bench_lo) : 0.0f, hi = s.bench_by_logprob ? float(s.bench_hi) : 1.0f;
  const RunStudy& st = s.study;
  const int rows = int(st.depths.size()), cols = int(st.lengths.size());
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 a(origin.x + kDepthLabels, origin.y), b(a.x + cell * float(cols), a.y + cell * float(rows));
  ImGui::Dummy(ImVec2(kDepthLabels + cell * float(cols), cell * float(rows) + 2.0f * line));
  const auto cellxy =
      cell_heatmap(a, b, rows, cols, lo, hi, [&shown](int r, int c) { return shown[std::size_t(c)][std::size_t(r)]; });
  ImDrawList* draw = ImGui::GetWindowDrawList();
  char text[160], n[32];
  for (int r = 0; r < rows; ++r)  // depth labels: first, middle, last
    if (r == 0 || r == rows - 1 || r == rows / 2) {
      std::snprintf(text, sizeof text, "%.0f%%", 100.0 * st.depths[std::size_t(r)]);
      draw->AddText(ImVec2(origin.x, a.y + cell * float(r) + 0.5f * (cell - ImGui::GetTextLineHeight())), theme::kMuted,
                    text);
    }
  for (int c = 0; c < cols; c += std::max(1, cols / 4)) {  // length labels under some columns
    format_count(st.lengths[std::size_t(c)], n, sizeof n);
    draw->AddText(ImVec2(a.x + cell * float(c), b.y + 2.0f), theme::kMuted, n);
  }
  for (int c = 0; c < cols; ++c)  // the trained context: before the first column past it
    if (st.lengths[std::size_t(c)] > s.trained && (c == 0 || st.lengths[std::size_t(c - 1)] <= s.trained)) {
      const float x = a.x + cell * float(c);
      draw->AddLine(ImVec2(x, a.y - 2.0f), ImVec2(x, b.y + 2.0f), theme::kLearned, 2.0f);
      std::snprintf(text, sizeof text, "trained %s", format_count(s.trained, n, sizeof n));
      draw->AddText(ImVec2(x + 2.0f, b.y + line), theme::kLearned, text);
    }
  ImGui::EndGroup();
  if (cellxy.first < 0) return;
  const std::size_t i = std::size_t(cellxy.second), j = std::size_t(cellxy.first);
  const double acc = g.accuracy[i][j];
  format_count(st.lengths[i], n, sizeof n);
  if (!g.errors[i][j].empty())
    tooltip("%s, length %s, depth %.0f%%: %s", title, n, 100.0 * st.depths[j], g.errors[i][j].c_str());
  else if (std::isnan(acc))
    tooltip("%s, length %s, depth %.0f%%: not run yet", title, n, 100.0 * st.depths[j]);
  else
    tooltip(
        "%s, length %s tokens, key at depth %.0f%%:\n%.0f of %d keys found; mean log-probability of "
        "the key's tokens %.3f",
        title, n, 100.0 * st.depths[j], acc * s.plan.passkey.trials, s.plan.passkey.trials, g.key_logprob[i][j]);
}

}  // namespace

void bench_view(RunSession& s, float width) {
  const RunStudy& st = s.study;
  if (st.grids.empty()) return;
  ImGui::TextDisabled("passkey (length across, the key's depth down), coloured by");
  ImGui::SameLine();
  if (ImGui::RadioButton("keys found", !s.bench_by_logprob)) s.bench_by_logprob = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("key log-probability", s.bench_by_logprob)) s.bench_by_logprob = true;
  hover_tip(
      "The key's mean log-probability per token tells cells apart where no key is found: a small model may never "
      "copy the key, yet give it more probability near it than far from it.");
  const int cols = std::max<int>(1, int(st.lengths.size())), count = int(st.grids.size());
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  // cells as large as the grids side by side allow (wrapping to rows of at least two), between 10 and 36 pixels
  const int across = std::min(count, std::max(2, int(width / (kDepthLabels + 10.0f * float(cols) + gap))));
  const float cell = std::clamp((width / float(std::max(1, across)) - gap - kDepthLabels) / float(cols), 10.0f, 36.0f);
  for (int k = 0; k < count; ++k) {
    if (k % across) ImGui::SameLine();
    const std::size_t r = std::size_t(k);
    grid_view(s, st.grids[r], r < s.legends.size() ? s.legends[r].c_str() : run_rope_label(st.grids[r].rope), cell);
  }
  if (s.bench_by_logprob)
    colour_legend("mean log-probability of the key's tokens", float(s.bench_lo), float(s.bench_hi),
                  std::min(width, 240.0f));
  else
    colour_legend("share of keys found", 0.0f, 1.0f, std::min(width, 240.0f));
  ImGui::PushTextWrapPos(0);
  if (!s.bench_sentence.empty()) ImGui::TextWrapped("%s", s.bench_sentence.c_str());
  ImGui::TextDisabled("%s", kBenchCaveat);
  ImGui::PopTextWrapPos();
}

}  // namespace rv
