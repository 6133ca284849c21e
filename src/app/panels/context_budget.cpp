// Context budget: what the chosen model's RoPE numbers mean for its context (core/models/context_budget.hpp): pairs that
// never turn in training, the cosine sum's first negative position, its rope_scaling, low precision, parameters.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

// One figure: its name (with the formula on hover), its value, and what it means against the context.
void figure(const char* name, const char* value, const char* meaning, const char* formula, ImU32 colour = 0) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  hover_tip(formula);
  ImGui::TableNextColumn();
  if (colour) ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(colour));
  ImGui::TextUnformatted(value);
  if (colour) ImGui::PopStyleColor();
  ImGui::TableNextColumn();
  ImGui::TextWrapped("%s", meaning);
}

// Numbers as text without allocating (each frame draws these).
struct Counts {
  char a[28], b[28], c[28];
};

const char* first_negative_words(const ContextBudget& b, char* out, std::size_t size) {
  char m[28];
  if (!b.first_negative_m)
    std::snprintf(out, size, "stays ≥ 0 up to m = %s", format_count(b.search_limit, m, sizeof m));
  else
    std::snprintf(out, size, "m = %s", format_count(*b.first_negative_m, m, sizeof m));
  return out;
}

void turns(const ContextBudget& b) {
  char value[96], meaning[160];
  Counts n;
  std::snprintf(value, sizeof value, "%s of %s", format_count(b.pairs_without_turn, n.a, sizeof n.a),
                format_count(b.rotary_dims / 2, n.b, sizeof n.b));
  std::snprintf(meaning, sizeof meaning, "wavelength 2π/θᵢ > the training length %s: never a full period in training",
                format_count(b.trained, n.c, sizeof n.c));
  figure("pairs without a turn", value, meaning,
         "Count of pairs i with 2π / θᵢ > L_train, θᵢ as the model uses them (after rope_scaling).", theme::kRope);
  std::snprintf(value, sizeof value, "%s of %s dims", format_count(b.critical_dim, n.a, sizeof n.a),
                format_count(b.rotary_dims, n.b, sizeof n.b));
  std::snprintf(meaning, sizeof meaning, "dims whose period fits in %s positions (Liu et al. 2023)", n.c);
  figure("critical dimension", value, meaning,
         "d_crit = 2 · ceil((d/2) · ln(L_train / 2π) / ln(base)), clamped to [0, d]; d = rotated dims.", theme::kRope);
  const bool inside = b.first_negative_m && *b.first_negative_m <= b.context;
  format_count(b.context, n.a, sizeof n.a);
  if (!b.first_negative_m)
    std::snprintf(meaning, sizeof meaning, "B(m) > 0 through twice the context: the base is large enough");
  else if (!inside)
    std::snprintf(meaning, sizeof meaning, "past the context of %s: the base bounds it", n.a);
  else
    std::snprintf(meaning, sizeof meaning,
                  "inside the context of %s: the base alone does not keep long-range scores positive", n.a);
  figure("B(m) first negative", first_negative_words(b, value, sizeof value), meaning,
         "B(m) = Σᵢ cos(m θᵢ), θᵢ = base^(−2i/d) (Men et al. 2024, \"Base of RoPE Bounds Context Length\"): the first "
         "m ≥ 1 where it turns negative, searched to twice the context.",
         inside ? theme::kLearned : theme::kOk);
}

void scaling_and_precision(const ContextBudget& b) {
  char value[96], meaning[160], af[32] = "";
  Counts n;
  std::snprintf(value, sizeof value, "%s kept, %s blended, %s divided", format_count(b.kept, n.a, sizeof n.a),
                format_count(b.blended, n.b, sizeof n.b), format_count(b.divided, n.c, sizeof n.c));
  if (b.attention_factor != 1.0)
    std::snprintf(af, sizeof af, " (scores × %.6g)", b.attention_factor * b.attention_factor);
  std::snprintf(meaning, sizeof meaning, "factor %.6g, attention factor %.6g%s", b.factor, b.attention_factor, af);
  figure("rope_scaling pairs", value, meaning,
         "Per pair, the model's θᵢ against base^(−2i/d): equal (kept), divided by factor, or anything between "
         "(blended). Hugging Face multiplies cos and sin by the attention factor, so q·k scales by its square.");
  const bool bf16_rounds = double(b.context) > b.bf16_exact;
  std::snprintf(value, sizeof value, "exact to %s", format_count((long long)b.bf16_exact, n.a, sizeof n.a));
  if (bf16_rounds)
    std::snprintf(meaning, sizeof meaning,
                  "at the context %s neighbouring positions are %s apart: m, m+1, ... share "
                  "a value",
                  format_count(b.context, n.b, sizeof n.b), format_count((long long)b.bf16_spacing, n.c, sizeof n.c));
  else
    std::snprintf(meaning, sizeof meaning, "every position of the context is exact");
  figure(
      "bf16 positions", value, meaning,
      "bfloat16 keeps 8 significant bits: integers are exact to 2⁸ = 256; at x the spacing is 2^(floor(log2 x) − 7).",
      bf16_rounds ? theme::kLearned : theme::kOk);
  const bool overflows = double(b.context) >= b.fp16_overflow;
  std::snprintf(value, sizeof value, "exact to %s; ∞ from %s", format_count((long long)b.fp16_exact, n.a, sizeof n.a),
                format_count((long long)b.fp16_overflow, n.b, sizeof n.b));
  if (overflows)
    std::snprintf(meaning, sizeof meaning, "the context overflows float16: positions from %s become infinity", n.b);
  else
    std::snprintf(meaning, sizeof meaning, "neighbouring positions %s apart at the context",
                  format_count((long long)b.fp16_spacing, n.c, sizeof n.c));
  figure("fp16 positions", value, meaning,
         "float16 keeps 11 significant bits (exact to 2048) and its largest value is 65504; 65520 rounds to infinity.",
         overflows ? theme::kError : theme::kMuted);
  std::snprintf(meaning, sizeof meaning, "a learned table of the context: %s",
                format_count(b.learned_parameters, n.a, sizeof n.a));
  figure("parameters", "RoPE: 0", meaning,
         "RoPE is a fixed formula. A learned table (GPT-2's wpe) holds max_position_embeddings × hidden_size.",
         theme::kOk);
}

