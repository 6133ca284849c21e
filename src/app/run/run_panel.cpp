// The Run it panel: a loaded checkpoint run on its text (the held-out sample or one given) and the text's tokens, its
// loss by position under each rope ticked, the shift test, attention by distance and the sink (run_session.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "app/run/run_bench.hpp"
#include "app/run/run_session.hpp"
#include "app/run/run_torch.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr const char* kDemoModels[] = {"llama-bytes", "llama-bytes-pi4", "gpt2-bytes"};
constexpr ImU32 kCurveColours[kRunRopeCount] = {theme::kError,
                                                theme::kRope,
                                                theme::kLearned,
                                                theme::kOk,
                                                theme::kKey,
                                                theme::kMuted,
                                                IM_COL32(129, 199, 132, 255),
                                                IM_COL32(240, 98, 146, 255)};

void demo_buttons(App& app) {
  ImGui::TextDisabled("demo models (trained on bytes of English text; web/models):");
  constexpr const char* kRects[] = {"run_demo_0", "run_demo_1", "run_demo_2"};  // short: no allocation a frame
  static_assert(std::size(kRects) == std::size(kDemoModels));
  for (std::size_t i = 0; i < std::size(kDemoModels); ++i) {
    ImGui::SameLine();
    if (ImGui::SmallButton(kDemoModels[i])) app.ui.weights_load.pending_demo = kDemoModels[i];
    record_rect(app.ui, kRects[i]);
  }
  hover_tip(
      "llama-bytes: a Llama with RoPE trained at 512 positions. llama-bytes-pi4: the same fine-tuned at 2,048 "
      "under linear x4. gpt2-bytes: a GPT-2 with a learned table of 1,024 rows.");
}

constexpr const char* kRopeRects[] = {"run_rope_0", "run_rope_1", "run_rope_2", "run_rope_3",
                                      "run_rope_4", "run_rope_5", "run_rope_6", "run_rope_7"};
static_assert(std::size(kRopeRects) == kRunRopeCount);

// A checkbox, its rect for tests and its tip.
void tick(App& app, const char* label, bool& value, const char* rect, const char* tip) {
  ImGui::Checkbox(label, &value);
  record_rect(app.ui, rect);
  hover_tip(tip);
}

void settings(App& app, RunSession& s) {
  RunSettings& r = s.settings;
  const float w = 12.0f * ImGui::GetTextLineHeight();
  int length = int(r.length);
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt("tokens per window", &length, 64, 4096)) r.length = length;
  hover_tip(
      "Each pass reads this many tokens of the text from position 0: past the model's context to see "
      "what it does there (up to 4x a 1,024-row table or 8x a 512-token context).");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.6f);
  ImGui::SliderInt("windows", &r.windows, 1, 8);
  hover_tip("Windows spread evenly over the text; each curve is their mean.");
  const LoadedWeights* weights = app.params.weights.get();
  const bool learned = s.learned && weights && weights->serial == s.serial;
  if (!learned) {
    ImGui::TextDisabled("rope at inference:");
    const bool longrope = weights && weights->config && config_longrope(*weights->config);
    for (int i = 0; i < kRunRopeCount; ++i) {
      ImGui::SameLine();
      const bool off = RunRope(i) == RunRope::LongRope && !longrope;
      if (off) r.rope[i] = false;
      ImGui::BeginDisabled(off);
      ImGui::Checkbox(run_rope_label(RunRope(i)), &r.rope[i]);
      ImGui::EndDisabled();
      record_rect(app.ui, kRopeRects[i]);
      if (off)
        hover_tip(
            "LongRoPE's per-pair short and long factors are searched for each model (Phi-3 ships them in its "
            "config); this model's config has none, so there is nothing to apply.");
    }
    ImGui::SetNextItemWidth(w * 0.6f);
    float factor = float(r.factor);
    if (ImGui::SliderFloat("factor", &factor, 2.0f, 16.0f, "%.0f")) r.factor = std::round(factor);
    hover_tip("The scalings' factor, from the trained context (original_max_position_embeddings).");
    ImGui::SameLine();
  }
  tick(app, "shift test", r.shift, "run_shift",
       "The window's first 256 tokens again at positions shifted by 0, half the context, the context and twice it: "
       "RoPE scores depend on m - n only, so a RoPE model's loss should not move; a learned table's does.");
  ImGui::SameLine();
  tick(app, "loss curves", r.loss, "run_loss",
       "The loss by position under each rope ticked, and one pass for attention by distance and the sink.");
  ImGui::SameLine();
  tick(app, "passkey bench", r.bench, "run_bench",
       "A 5-digit key hidden at each depth of a filler text of each length, then asked for (docs/passkey.md): one "
       "grid per rope ticked, lengths evenly up to the tokens per window.");
  if (!r.bench) return;
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::SliderInt("lengths", &r.bench_lengths, 1, 8);
  record_rect(app.ui, "run_bench_lengths");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::SliderInt("depths", &r.bench_depths, 1, 9);
  record_rect(app.ui, "run_bench_depths");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::SliderInt("keys a cell", &r.bench_trials, 1, 8);
  record_rect(app.ui, "run_bench_keys");
  hover_tip("Trials per cell, each with its own key (seeded: the same keys every run, as the passkey op's seed 0).");
}

