// Frequencies in use: how strongly a loaded RoPE checkpoint's query and key projections feed each rotated pair, layer
// by layer (core's rope_usage, walked by app/rope_usage/usage.hpp): layer x pair heatmaps of q and k (mean over heads),
// one head's detail, the mean gain per pair against its wavelength with the training context marked, and beside it the
// activations' pair norms Run it measured on a text.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/run/run_session.hpp"
#include "app/rope_usage/usage.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr ImU32 kBeyondTint = IM_COL32(255, 183, 77, 40);  // pairs that never turn inside the context
constexpr ImU32 kMarker = IM_COL32(235, 238, 245, 230);    // the first of them, over the heatmap's gold

// A layer x pair heatmap of `grid` ([layers][pairs], gains >= 0: dark 0, gold the largest), with the first pair past
// the context marked; hover reads one cell.
void gain_heatmap(const UsageWalk& u, const char* title, const char* what, const std::vector<float>& grid, float vmax,
                  float width) {
  const RopeUsage& r = u.usage;
  const int layers = int(r.q.size()), half = r.rotary_dims / 2;
  ImGui::TextDisabled("%s", title);
  formula_tip(
      "g[l][h][i] = sqrt(sum over the pair's two rows r of W and every input column c of (W[r, c] gamma[c])^2): "
      "W the stored projection [out, in], gamma the layer's input-norm weight. Rows: layers 0 (top) to the "
      "last measured; columns: pairs i = 0 (fastest) to r/2 - 1 (slowest). Dark 0, gold the largest gain "
      "drawn. The dashed line is the first pair whose wavelength exceeds the context.");
  if (!layers || half < 1 || grid.size() < std::size_t(layers) * half) return;
  const float h =
      std::clamp(float(layers) * 6.0f, 4.0f * ImGui::GetTextLineHeight(), 11.0f * ImGui::GetTextLineHeight());
  const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + width, a.y + h);
  ImGui::Dummy(ImVec2(width, h));
  const float top = vmax > 0 ? vmax : 1.0f;
  const auto cell = cell_heatmap(a, b, layers, half, -top, top, [&grid, half](int row, int col) {
    return double(grid[std::size_t(row) * half + col]);
  });
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto first_beyond = std::find(u.beyond.begin(), u.beyond.end(), true);
  if (first_beyond != u.beyond.end()) {
    const float x = a.x + width * float(first_beyond - u.beyond.begin()) / float(half);
    for (float y = a.y; y < b.y; y += 6.0f)
      dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(b.y, y + 3.0f)), kMarker, 2.0f);
  }
  ImGui::TextDisabled("rows: layers %d..%d (top to bottom); columns: pairs 0..%d (fastest to slowest); max %.4g",
                      r.layers.front(), r.layers.back(), half - 1, vmax);
  if (cell.first >= 0)
    tooltip("layer %d, pair %d (wavelength %.5g): %s gain %.5g", r.layers[std::size_t(cell.first)], cell.second,
            r.wavelength[cell.second], what, grid[std::size_t(cell.first) * half + cell.second]);
}

