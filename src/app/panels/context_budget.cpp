// Context budget: what the chosen model's RoPE numbers mean for its context (core/models/context_budget.hpp): pairs
// that never turn in training, the cosine sum's first negative position, its rope_scaling, low precision, parameters.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"
#include "imgui.h"

namespace rv {
namespace {

// One figure: its name (with the formula on hover), its value, and what it means against the context.
void figure(const char* name, const char* value, const char* meaning, const char* formula, ImU32 colour = 0) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextWrapped("%s", name);  // wrapped: a phone's columns are narrower than the names
  hover_tip(formula);
  ImGui::TableNextColumn();
  if (colour) ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(colour));
  ImGui::TextWrapped("%s", value);
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

// The length the turn figures are measured against, named as the config names it.
const char* measured_words(const ContextBudget& b, char* out, std::size_t size) {
  char n[28];
  format_count(b.measured, n, sizeof n);
  if (b.original)
    std::snprintf(out, size, "%s, the length before extension (original_max_position_embeddings)", n);
  else
    std::snprintf(out, size, "%s, the config's context (max_position_embeddings)", n);
  return out;
}

void turns(const ContextBudget& b) {
  char value[96], meaning[256], length[112];
  Counts n;
  measured_words(b, length, sizeof length);
  std::snprintf(value, sizeof value, "%s of %s dims", format_count(b.critical_dim, n.a, sizeof n.a),
                format_count(b.rotary_dims, n.b, sizeof n.b));
  std::snprintf(meaning, sizeof meaning, "dims whose period fits in %s; unscaled θᵢ (Liu et al. 2023)", length);
  figure("critical dimension", value, meaning,
         "d_crit = 2 · ceil((d/2) · ln(L / 2π) / ln(base)), clamped to [0, d]; d = rotated dims, θᵢ = base^(−2i/d) "
         "unscaled, L = original_max_position_embeddings, else max_position_embeddings.",
         theme::kRope);
  std::snprintf(value, sizeof value, "%s of %s", format_count(b.pairs_without_turn, n.a, sizeof n.a),
                format_count(b.rotary_dims / 2, n.b, sizeof n.b));
  std::snprintf(meaning, sizeof meaning, "unscaled wavelength 2π/θᵢ > %s: the other %s pairs are the critical dims",
                length, format_count(b.rotary_dims / 2 - b.pairs_without_turn, n.c, sizeof n.c));
  figure("pairs without a turn", value, meaning,
         "Count of pairs i with 2π / θᵢ > L, θᵢ = base^(−2i/d) unscaled: the same frequencies and length as the "
         "critical dimension, so the two add up to d/2 pairs.",
         theme::kRope);
  if (b.original || b.kept != b.rotary_dims / 2) {
    std::snprintf(value, sizeof value, "%s of %s", format_count(b.scaled_pairs_without_turn, n.a, sizeof n.a),
                  format_count(b.rotary_dims / 2, n.b, sizeof n.b));
    std::snprintf(meaning, sizeof meaning, "wavelength after rope_scaling > the context %s (max_position_embeddings)",
                  format_count(b.context, n.c, sizeof n.c));
    figure("scaled, without a turn", value, meaning,
           "Count of pairs i with 2π / θᵢ' > max_position_embeddings, θᵢ' the model's frequencies after rope_scaling.",
           theme::kRope);
  }
  const bool inside = b.first_negative_m && *b.first_negative_m <= b.context;
  format_count(b.context, n.a, sizeof n.a);
  if (!b.first_negative_m)
    std::snprintf(meaning, sizeof meaning, "B(m) > 0 through twice the context: the base is large enough");
  else if (!inside)
    std::snprintf(meaning, sizeof meaning, "past the context of %s: the base bounds it", n.a);
  else
    std::snprintf(meaning, sizeof meaning,
                  "inside the context of %s: a bound on the formula (q = k), not a measured loss: a trained model's "
                  "q and k can keep long-range scores positive (Run it measures the loss)",
                  n.a);
  figure("B(m) first negative", first_negative_words(b, value, sizeof value), meaning,
         "B(m) = Σᵢ cos(m θᵢ), θᵢ = base^(−2i/d) (Men et al. 2024, \"Base of RoPE Bounds Context Length\"): the first "
         "m ≥ 1 where it turns negative, searched to twice the context.",
         inside ? theme::kCaution : theme::kOk);
}

void scaling_and_precision(const ContextBudget& b) {
  char value[96], meaning[256], af[32] = "";
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
                  "if positions were bf16: at the context %s neighbours are %s apart and share a value. "
                  "Hugging Face and Meta build them in float32.",
                  format_count(b.context, n.b, sizeof n.b), format_count((long long)b.bf16_spacing, n.c, sizeof n.c));
  else
    std::snprintf(meaning, sizeof meaning, "every position of the context is exact");
  figure(
      "bf16 positions", value, meaning,
      "bfloat16 keeps 8 significant bits: integers are exact to 2⁸ = 256; at x the spacing is 2^(floor(log2 x) − 7). "
      "Hugging Face's and Meta's code compute positions and angles in float32 whatever the weights' dtype: this "
      "rounding happens only where someone builds the angles in bf16.",
      bf16_rounds ? theme::kLearned : theme::kOk);
  const bool overflows = double(b.context) >= b.fp16_overflow;
  std::snprintf(value, sizeof value, "exact to %s; ∞ from %s", format_count((long long)b.fp16_exact, n.a, sizeof n.a),
                format_count((long long)b.fp16_overflow, n.b, sizeof n.b));
  if (overflows)
    std::snprintf(meaning, sizeof meaning, "if positions were fp16, those from %s would be infinity (not in float32)",
                  n.b);
  else
    std::snprintf(meaning, sizeof meaning, "if positions were fp16: neighbours %s apart at the context",
                  format_count((long long)b.fp16_spacing, n.c, sizeof n.c));
  figure("fp16 positions", value, meaning,
         "float16 keeps 11 significant bits (exact to 2048) and its largest value is 65504; 65520 rounds to infinity. "
         "Positions and angles are float32 in Hugging Face's and Meta's code whatever the weights' dtype.",
         overflows ? theme::kError : theme::kMuted);
  std::snprintf(meaning, sizeof meaning, "a learned table of the context: %s",
                format_count(b.learned_parameters, n.a, sizeof n.a));
  figure("parameters", "RoPE: 0", meaning,
         "RoPE is a fixed formula. A learned table (GPT-2's wpe) holds max_position_embeddings × hidden_size.",
         theme::kOk);
}