// The text's first tokens as the model reads them: a box each (alternating shades mark the boundaries), its text over
// its id, the token's vocabulary string and position on hover. Labels are built with the tokens: no allocation here.
void token_strip(App& app, const RunTokens& t) {
  if (t.labels.empty()) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight(), pad = 3.0f, row = 2.0f * line + 2.0f * pad + style.ItemSpacing.y;
  ImGui::BeginChild("run_tokens", ImVec2(-1, 3.0f * row + style.WindowPadding.y * 2.0f), true);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, gap = 2.0f;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool hovered = ImGui::IsWindowHovered();
  float x = 0.0f, y = 0.0f;
  int hover = -1;
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    const std::string& label = t.labels[i];
    const std::string& id = t.ids_text[i];
    const ImVec2 a = ImGui::CalcTextSize(label.data(), label.data() + label.size());
    const ImVec2 b = ImGui::CalcTextSize(id.data(), id.data() + id.size());
    const float w = std::max(a.x, b.x) + 2.0f * pad;
    if (x > 0.0f && x + w > width) x = 0.0f, y += row;
    const ImVec2 lo(origin.x + x, origin.y + y), hi(lo.x + w, lo.y + 2.0f * line + 2.0f * pad);
    const bool over = hovered && mouse.x >= lo.x && mouse.x < hi.x && mouse.y >= lo.y && mouse.y < hi.y;
    draw->AddRectFilled(lo, hi, over ? theme::kGrid : (i % 2 ? IM_COL32(44, 60, 66, 255) : IM_COL32(58, 52, 44, 255)),
                        2.0f);
    draw->AddText(ImVec2(lo.x + pad, lo.y + pad), IM_COL32(230, 232, 236, 255), label.data(),
                  label.data() + label.size());
    draw->AddText(ImVec2(lo.x + pad, lo.y + pad + line), theme::kMuted, id.data(), id.data() + id.size());
    if (over) hover = int(i);
    x += w + gap;
  }
  ImGui::Dummy(ImVec2(width, y + row));
  if (hover >= 0) tooltip("%s", t.hovers[std::size_t(hover)].c_str());
  ImGui::EndChild();
  record_rect(app.ui, "run_tokens");
}

// The text Run it reads, its tokens' count and the strip; the held-out sample again after a text was given.
void text_line(App& app, RunSession& s) {
  const RunTokens& t = run_tokens(app);
  ImGui::PushTextWrapPos(0);
  ImGui::TextWrapped("Text: %s. %s", run_text_name(app).c_str(), t.summary.c_str());
  ImGui::PopTextWrapPos();
  if (!s.text.text.empty()) {
    if (ImGui::SmallButton("read the held-out sample")) clear_run_text(app);
    record_rect(app.ui, "run_heldout");
  } else {
    ImGui::TextDisabled(
        "paste text (Ctrl+V) or drop a .txt file to read it instead; drop tokenizer.json for its tokens");
  }
  if (!t.error.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(theme::vec(theme::kError), "%s", t.error.c_str());
    ImGui::PopTextWrapPos();
  }
}