void figures(const App& app) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("budget", 3, flags)) return;
  ImGui::TableSetupColumn("figure (hover: formula)", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("against the context", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableHeadersRow();
  turns(app.model.budget);
  scaling_and_precision(app.model.budget);
  ImGui::EndTable();
}

double wavelength_of(double theta) {
  return kTwoPi / theta;
}

// The wavelength of each rotated pair against the training length and the context.
void wavelength_plot(const App& app, float height) {
  const Model& m = app.model;
  const ContextBudget& b = m.budget;
  const int pairs = m.rotary_pairs;
  if (pairs < 1) return;
  const double lo = std::min(wavelength_of(m.inv_freq[0]), 1.0);
  const double hi = std::max({wavelength_of(m.inv_freq[pairs - 1]), double(b.context), 10.0});
  plot::Spec spec;
  spec.x = {"pair i", plot::Scale::Linear, -0.5, pairs - 0.5, true};
  spec.y = {"wavelength 2π/θᵢ (log)", plot::Scale::Log10, std::pow(10.0, std::floor(std::log10(lo))), hi * 2.0};
  if (!plot::begin_plot("budget_plot", ImVec2(ImGui::GetContentRegionAvail().x, height), spec)) return;
  plot::plot_hline(double(b.context), theme::kLearned, "context");
  if (b.trained != b.context) plot::plot_hline(double(b.trained), theme::kKey, "trained", true);
  plot::plot_line_g("wavelength", pairs, [&](int i) { return wavelength_of(m.inv_freq[i]); },
                    {theme::kRope, 2.0f, plot::dots_for(pairs)});
  plot::end_plot([&](double x) {
    const int i = std::clamp(int(std::lround(x)), 0, pairs - 1);
    ImGui::Text("pair %d: θ = %s, wavelength %s positions", i, format_sig(m.inv_freq[i]).c_str(),
                format_sig(wavelength_of(m.inv_freq[i])).c_str());
  });
}

}  // namespace

void show_context_budget(App& app) {
  const Model& m = app.model;
  char context[28], trained[28];
  if (m.real && m.real->info.absolute) {
    ImGui::TextWrapped("%s has a learned table and no RoPE; the figures are for RoPE at its head size, base %.6g.",
                       m.real->name.c_str(), app.params.base);
  } else if (m.real) {
    ImGui::TextColored(theme::vec(theme::kRope), "%s", m.real->name.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s, context %s, trained %s", m.real->info.rope->rope_type.c_str(),
                        format_count(m.budget.context, context, sizeof context),
                        format_count(m.budget.trained, trained, sizeof trained));
  } else {
    ImGui::TextDisabled("Free parameters as a model: context = max_position. Choose a model above for a real one.");
  }
  figures(app);
  // at least nine lines of plot: the panel scrolls on short windows rather than squash it
  wavelength_plot(app, std::max(9.0f * ImGui::GetTextLineHeightWithSpacing(),
                                ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y));
}

std::string describe_context_budget(const App& app) {
  const ContextBudget& b = app.model.budget;
  char first[64];
  return "Context budget panel: " + format_count(b.pairs_without_turn) + " of " + format_count(b.rotary_dims / 2) +
         " pairs never complete a turn within the training length " + format_count(b.trained) +
         "; critical dimension " + format_count(b.critical_dim) + " of " + format_count(b.rotary_dims) +
         "; the cosine sum first turns negative at " + first_negative_words(b, first, sizeof first) +
         "; rope_scaling: " + format_count(b.kept) + " pairs kept, " + format_count(b.blended) + " blended, " +
         format_count(b.divided) + " divided; RoPE has 0 parameters, a learned table of the context would have " +
         format_count(b.learned_parameters) + ".";
}

}  // namespace rv
