// Relative biases, the lab's other position methods: ALiBi's slope per head and its bias matrix -slope·(i - j),
// and T5's distance buckets (core's alibi_slopes and t5_bucket, the functions the lab's decoder uses).
#include <algorithm>
#include <cmath>
#include <string>

#include "app/ui/tooltip.hpp"
#include "core/encodings/biases.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr int kT5Reach = 300;  // distances the bucket plot spans

// Tokens shown in the bias matrix: the link's T (seq_len), at least 2 and at most 32 so cells stay readable.
int matrix_tokens(const Params& p) {
  return std::clamp(p.seq_len, 2, 32);
}

void slopes_plot(const App& app, ImVec2 size) {
  const std::vector<double>& slopes = app.model.alibi_slopes;
  const int n = int(slopes.size());
  plot::Spec spec;
  spec.x = {"head h", plot::Scale::Linear, 0.5, n + 0.5, true};
  spec.y = {"slope (log)", plot::Scale::Log10};
  if (!plot::begin_plot("alibi_slopes", size, spec)) return;
  plot::plot_line_g(
      "ALiBi slope", n, [&slopes](int i) { return slopes[size_t(i)]; }, {theme::kOk, 1.5f, plot::dots_for(n)}, 1.0,
      1.0);
  plot::end_plot([&](double x) {
    const int h = std::clamp(int(std::lround(x)), 1, n);
    ImGui::Text("head %d of %d: slope %s", h, n, format_sig(slopes[size_t(h - 1)], 6).c_str());
    ImGui::TextDisabled("score(i, j) += -slope * (i - j)");
  });
}

void bias_matrix(App& app, ImVec2 size) {
  const std::vector<double>& slopes = app.model.alibi_slopes;
  int& head = app.ui.bias_head;
  head = std::clamp(head, 0, int(slopes.size()) - 1);
  ImGui::SetNextItemWidth(std::min(size.x, 160.0f * app.ui.scale));
  int shown = head + 1;
  if (ImGui::SliderInt("head", &shown, 1, int(slopes.size()))) head = shown - 1;
  record_rect(app.ui, "bias_head");
  const double slope = slopes[size_t(head)];
  const int T = matrix_tokens(app.params);
  const float side = std::max(40.0f, std::min(size.x, ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight()));
  const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + side, a.y + side);
  const float range = float(slope * (T - 1));
  const auto bias = [slope](int i, int j) { return j > i ? std::nan("") : -slope * (i - j); };
  const auto [i, j] = cell_heatmap(a, b, T, T, -range, range, bias);
  ImGui::Dummy(ImVec2(side, side));
  if (i >= 0) {
    if (j > i)
      tooltip("query %d, key %d: masked (a later key)", i, j);
    else
      tooltip("query %d, key %d: bias -%s x %d = %s", i, j, format_sig(slope, 4).c_str(), i - j,
              format_sig(bias(i, j), 4).c_str());
  }
  ImGui::TextDisabled("query i down, key j across, T = %d", T);
}

void buckets_plot(ImVec2 size) {
  plot::Spec spec;
  spec.x = {"distance i - j", plot::Scale::Linear, 0, kT5Reach, true};
  spec.y = {"T5 bucket", plot::Scale::Linear, 0, kT5Buckets};
  if (!plot::begin_plot("t5_buckets", size, spec)) return;
  plot::plot_vline(16, theme::kMuted, "16");
  plot::plot_vline(128, theme::kMuted, "128");
  plot::plot_line_g("bucket(r)", kT5Reach + 1, [](int r) { return double(t5_bucket(r)); }, {theme::kKey, 1.5f});
  plot::end_plot([](double x) {
    const long long r = std::max(0LL, (long long)std::llround(x));
    ImGui::Text("distance %lld: bucket %d", r, t5_bucket(r));
    ImGui::TextDisabled(
        "one learned scalar per head and bucket: distances below 16 each have their own, from 128 on "
        "all share the last");
  });
}

}  // namespace

void show_biases(App& app) {
  ImGui::TextDisabled("ALiBi: score - slope·(i - j). T5: + a scalar per bucket.");
  formula_tip(
      "Two relative methods the lab trains. Both see only distances, like RoPE's dot product, and neither has a "
      "table to run out of. ALiBi slopes (Press et al.): 2^(-8h/n) for n heads, h = 1..n, when n is a power of two; "
      "otherwise the closest power of two's slopes, then every other slope of twice that many; no parameters. T5: "
      "bucket(r) = r for r < 16, else min(31, 16 + floor(ln(r/16) / ln(8) · 16)), one learned scalar per head and "
      "bucket.");
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const bool wide = avail.x >= 700 * app.ui.scale;  // else ALiBi and T5 take turns
  bool& t5 = app.ui.bias_t5;
  if (!wide) {
    if (ImGui::RadioButton("ALiBi", !t5)) t5 = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("T5", t5)) t5 = true;
  }
  const ImVec2 room = ImGui::GetContentRegionAvail();
  if (!wide && t5) return buckets_plot(room);
  const float column = (room.x - (wide ? 2 : 1) * gap) / (wide ? 3 : 2);
  slopes_plot(app, ImVec2(column, room.y));
  ImGui::SameLine();
  ImGui::BeginGroup();
  bias_matrix(app, ImVec2(column, room.y));
  ImGui::EndGroup();
  if (!wide) return;
  ImGui::SameLine();
  buckets_plot(ImVec2(column, room.y));
}

std::string describe_biases(const App& app) {
  const std::vector<double>& s = app.model.alibi_slopes;
  if (s.empty()) return "ALiBi and T5 panel.";
  return "ALiBi and T5 panel: with " + std::to_string(s.size()) + " heads ALiBi's slopes run from " +
         format_sig(s.front(), 4) + " to " + format_sig(s.back(), 4) + " (score plus -slope times the distance); T5 " +
         "puts distances below 16 in their own bucket, and from 128 on all share bucket " +
         std::to_string(t5_bucket(128)) + ".";
}

}  // namespace rv