bool begin_figures(const char* id) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable(id, 3, flags)) return false;
  ImGui::TableSetupColumn("figure (hover: formula)", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("against which length", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableHeadersRow();
  return true;
}

void figures(const App& app) {
  if (begin_figures("budget")) {
    turns(app.model.budget);
    scaling_and_precision(app.model.budget);
    ImGui::EndTable();
  }
  const RealModel* real = app.model.real ? &*app.model.real : nullptr;
  if (!app.model.budget_local || !real || !real->info.rope_local) return;
  // Gemma 3: the sliding-attention layers rotate at their own base; the same turn figures for them
  ImGui::TextColored(theme::vec(theme::kLearned), "Sliding-attention layers: base %s, %s",
                     format_sig(real->info.rope_local->base, 6).c_str(), real->info.rope_local->rope_type.c_str());
  hover_tip(
      "Gemma 3 rotates its sliding-attention layers at rope_local_base_freq (transformers 5: "
      "rope_parameters.sliding_attention) and its full-attention layers at rope_theta with the rope_scaling: "
      "the table above is the full layers'.");
  if (begin_figures("budget_local")) {
    turns(*app.model.budget_local);
    ImGui::EndTable();
  }
}

// The wavelength of each rotated pair (after rope_scaling) against the context and the length before extension.
void wavelength_plot(const App& app, float height) {
  const Model& model = app.model;
  const ContextBudget& b = model.budget;
  const int pairs = model.rotary_pairs;
  if (pairs < 1) return;
  // Gemma 3's sliding layers, drawn beside the full ones when they have as many pairs
  const RopeModel* local =
      model.real && model.real->info.rope_local && model.real->info.rope_local->inv_freq.size() >= pairs
          ? &*model.real->info.rope_local
          : nullptr;
  double lo = std::min(rope_wavelength(model.inv_freq[0]), 1.0);
  double hi = std::max({rope_wavelength(model.inv_freq[pairs - 1]), double(b.context), 10.0});
  if (local) {
    lo = std::min(lo, rope_wavelength(local->inv_freq[0]));
    hi = std::max(hi, rope_wavelength(local->inv_freq[pairs - 1]));
  }
  plot::Spec spec;
  spec.x = {"pair i", plot::Scale::Linear, -0.5, pairs - 0.5, true};
  spec.y = {"wavelength 2π/θᵢ (log)", plot::Scale::Log10, std::pow(10.0, std::floor(std::log10(lo))), hi * 2.0};
  if (!plot::begin_plot("budget_plot", ImVec2(ImGui::GetContentRegionAvail().x, height), spec)) return;
  plot::plot_hline(double(b.context), theme::kLearned, "context");
  if (b.original) plot::plot_hline(double(b.original), theme::kKey, "before extension", true);
  plot::plot_line_g("wavelength", pairs, [&](int i) { return rope_wavelength(model.inv_freq[i]); },
                    {theme::kRope, 2.0f, plot::dots_for(pairs)});
  if (local)
    plot::plot_line_g("sliding layers", pairs, [&](int i) { return rope_wavelength(local->inv_freq[i]); },
                      {theme::kLearned, 1.5f, plot::dots_for(pairs), true});
  plot::end_plot([&](double x) {
    const int i = std::clamp(int(std::lround(x)), 0, pairs - 1);
    ImGui::Text("pair %d: θ = %s, wavelength %s positions", i, format_sig(model.inv_freq[i]).c_str(),
                format_sig(rope_wavelength(model.inv_freq[i])).c_str());
  });
}

}  // namespace