void loss_plot(const RunSession& s, float width) {
  plot::Spec spec;
  spec.x = {"position", plot::Scale::Linear, 0, double(s.plan.length), true};
  spec.y = {"loss (nats per token), moving mean of 49"};
  if (!plot::begin_plot("run_loss", ImVec2(width, std::clamp(width * 0.4f, 160.0f, 320.0f)), spec)) return;
  char label[64], n[32];
  if (s.context > 0) {
    std::snprintf(label, sizeof label, "context %s", format_count(s.context, n, sizeof n));
    plot::plot_vline(double(s.context), theme::kLearned, label);
  }
  if (s.trained > 0 && s.trained != s.context) {
    std::snprintf(label, sizeof label, "trained %s", format_count(s.trained, n, sizeof n));
    plot::plot_vline(double(s.trained), theme::kMuted, label);
  }
  for (std::size_t i = 0; i < s.study.curves.size() && i < s.smoothed.size(); ++i) {
    const RunCurve& c = s.study.curves[i];
    const std::vector<double>& y = s.smoothed[i];
    if (c.windows)
      plot::plot_line_g(
          run_rope_label(c.rope), int(y.size()), [&y](int t) { return y[std::size_t(t)]; },
          {kCurveColours[int(c.rope)], 1.5f}, 1.0, 1.0);
  }
  plot::end_plot([&s](double x) {
    ImGui::Text("position %.0f", x);
    const std::size_t t = std::size_t(std::max(1.0, x)) - 1;  // the loss at position x predicts token x
    for (const RunCurve& c : s.study.curves)
      if (c.windows && t < c.sum.size())
        ImGui::Text("%s: %.3f (mean over %d windows, unsmoothed)", run_rope_label(c.rope), c.sum[t] / c.windows,
                    c.windows);
  });
}

void shift_table(const RunSession& s) {
  if (s.study.shifts.empty()) return;
  ImGui::TextDisabled("shift test: the same %lld tokens at positions shifted by s", std::min(256LL, s.plan.length));
  for (const RunShift& sh : s.study.shifts) {
    if (!sh.done) {
      ImGui::Text("s = %lld: not run yet", sh.shift);
    } else if (!sh.error.empty()) {
      ImGui::TextColored(theme::vec(theme::kError), "s = %lld: %s", sh.shift, sh.error.c_str());
    } else {
      const double base = s.study.shifts[0].done ? s.study.shifts[0].loss : sh.loss;
      ImGui::Text("s = %lld: loss %.6f (%+.2e against s = 0)", sh.shift, sh.loss, sh.loss - base);
    }
  }
}

void attention_views(const RunSession& s, float width) {
  const RunStudy& st = s.study;
  if (st.by_distance.empty()) {
    if (!st.attention_error.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", st.attention_error.c_str());
    return;
  }
  const int layers = int(st.by_distance.size()), heads = int(st.by_distance[0].size());
  const int T = int(st.by_distance[0][0].size());
  plot::Spec spec;
  spec.x = {"distance t - s (log)", plot::Scale::Log10, 1, double(std::max(2, T))};
  spec.y = {"mean attention (log)", plot::Scale::Log10};
  const float half = (width - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  ImGui::BeginGroup();
  if (plot::begin_plot("run_distance", ImVec2(half, std::clamp(half * 0.6f, 140.0f, 280.0f)), spec)) {
    char label[24];
    for (int l = 0; l < layers; ++l) {
      std::snprintf(label, sizeof label, "layer %d", l);
      const auto& g = st.by_distance[std::size_t(l)];
      plot::plot_line_g(label, T - 1,
                        [&g, heads](int i) {
                          double m = 0;
                          for (const auto& h : g) m += h[std::size_t(i + 1)];
                          return std::max(1e-12, m / heads);
                        },
                        {theme::kSeries[std::size_t(l) % std::size(theme::kSeries)], 1.2f});
    }
    plot::end_plot();
  }
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextDisabled("sink: attention on position 0 (layer down, head across; blue 0, gold the most)");
  const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + half, a.y + std::min(200.0f, 18.0f * layers));
  ImGui::Dummy(ImVec2(half, b.y - a.y));
  double most = 1e-9;  // the colours span 0 .. the largest share (most sinks hold well under 1)
  for (const auto& layer : st.sink)
    for (const double v : layer) most = std::max(most, v);
  const auto cell = cell_heatmap(a, b, layers, heads, 0.0f, float(most),
                                 [&st](int r, int c) { return st.sink[std::size_t(r)][std::size_t(c)]; });
  if (cell.first >= 0)
    tooltip("layer %d, head %d: %.4f of the attention on position 0", cell.first, cell.second,
            st.sink[std::size_t(cell.first)][std::size_t(cell.second)]);
  ImGui::EndGroup();
}

}  // namespace