// The mean gain per pair against its wavelength (log), the context and the pairs past it marked.
void wavelength_plot(const UsageWalk& u, float width) {
  const RopeUsage& r = u.usage;
  const int half = r.rotary_dims / 2;
  ImGui::TextDisabled("mean gain per pair against its wavelength");
  formula_tip(
      "x: wavelength 2 pi / theta_i in positions (log), theta_i the model's frequencies after its rope_scaling; "
      "y: the gain averaged over the measured layers and heads (q, and k over key heads). The dashed line is "
      "the context (max_position_embeddings, from the Context budget); tinted: pairs whose wavelength exceeds "
      "it, which never complete a turn inside it. Gemma 3: its full-attention layers' means at their "
      "wavelengths, its sliding layers' at theirs (rope_local_base_freq).");
  if (r.q.empty() || half < 1) return;
  const bool two = r.wavelength_local.size() == half;  // Gemma 3: full and sliding layers, each at its own wavelengths
  double lo = r.wavelength.minCoeff(), hi = r.wavelength.maxCoeff();
  if (two) {
    lo = std::min(lo, r.wavelength_local.minCoeff());
    hi = std::max(hi, r.wavelength_local.maxCoeff());
  }
  plot::Spec spec;
  spec.x = {"wavelength (positions, log)", plot::Scale::Log10, lo / 1.5, hi * 1.5};
  spec.y = {"mean gain"};
  const float h = std::clamp(width * 0.35f, 7.0f * ImGui::GetTextLineHeight(), 12.0f * ImGui::GetTextLineHeight());
  if (!plot::begin_plot("usage_wavelength", ImVec2(width, h), spec)) return;
  if (u.context > 0) {
    char label[48], n[28];
    std::snprintf(label, sizeof label, "context %s", format_count(u.context, n, sizeof n));
    if (hi > double(u.context)) plot::plot_vspan(double(u.context), hi * 1.5, kBeyondTint);
    plot::plot_vline(double(u.context), theme::kLearned, label);
  }
  const float dots = plot::dots_for(half);
  const auto series = [&](const char* label, const Eigen::VectorXd& at, const Eigen::VectorXd& gain, plot::Style s) {
    if (gain.size() != half) return;
    plot::series_begin(label, s);
    for (int i = 0; i < half; ++i) plot::series_point(at[i], gain[i]);
  };
  if (two) {
    series("q, full layers", r.wavelength, u.q_full, {theme::kRope, 1.5f, dots});
    series("k, full layers", r.wavelength, u.k_full, {theme::kKey, 1.5f, dots, true});
    series("q, sliding layers", r.wavelength_local, u.q_sliding, {theme::kLearned, 1.5f, dots});
    series("k, sliding layers", r.wavelength_local, u.k_sliding, {theme::kMuted, 1.5f, dots, true});
  } else {
    series("q", r.wavelength, r.q_mean, {theme::kRope, 1.5f, dots});
    series("k", r.wavelength, r.k_mean, {theme::kKey, 1.5f, dots, true});  // dashed: q visible where they coincide
  }
  if (u.strongest >= 0) plot::plot_marker("strongest", r.wavelength[u.strongest], r.q_mean[u.strongest], theme::kOk);
  plot::end_plot([&r, &u, half](double x) {
    int best = 0;  // the pair nearest the cursor on the log axis
    for (int i = 1; i < half; ++i)
      if (std::abs(std::log(r.wavelength[i] / x)) < std::abs(std::log(r.wavelength[best] / x))) best = i;
    ImGui::Text("pair %d: wavelength %.5g%s", best, r.wavelength[best],
                u.beyond[std::size_t(best)] ? " (past the context)" : "");
    ImGui::Text("mean gain q %.5g, k %.5g (all layers)", r.q_mean[best], r.k_mean[best]);
    if (r.wavelength_local.size() == half)
      ImGui::Text("in the sliding layers pair %d's wavelength is %.5g", best, r.wavelength_local[best]);
  });
}

// The activations beside the weights: Run it's attention pass on its text gives each rotated pair's RMS 2-norm in q and
// k before the rotation (mean over layers and heads), on the same wavelength axis; until it has run on these weights,
// a line says how to get them.
void activation_plot(const App& app, const UsageWalk& u, float width) {
  const RopeUsage& r = u.usage;
  const int half = r.rotary_dims / 2;
  const RunSession* s = find_run_session(app);
  const bool measured = s && app.params.weights && s->serial == app.params.weights->serial &&
                        s->q_act.size() == std::size_t(half) && s->k_act.size() == std::size_t(half) && half > 0;
  ImGui::TextDisabled("activations: pair norms on Run it's text against the wavelength");
  formula_tip(
      "y: the RMS over the text's tokens of each rotated pair's 2-norm in q and in k, before the rotation, "
      "averaged over layers and heads (forward's qk_pair_norms, Barbero et al. 2025), from Run it's attention "
      "pass (window 0 of its text, the config's rope). The weights above say what the projections could feed a "
      "pair; these say what a real text does feed it.");
  if (!measured) {
    ImGui::TextDisabled("Run it on these weights to measure them (its attention pass reads them).");
    return;
  }
  plot::Spec spec;
  spec.x = {"wavelength (positions, log)", plot::Scale::Log10, r.wavelength.minCoeff() / 1.5,
            r.wavelength.maxCoeff() * 1.5};
  spec.y = {"mean pair norm"};
  const float h = std::clamp(width * 0.3f, 6.0f * ImGui::GetTextLineHeight(), 10.0f * ImGui::GetTextLineHeight());
  if (!plot::begin_plot("usage_activations", ImVec2(width, h), spec)) return;
  if (u.context > 0) plot::plot_vline(double(u.context), theme::kLearned, "context");
  const float dots = plot::dots_for(half);
  plot::series_begin("q", {theme::kRope, 1.5f, dots});
  for (int i = 0; i < half; ++i) plot::series_point(r.wavelength[i], s->q_act[std::size_t(i)]);
  plot::series_begin("k", {theme::kKey, 1.5f, dots, true});
  for (int i = 0; i < half; ++i) plot::series_point(r.wavelength[i], s->k_act[std::size_t(i)]);
  plot::end_plot([&r, s, half](double x) {
    int best = 0;
    for (int i = 1; i < half; ++i)
      if (std::abs(std::log(r.wavelength[i] / x)) < std::abs(std::log(r.wavelength[best] / x))) best = i;
    ImGui::Text("pair %d: wavelength %.5g", best, r.wavelength[best]);
    ImGui::Text("mean pair norm q %.5g, k %.5g (on Run it's text)", s->q_act[std::size_t(best)],
                s->k_act[std::size_t(best)]);
  });
}

}  // namespace

