// Dot product against offset: score(r) = <RoPE(q, n + r), RoPE(k, n)> over r = m - n in
// [-offsets, offsets], at two anchors n and n + 1000 drawn on top of each other (they coincide:
// the score depends only on the offset), with upper bounds on |score(r)| for this q, k: |q||k|
// (Cauchy-Schwarz), the Abel-summation bound and RoFormer's looser form. q and k (the qk combo) are random N(0, 1)
// (noise that does not decay), q = k or all ones (the formula's decay envelope), or a loaded checkpoint's layer 0
// for two tokens; when the bounds dwarf the curve the y axis is fitted to it and the bounds are marked off scale,
// with their values in a note.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/panels/panel_views.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/ui/decimate.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {

ScoreAt score_at(const App& app, long long r) {
  const Model& model = app.model;
  const std::size_t j =
      std::size_t(std::clamp<long long>(r + app.params.offsets, 0, (long long)model.curve_a.size() - 1));
  return ScoreAt{model.curve_a[j], model.curve_b[j], model.bound[j], model.roformer_bound[j]};
}

namespace {

// Short legend names; the read-out and the (?) tip give the formulas.
constexpr const char* kAbelLabel = "Abel bound";
constexpr const char* kRoformerLabel = "RoFormer bound";
constexpr const char* kCauchyLabel = "|q||k|";
constexpr const char* kAbelFormula = "Abel bound Σᵢ|hᵢ − hᵢ₊₁|·|Sᵢ₊₁|";
constexpr const char* kRoformerFormula = "RoFormer bound max|Δh|·Σ|S_j|";
constexpr const char* kCauchyFormula = "Cauchy-Schwarz |q||k|";
// The y axis is fitted to the curve when the largest bound is more than this many times the curve's max |score|
// (random q, k of width 128: a bound of thousands over a curve of tens would flatten the curve to a line).
constexpr double kOffScaleRatio = 4.0;
constexpr double kFitPad = 1.15;  // the fitted axis reaches this many times the curve's max |score|

// The y axis the plot uses: fitted to the curve (hi > 0) when the bounds dwarf it, else 0 (fitted to everything).
double fitted_axis(const App& app) {
  const Model& model = app.model;
  if (!app.ui.show_decay || model.curve_absmax <= 0.0) return 0.0;
  return model.bound_max > kOffScaleRatio * model.curve_absmax ? kFitPad * model.curve_absmax : 0.0;
}

void offsets_control(App& app) {
  int r = app.params.offsets;
  ImGui::SetNextItemWidth(110.0f * app.ui.scale);
  if (ImGui::InputInt("± offsets", &r, 64, 1024, ImGuiInputTextFlags_EnterReturnsTrue) && r != app.params.offsets)
    set(app.params, keys::offsets, r, app.ui.notes);
  record_rect(app.ui, "offsets");
  for (int preset : {64, 4096, 65536}) {
    char label[24];
    std::snprintf(label, sizeof label, "±%s", format_count(preset).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(label)) set(app.params, keys::offsets, double(preset), app.ui.notes);
  }
  same_line_if_fits(ImGui::CalcTextSize("bounds (?)").x + 2.0f * ImGui::GetFrameHeight());
  ImGui::Checkbox("bounds", &app.ui.show_decay);
  formula_tip(
      "score(r) = Re Σᵢ hᵢ e^{i r θᵢ}, hᵢ = q_i conj(k_i) per pair (h_{d/2} = 0), S_j = Σ_{k<j} e^{i r θ_k}. "
      "Abel summation (RoFormer 3.4.3): |score(r)| ≤ Σᵢ |hᵢ − hᵢ₊₁| |Sᵢ₊₁| ≤ (maxᵢ |hᵢ₊₁ − hᵢ|) Σ_j |S_j|. "
      "Both hold for this q and k at every offset, drawn as ± envelopes; the second (RoFormer's) is looser, and "
      "|q||k| (Cauchy-Schwarz: rotations keep norms) holds too. They are upper bounds, not typical values. The sums "
      "of |S_j| are largest at r = 0 (each |S_j| = j there) and, with many pairs, shrink on average as |r| grows: "
      "the bound decays with distance, the score need not. Random N(0, 1) q and k "
      "give noise of about the same size at every distance: no decay to expect. With q = k (or all ones) every "
      "hᵢ = |pairᵢ|² is real and positive: score(r) = Σᵢ |pairᵢ|² cos(r θᵢ), which starts at |q|² (d_head for "
      "ones) and falls as the pairs' cosines drift apart: the decay RoFormer plots. A trained model's q and k are "
      "neither: layer 0 draws one head's real pair, and any decay of its scores is learned, not given by RoPE.");
}

// A token id, or with tokenizer.json a word, typed into the field of link key `key`: applied on Enter or when the
// field loses focus, through set_param like a link (a bad id or word is refused there with a note).
void token_field(App& app, const char* label, Key k, long long value) {
  const char* key = field(k).key;
  char shown[24];
  std::snprintf(shown, sizeof shown, "%lld", value);
  char text[64];
  std::snprintf(text, sizeof text, "%s", shown);
  ImGui::PushID(key);
  ImGui::SetNextItemWidth(90.0f * app.ui.scale);
  const bool enter = ImGui::InputText("##token", text, sizeof text,
                                      ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
  commit_typed(app, k, text, shown, enter);
  record_rect(app.ui, key);
  ImGui::PopID();
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted(label);
}

// The qk combo (random, same, ones, layer0) and, for layer 0, the query token, the key token and the head.
void qk_control(App& app) {
  Params& p = app.params;
  ImGui::SetNextItemWidth(110.0f * app.ui.scale);
  if (ImGui::BeginCombo("q, k", score_qk_name(p.qk))) {
    for (ScoreQK v : {ScoreQK::Random, ScoreQK::Same, ScoreQK::Ones, ScoreQK::Layer0})
      if (ImGui::Selectable(score_qk_name(v), v == p.qk) && v != p.qk) set(p, keys::qk, v, app.ui.notes);
    ImGui::EndCombo();
  }
  record_rect(app.ui, "qk");
  key_tip("qk",
          "random: the seeded N(0, 1) pair; same: q = k; ones: all-ones q and k; layer0: the loaded "
          "checkpoint's layer 0 for the query token and the key token (ids, or words with its tokenizer.json).");
  if (p.qk != ScoreQK::Layer0) return;
  ImGui::SameLine();
  token_field(app, "query token", Key::q_token, p.q_token);
  ImGui::SameLine();
  token_field(app, "key token", Key::k_token, p.k_token);
  ImGui::SameLine();
  int head = p.qk_head;
  ImGui::SetNextItemWidth(80.0f * app.ui.scale);
  if (ImGui::InputInt("head", &head, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue) && head != p.qk_head)
    set(p, keys::qk_head, head, app.ui.notes);
  record_rect(app.ui, "qk_head");
}

void readout(const App& app, long long r) {
  const Model& model = app.model;
  const ScoreAt s = score_at(app, r);
  ImGui::Text("offset r = m − n = %s  (the score depends on r only)", format_count(r).c_str());
  ImGui::TextColored(theme::vec(theme::kRope), "score(r) at n = %s: %s",
                     format_count((long long)model.anchor_a).c_str(), format_sig(s.a, 10).c_str());
  ImGui::TextColored(theme::vec(theme::kKey), "score(r) at n = %s: %s", format_count((long long)model.anchor_b).c_str(),
                     format_sig(s.b, 10).c_str());
  ImGui::Text("difference: %s", format_sig(s.a - s.b, 3).c_str());
  if (!app.ui.show_decay) return;
  ImGui::TextColored(theme::vec(theme::kMuted), "%s = %s", kCauchyFormula, format_sig(model.cauchy_schwarz, 6).c_str());
  ImGui::TextColored(theme::vec(theme::kOk), "%s = %s", kAbelFormula, format_sig(s.bound, 6).c_str());
  ImGui::TextColored(theme::vec(theme::kLearned), "%s = %s", kRoformerFormula, format_sig(s.roformer, 6).c_str());
  if (model.curve_a.size() > std::size_t(app.ui.dec_a.columns))
    ImGui::TextDisabled("lines: min/max of each pixel column's %s offsets",
                        format_count((long long)(model.curve_a.size() / std::max(1, app.ui.dec_a.columns))).c_str());
}

void score_plot(App& app, ImVec2 size) {
  const Model& model = app.model;
  Ui& ui = app.ui;
  const double r0 = -app.params.offsets, r1 = app.params.offsets;
  plot::Spec spec;
  spec.x = {"offset r = m − n", plot::Scale::Linear, r0, r1, true};
  spec.y.label = "score(r)";
  const double fit = fitted_axis(app);  // > 0: the axis is fitted to the curve and the bounds may leave it
  if (fit > 0) spec.y.lo = -fit, spec.y.hi = fit;
  if (!plot::begin_plot("score_plot", size, spec)) return;
  const int cols = plot::columns();
  const std::pair<const std::vector<double>*, Decimated*> curves[] = {{&model.curve_a, &ui.dec_a},
                                                                      {&model.curve_b, &ui.dec_b},
                                                                      {&model.bound, &ui.dec_bound},
                                                                      {&model.roformer_bound, &ui.dec_roformer}};
  for (const auto& [y, dec] : curves) decimate(y->data(), y->size(), cols, model.curve_version, *dec);
  if (ui.show_decay) {
    // Off scale: the legend says so (the envelopes are clipped to the axis, entering it only where they decay).
    char roformer[48], abel[48];
    const bool roformer_off = fit > 0 && model.roformer_max > fit, abel_off = fit > 0 && model.bound_max > fit;
    std::snprintf(roformer, sizeof roformer, "%s%s", kRoformerLabel, roformer_off ? " (off scale)" : "");
    std::snprintf(abel, sizeof abel, "%s%s", kAbelLabel, abel_off ? " (off scale)" : "");
    plot::plot_envelope(roformer, ui.dec_roformer, r0, r1, {theme::kLearned & 0xC0FFFFFF, 1.0f, 0, false, false});
    plot::plot_envelope(abel, ui.dec_bound, r0, r1, {theme::kOk, 1.0f, 0, false, fit <= 0});
    if (fit <= 0 || model.cauchy_schwarz <= fit) {  // |q||k| as ± lines, when on the axis
      plot::plot_hline(model.cauchy_schwarz, theme::kMuted, kCauchyLabel);
      plot::plot_hline(-model.cauchy_schwarz, theme::kMuted);
    }
  }
  char a[48], b[48];
  std::snprintf(a, sizeof a, "n = %s", format_count((long long)model.anchor_a).c_str());
  std::snprintf(b, sizeof b, "n = %s (on top)", format_count((long long)model.anchor_b).c_str());
  plot::plot_line(a, ui.dec_a, r0, r1, {theme::kRope, 2.0f});
  plot::plot_line(b, ui.dec_b, r0, r1, {theme::kKey, 1.0f});
  const long long now = app.params.position - app.params.key_position;
  char marker[64];
  // The curve's value there: the rotations panel's score when q and k are its random pair.
  const bool in_range = now >= -app.params.offsets && now <= app.params.offsets && !model.curve_a.empty();
  const double at_now = in_range ? score_at(app, now).a : model.score;
  std::snprintf(marker, sizeof marker, "now: r = %s, score %s", format_count(now).c_str(),
                format_sig(at_now, 4).c_str());
  plot::plot_vline(double(now), theme::kRope & 0xA0FFFFFF);  // the current offset, when in range
  if (model.qk_drawn == ScoreQK::Layer0) {  // a trained model's q and k: the offsets its training saw end at L - 1
    char trained[64];
    std::snprintf(trained, sizeof trained, "trained to r = %s", format_count(app.params.max_position - 1).c_str());
    plot::plot_vline(double(app.params.max_position - 1), theme::kCaution, trained);
    plot::plot_vline(-double(app.params.max_position - 1), theme::kCaution);
  }
  if (in_range || model.qk_drawn == ScoreQK::Random) plot::plot_marker(marker, double(now), at_now, theme::kRope);
  if (model.curve_a.empty()) return plot::end_plot();
  plot::end_plot([&](double x) { readout(app, std::llround(x)); });
}

// What q and k are (Model::qk_words, built with them), what that implies, and the bounds' sizes against the curve's.
void qk_note(const App& app) {
  const Model& model = app.model;
  ImGui::PushTextWrapPos(0.0f);
  if (!model.qk_error.empty())
    ImGui::TextColored(theme::vec(theme::kError), "%s", model.qk_words.c_str());
  else
    ImGui::TextDisabled("%s.", model.qk_words.c_str());
  if (model.qk_drawn == ScoreQK::Layer0)
    ImGui::TextColored(theme::vec(theme::kCaution),
                       "Trained on offsets up to %s (the yellow lines): past them the curve is the formula applied to "
                       "this layer-0 q and k, not a measure of the model there; Run it measures its loss.",
                       format_count(app.params.max_position - 1).c_str());
  ImGui::TextDisabled(
      "score(0) = %s, rms %s over these offsets. The bounds are upper bounds, not typical values: |score| ≤ |q||k| = "
      "%s everywhere, and the Abel bound is largest at r = 0 and, with many pairs, smaller on average as |r| grows "
      "(the bound, not the score).",
      format_sig(model.curve_a.empty() ? 0.0 : model.curve_a[model.curve_a.size() / 2], 6).c_str(),
      format_sig(model.curve_rms, 3).c_str(), format_sig(model.cauchy_schwarz, 3).c_str());
  ImGui::PopTextWrapPos();
}

// Under the plot, when the axis is fitted to the curve: the bounds it leaves out, with their values.
void off_scale_note(const App& app, double fit) {
  const Model& model = app.model;
  const std::string top = format_sig(model.curve_absmax, 3),
                    cs = format_sig(model.cauchy_schwarz, 3);  // short: no heap
  const std::string abel = format_sig(model.bound_max, 3), roformer = format_sig(model.roformer_max, 3);
  const bool cs_off = model.cauchy_schwarz > fit;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(theme::vec(theme::kLearned),
                     "y axis fitted to the curve (max |score| %s); off scale: %s%s%sAbel bound up to %s and RoFormer "
                     "bound up to %s (at r = 0), %s to %s times the curve's max.",
                     top.c_str(), cs_off ? "|q||k| = " : "", cs_off ? cs.c_str() : "", cs_off ? ", " : "", abel.c_str(),
                     roformer.c_str(), format_count(std::llround(model.bound_max / model.curve_absmax)).c_str(),
                     format_count(std::llround(model.roformer_max / model.curve_absmax)).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void show_score_curve(App& app) {
  const Model& model = app.model;
  offsets_control(app);
  qk_control(app);
  if (model.qk_error != app.ui.qk_noted) {  // a new reason layer 0 is not drawn: a note once (no allocation otherwise)
    app.ui.qk_noted = model.qk_error;
    if (!model.qk_error.empty() && !model.qk_reading)
      app.ui.notes.push_back("qk=layer0: " + model.qk_error + "; drawing random q and k");
  }
  qk_note(app);
  const double fit = fitted_axis(app);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  score_plot(app, ImVec2(avail.x, std::max(100.0f, avail.y - (fit > 0 ? 3.4f : 1.2f) * lh)));
  if (fit > 0) off_scale_note(app, fit);
  char within[64];
  std::snprintf(within, sizeof within, "the two anchors' curves coincide within %s",
                format_sig(model.relative_spread, 2).c_str());
  ImGui::TextUnformatted(within);
  formula_tip(
      "score(m, n) = ⟨RoPE(q, m), RoPE(k, n)⟩ = Σᵢ Re[q_i conj(k_i) e^{i(m−n)θᵢ}] depends only on m − n: "
      "the curves at anchors n and n + 1000 lie on top of each other. Drawn with min/max per pixel column; "
      "the bounds with each column's max, so they stay above every point of the curves.");
  const double af = model.attention_factor_model;
  if (af != 1.0) {
    ImGui::TextDisabled("scores × %s: the model's attention factor %s, on cos and sin, enters q·k twice",
                        format_sig(af * af, 6).c_str(), format_sig(af, 6).c_str());
  }
}

std::string describe_score_curve(const App& app) {
  const Model& model = app.model;
  const std::string r = format_count(app.params.offsets);
  return "Dot product panel: the score against the offset m - n from -" + r + " to " + r + " at key positions " +
         format_sig(model.anchor_a) + " and " + format_sig(model.anchor_b) + "; the two curves coincide within " +
         format_sig(model.relative_spread, 3) + ", because the score depends only on the offset. " + model.qk_words +
         " (score " + format_sig(model.curve_a.empty() ? 0.0 : model.curve_a[model.curve_a.size() / 2], 6) +
         " at offset 0, rms " + format_sig(model.curve_rms, 3) + ", max |score| " + format_sig(model.curve_absmax, 3) +
         "); its upper bounds are |q||k| = " + format_sig(model.cauchy_schwarz, 3) + " and the Abel bound, up to " +
         format_sig(model.bound_max, 3) +
         " at offset 0, its largest; with many pairs it is smaller on average at a distance (the bound, not the "
         "score).";
}

}  // namespace rv