void show_context_budget(App& app) {
  const Model& model = app.model;
  char context[28], original[28];
  if (model.real && model.real->info.absolute) {
    ImGui::TextWrapped("%s has a learned table and no RoPE; the figures are for RoPE at its head size, base %.6g.",
                       model.real->name.c_str(), app.params.base);
  } else if (model.real) {
    ImGui::TextColored(theme::vec(theme::kRope), "%s", model.real->name.c_str());
    ImGui::SameLine();
    format_count(model.budget.context, context, sizeof context);
    ImGui::PushTextWrapPos(0.0f);
    if (model.budget.original)
      ImGui::TextDisabled("%s, context %s, %s before extension", model.real->info.rope->rope_type.c_str(), context,
                          format_count(model.budget.original, original, sizeof original));
    else
      ImGui::TextDisabled("%s, context %s", model.real->info.rope->rope_type.c_str(), context);
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextDisabled("Free parameters as a model: context = max_position. Choose a model above for a real one.");
  }
  ImGui::TextWrapped(
      "Lengths from the config, not training lengths: a model may have been trained shorter or, after extension, "
      "longer. The figures are properties of the frequencies, true for the formula; how a trained model uses each "
      "pair is measured from its weights.");
  figures(app);
  // at least nine lines of plot: the panel scrolls on short windows rather than squash it
  wavelength_plot(app, std::max(9.0f * ImGui::GetTextLineHeightWithSpacing(),
                                ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y));
}

// Gemma 3's sliding layers, for the text view: their base and turn figures ("" for every other model).
std::string describe_local(const App& app) {
  const RealModel* real = app.model.real ? &*app.model.real : nullptr;
  if (!app.model.budget_local || !real || !real->info.rope_local) return "";
  const ContextBudget& l = *app.model.budget_local;
  char first[64];
  return " Its sliding-attention layers rotate at their own base " + format_sig(real->info.rope_local->base, 6) + " (" +
         real->info.rope_local->rope_type + "; the figures above are the full-attention layers', at base " +
         format_sig(real->info.rope->base, 6) + "): critical dimension " + format_count(l.critical_dim) + " of " +
         format_count(l.rotary_dims) + " dims, " + format_count(l.pairs_without_turn) + " of " +
         format_count(l.rotary_dims / 2) + " pairs never complete a turn, the cosine sum " +
         (l.first_negative_m ? "turns negative at " : "") + first_negative_words(l, first, sizeof first) + ".";
}

std::string describe_context_budget(const App& app) {
  const ContextBudget& b = app.model.budget;
  char first[64], length[112];
  measured_words(b, length, sizeof length);
  const std::string scaled = b.scaled_pairs_without_turn == b.pairs_without_turn && !b.original
                                 ? std::string()
                                 : "; after rope_scaling " + format_count(b.scaled_pairs_without_turn) +
                                       " pairs never turn within the context " + format_count(b.context);
  const std::string negative = b.first_negative_m ? "turns negative at " : "";
  return "Context budget panel: with the unscaled frequencies at " + std::string(length) +
         ", the critical dimension is " + format_count(b.critical_dim) + " of " + format_count(b.rotary_dims) +
         " dims and " + format_count(b.pairs_without_turn) + " of " + format_count(b.rotary_dims / 2) +
         " pairs never complete a turn" + scaled + "; the cosine sum " + negative +
         first_negative_words(b, first, sizeof first) + "; rope_scaling: " + format_count(b.kept) + " pairs kept, " +
         format_count(b.blended) + " blended, " + format_count(b.divided) +
         " divided; RoPE has 0 parameters, a learned table of the context would have " +
         format_count(b.learned_parameters) + "." + describe_local(app);
}

}  // namespace rv