void show_rope_usage(App& app) {
  UsageWalk& u = app.usage;
  const RopeUsage& r = u.usage;
  if (r.q.empty() && !u.active) {
    ImGui::PushTextWrapPos(0);
    if (!u.note.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", u.note.c_str());
    ImGui::TextWrapped(
        "%s Load a model's weights with its config.json (\"load weights\" with both files, a "
        "drop, --weights beside a config.json, or the Hub's fetch): this panel then reads, layer by layer, how "
        "strongly each layer's W_q and W_k feed every rotated pair. Llama, Mistral, Qwen, Gemma, Phi, StableLM, "
        "GPT-NeoX and GPT-J layouts are known.",
        u.note.empty() ? "No RoPE checkpoint loaded." : "Nothing this panel can measure.");
    ImGui::TextDisabled("%s", kUsageCaveat);
    ImGui::PopTextWrapPos();
    return;
  }
  if (u.active) {
    if (ImGui::Button("Stop")) u.stop = true;
    record_rect(app.ui, "usage_stop");
    hover_tip("Ends the walk: the layers measured so far are kept, and every figure says it is over those only.");
    ImGui::SameLine();
  }
  ImGui::ProgressBar(u.total ? float(r.q.size()) / float(u.total) : 0.0f, ImVec2(-1, 0), u.progress_text.c_str());
  ImGui::PushTextWrapPos(0);
  if (!u.note.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", u.note.c_str());
  ImGui::TextWrapped("%s", u.sentence.c_str());
  ImGui::TextDisabled("%s", kUsageCaveat);
  ImGui::PopTextWrapPos();
  if (r.q.empty()) return;
  const float avail = ImGui::GetContentRegionAvail().x, gap = ImGui::GetStyle().ItemSpacing.x * 2.0f;
  const bool side = !app.ui.narrow;
  const float w = side ? std::max(40.0f, (avail - gap) * 0.5f) : avail;
  const auto pair_of_maps = [&](const char* tq, const std::vector<float>& q, float qmax, const char* tk,
                                const std::vector<float>& k, float kmax) {
    ImGui::BeginGroup();
    gain_heatmap(u, tq, "q", q, qmax, w);
    ImGui::EndGroup();
    if (side) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    gain_heatmap(u, tk, "k", k, kmax, w);
    ImGui::EndGroup();
  };
  pair_of_maps("W_q: layer x pair, mean over query heads", u.q_grid, u.q_max, "W_k: layer x pair, mean over key heads",
               u.k_grid, u.k_max);
  wavelength_plot(u, avail);
  activation_plot(app, u, avail);
  ImGui::SetNextItemWidth(std::min(avail, 14.0f * ImGui::GetTextLineHeight()));
  ImGui::SliderInt("query head", &u.head, 0, std::max(0, r.heads - 1));
  record_rect(app.ui, "usage_head");
  hover_tip(
      "The head the two maps below show: its query rows, and the key head it reads (heads / key heads query "
      "heads share one).");
  usage_head_grids(u);
  float hq = 0, hk = 0;
  for (float v : u.head_q_grid) hq = std::max(hq, v);
  for (float v : u.head_k_grid) hk = std::max(hk, v);
  pair_of_maps("this query head: layer x pair", u.head_q_grid, hq, "its key head: layer x pair", u.head_k_grid, hk);
}

std::string describe_rope_usage(const App& app) {
  const UsageWalk& u = app.usage;
  if (u.usage.q.empty() && !u.active)
    return "Frequencies in use panel: " + (u.note.empty() ? std::string() : u.note + ". ") +
           "No RoPE checkpoint loaded; load a model's weights with its config.json to read how strongly each layer "
           "feeds every rotated pair.";
  std::string out = "Frequencies in use panel: " + u.progress_text + ". " +
                    (u.note.empty() ? std::string() : u.note + ". ") + u.sentence + " " + kUsageCaveat;
  const RunSession* s = find_run_session(app);
  const int half = u.usage.rotary_dims / 2;
  if (s && app.params.weights && s->serial == app.params.weights->serial && half > 0 &&
      s->q_act.size() == std::size_t(half) && s->k_act.size() == std::size_t(half)) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < s->q_act.size(); ++i)
      if (s->q_act[i] * s->k_act[i] > s->q_act[best] * s->k_act[best]) best = i;
    out += " Activations on Run it's text: the largest mean pair norm (q x k) is pair " + std::to_string(best) +
           " (wavelength " + format_sig(u.usage.wavelength[Eigen::Index(best)], 4) + " positions): q " +
           format_sig(s->q_act[best], 4) + ", k " + format_sig(s->k_act[best], 4) + ".";
  }
  return out;
}

}  // namespace rv