void show_run(App& app) {
  RunSession& s = run_session(app);
  const LoadedWeights* w = app.params.weights.get();
  ImGui::PushTextWrapPos(0);
  if (w)
    ImGui::TextWrapped("Model: %s.", w->label.c_str());
  else
    ImGui::TextWrapped(
        "Run it runs a loaded checkpoint's forward pass on held-out text and measures its loss at every "
        "position. No checkpoint is loaded.");
  ImGui::PopTextWrapPos();
  demo_buttons(app);
  if (w) text_line(app, s);
  settings(app, s);
  if (s.running) {
    if (ImGui::Button("Stop")) run_stop(app);
    hover_tip("Ends the run: the passes done so far stay drawn.");
  } else if (ImGui::Button("Run")) {
    run_start(app);
  }
  record_rect(app.ui, "run_button");
  ImGui::SameLine();
  if (ImGui::Button("PyTorch")) app.ui.pending_exports = run_torch(app);
  record_rect(app.ui, "run_torch");
  hover_tip(
      "Downloads ropeviz_run.py and one request per rope ticked for these settings: the loss on window 0's tokens "
      "and the passkey grid, to run with PyTorch on a GPU, under torchrun or to lengths the page cannot hold "
      "(python3 ropeviz_run.py --model CHECKPOINT_DIR --request FILE --out result.json; docs/run-export.md).");
  ImGui::SameLine();
  const float progress = s.jobs.empty() ? 0.0f : float(s.next) / float(s.jobs.size());
  ImGui::ProgressBar(progress, ImVec2(-1, 0), s.status.c_str());
  ImGui::PushTextWrapPos(0);
  if (!s.error.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", s.error.c_str());
  if (s.running && s.remote && s.next == 0)
    ImGui::TextDisabled("Web Workers read the checkpoint's weights, then run the passes side by side...");
  if (!s.sentence.empty()) ImGui::TextWrapped("%s", s.sentence.c_str());
  for (const RunCurve& c : s.study.curves)
    if (!c.error.empty())
      ImGui::TextColored(theme::vec(theme::kError), "%s: %s", run_rope_label(c.rope), c.error.c_str());
  ImGui::PopTextWrapPos();
  if (w) token_strip(app, s.tokens);
  if (s.jobs.empty()) return;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (!s.study.curves.empty()) loss_plot(s, avail);
  shift_table(s);
  attention_views(s, avail);
  bench_view(s, avail);
}

std::string describe_run(const App& app) {
  const RunSession* s = find_run_session(app);
  if (!s || s->jobs.empty())
    return "Run it panel: " + (s && !s->error.empty() ? s->error + ". " : std::string()) +
           "not run yet; it runs a loaded checkpoint on held-out text and measures its loss at every position.";
  std::string out = "Run it panel: " + s->model_label + " on " + run_text_name(app) + " (" + s->tokens.summary + "), " +
                    run_status(*s) + ". " + run_sentence(*s);
  if (!s->bench_sentence.empty()) out += " " + s->bench_sentence;
  for (const RunShift& sh : s->study.shifts)
    if (sh.done)
      out += " Shift " + std::to_string(sh.shift) + ": " + (sh.error.empty() ? format_sig(sh.loss, 6) : sh.error) + ".";
  return out;
}

}  // namespace rv
