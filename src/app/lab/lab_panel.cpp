// Lab: train the tiny decoder with each position method on a synthetic task, time-sliced in frames, and plot exact
// match against sequence length past the training length, with the training losses and a summary per method.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/lab/lab_export.hpp"
#include "app/lab/lab_views.hpp"
#include "app/state/export.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr LabTask kTasks[] = {LabTask::Copy, LabTask::Reverse, LabTask::Repeat};
constexpr const char* kLabViewRects[] = {"lab_exact", "lab_per_answer", "lab_loss",  "lab_attention",
                                         "lab_kv",    "lab_table",      "lab_remedy"};
constexpr const char* kLabViews[] = {"exact match", "per answer",   "training loss",       "attention",
                                     "KV cache",    "learned rows", "sequential vs random"};
constexpr int kViewAttention = 3, kViewKv = 4, kViewTable = 5, kViewRemedy = 6;
constexpr LabPositions kPlacements[] = {LabPositions::Sequential, LabPositions::Random};
constexpr ImU32 kUntrainedTint = IM_COL32(160, 160, 160, 34), kIndexErrorTint = IM_COL32(255, 82, 82, 30);

const char* task_words(LabTask t) {
  switch (t) {
    case LabTask::Copy:
      return "x1..xn SEP x1..xn: copy the sequence after the separator";
    case LabTask::Reverse:
      return "x1..xn SEP xn..x1: write the sequence backwards";
    case LabTask::Repeat:
      return "a 3-symbol pattern repeated: each answer is the token 3 back (purely relative)";
  }
  return "";
}

}  // namespace

ImU32 colour_of(PositionMethod m) {
  // in kAllPositionMethods' order: learned, sinusoidal, rope, alibi, t5, none
  constexpr ImU32 kColours[] = {theme::kLearned, theme::kPink, theme::kRope, theme::kOk, theme::kKey, theme::kPale};
  static_assert(std::size(kColours) == std::size(kAllPositionMethods), "one colour per method");
  return kColours[int(m)];
}

namespace {

// The method's colour, lighter: a scaled curve next to its own.
ImU32 scaled_colour(PositionMethod m) {
  const ImVec4 c = theme::vec(colour_of(m));
  return ImGui::ColorConvertFloat4ToU32(ImVec4(0.5f * (c.x + 1), 0.5f * (c.y + 1), 0.5f * (c.z + 1), c.w));
}

constexpr ScalingType kLabScalings[] = {ScalingType::None, ScalingType::Linear, ScalingType::Dynamic,
                                        ScalingType::Yarn};

// RoPE's context extension at evaluation (--rope-scaling, --rope-factor): the session's, not link keys.
void scaling_settings(App& app) {
  LabSession& lab = app.lab;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::BeginCombo("rope scaling", lab_scaling_name(lab.rope_scaling))) {
    for (ScalingType t : kLabScalings)
      if (ImGui::Selectable(lab_scaling_name(t), lab.rope_scaling == t)) lab.rope_scaling = t;
    ImGui::EndCombo();
  }
  record_rect(app.ui, "lab_scaling");
  hover_tip(
      "After training, evaluate rope's weights again with context extension (the Extension panel's code, Hugging "
      "Face's rope_type names): linear = position interpolation (theta / factor), dynamic = dynamic NTK at the "
      "longest test input, yarn = YaRN (original length = the longest training input). A second, dashed rope "
      "curve.");
  if (lab.rope_scaling == ScalingType::None) return;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::InputDouble("factor", &lab.rope_factor, 0.5, 2.0, "%g"))
    lab.rope_factor = std::isfinite(lab.rope_factor) ? std::clamp(lab.rope_factor, 1.25, 64.0) : 4.0;
  record_rect(app.ui, "lab_factor");
  hover_tip("The scaling factor: 4 stretches the training range L over the test range 4L.");
}

// Task, sizes, seed and methods: link keys, so a link restores them (#tab=lab&task=copy&train_len=16).
void settings(App& app) {
  Params& p = app.params;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::BeginCombo("task", lab_task_name(p.task))) {
    for (LabTask t : kTasks)
      if (ImGui::Selectable(lab_task_name(t), p.task == t)) set(p, keys::task, t, app.ui.notes);
    ImGui::EndCombo();
  }
  record_rect(app.ui, "task");
  hover_tip(task_words(p.task));
  number_field(app, "train_len", keys::train_len, p.train_len, 1);
  key_tip("train_len");
  const int trained = lab_input_len(p.task, p.train_len);
  number_field(app, "table_len", keys::table_len, p.table_len, trained);
  key_tip("table_len",
          "0 is exactly the longest training input (2 x train_len positions for copy and reverse, train_len + 2 for "
          "repeat). A longer table has rows no training input reaches: they keep their random init, and sizes that "
          "read them run on it before the IndexError.");
  number_field(app, "steps", keys::steps, p.steps, 100);
  key_tip("steps");
  number_field(app, "lab_seed", keys::lab_seed, double(p.lab_seed), 1);
  key_tip("lab_seed", "The same seed gives the same initial weights, batches and test sequences: the same curves.");
  number_field(app, "seeds", keys::seeds, p.lab_seeds, 1);
  key_tip("seeds",
          "Each method trains from this many seeds (lab_seed, lab_seed + 1, ...): the curves are their means and the "
          "shading runs from the lowest seed to the highest, so a gap between methods can be told from noise.");
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::BeginCombo("positions", lab_positions_name(p.positions))) {
    for (LabPositions x : kPlacements)
      if (ImGui::Selectable(lab_positions_name(x), p.positions == x)) set(p, keys::positions, x, app.ui.notes);
    ImGui::EndCombo();
  }
  record_rect(app.ui, "positions");
  key_tip("positions",
          "random: each training sequence sits at a sorted sample of distinct positions from [0, position_range) "
          "(Ruoss et al. 2023), so the model meets far positions and every gap while training; it is tested that "
          "way and at 0 to T-1. The learned table then has position_range rows.");
  if (p.positions == LabPositions::Random) {
    number_field(app, "position_range", keys::position_range, p.position_range, 16);
    key_tip("position_range", "0 is 4 x the longest test input.");
  }
  for (PositionMethod m : kAllPositionMethods) {
    const int bit = 1 << int(m);
    bool on = (p.methods & bit) != 0;
    if (int(m) % 3) ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_CheckMark, theme::vec(colour_of(m)));
    if (ImGui::Checkbox(position_method_name(m), &on) && (p.methods ^ bit) != 0) p.methods ^= bit;
    ImGui::PopStyleColor();
    record_rect(app.ui, position_method_name(m));
  }
  scaling_settings(app);
  enforce_limits(p, app.ui.notes);  // a longer train_len can outgrow table_len
  ImGui::Spacing();
}

// Run / Stop, the progress bar and its line, the exports.
void run_controls(App& app) {
  LabSession& lab = app.lab;
  if (lab.running) {
    if (ImGui::Button("Stop")) lab_stop(app);
    record_rect(app.ui, "lab_stop");
  } else {
    if (ImGui::Button("Run")) lab_start(app, lab_flags(app));
    record_rect(app.ui, "lab_run");
    hover_tip("Trains every chosen method from the same seeds, then evaluates each length; the UI stays live.");
  }
  if (lab.run && !lab.running) {
    ImGui::SameLine();
    if (ImGui::SmallButton("lab.csv")) app.ui.pending_exports = {export_lab_csv(app)};
    record_rect(app.ui, "export_lab");
  }
  if (!lab.running) {
    ImGui::SameLine();
    if (ImGui::SmallButton("PyTorch")) app.ui.pending_exports = lab_torch(app);
    record_rect(app.ui, "lab_torch");
    hover_tip(
        "ropeviz_lab.py: this experiment as one standalone PyTorch script (the same tasks, model, init and "
        "AdamW; runs on a GPU), and ropeviz_lab_data.json beside it: the initial weights and first 50 batches, "
        "so `python3 ropeviz_lab.py --data ropeviz_lab_data.json` reproduces this app's losses.");
  }
  if (lab.run && !lab.running) {  // the trained decoders as checkpoints (a line of their own)
    if (ImGui::SmallButton("save weights")) app.ui.pending_exports = lab_weights(app);
    record_rect(app.ui, "lab_weights");
    hover_tip(
        "Each trained decoder as ropeviz-lab-<method>-model.safetensors (float32, the decoder's own tensor names) "
        "and its config.json: the app's load weights, the desktop's --weights and ropeviz-cli learned_table open "
        "them.");
    ImGui::SameLine();
    if (ImGui::SmallButton("open its table")) load_lab_table(app.params, lab, app.ui.notes, &app.ui.note_details);
    record_rect(app.ui, "lab_open_table");
    hover_tip(
        "The learned decoder's trained position table as the app's table (as a loaded checkpoint): the Learned "
        "table and Trained vs random panels show what training did to it.");
  }
  const float progress = lab.run ? float(lab.run->progress()) : 0.0f;
  ImGui::ProgressBar(progress, ImVec2(-1, 0));
  ImGui::PushTextWrapPos(0);
  if (app.ui.narrow) ImGui::TextDisabled("%s", lab_status(app).c_str());  // wide: above the results (status_line)
  if (!lab.error.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", lab.error.c_str());
  ImGui::PopTextWrapPos();
}

// The run's progress in words, at the top of the results on a wide display (the settings column can scroll it away).
void status_line(const App& app) {
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", lab_status(app).c_str());
  ImGui::PopTextWrapPos();
}

// A share of test sequences as the whole percent their number supports (core's format_percent), or a loss.
void cell(const std::optional<double>& v, bool percent = true) {
  ImGui::TableNextColumn();
  char buf[28];
  if (!v)
    ImGui::TextDisabled("—");
  else if (percent)
    ImGui::TextUnformatted(format_percent(*v, buf, sizeof buf));
  else
    ImGui::TextUnformatted(format_sig(*v, 3).c_str());
}

// Steps a method's runs trained ("150" or "150–200" over its seeds): fewer than the cap when they stopped at the bar,
// the cap (marked) when one never got there.
void steps_cell(const LabMethodResult& m, const LabSummaryBands& b, const LabOptions& o) {
  ImGui::TableNextColumn();
  char buf[64], lo[28], hi[28];
  format_count(b.steps_lo, lo, sizeof lo);
  format_count(b.steps_hi, hi, sizeof hi);
  const bool capped = !m.reached_bar && b.steps_hi >= o.steps;
  if (b.steps_lo == b.steps_hi)
    std::snprintf(buf, sizeof buf, "%s%s", lo, capped ? " (max)" : "");
  else
    std::snprintf(buf, sizeof buf, "%s–%s%s", lo, hi, capped ? " (max)" : "");
  ImGui::TextUnformatted(buf);
  if (ImGui::IsItemHovered())
    tooltip(m.reached_bar ? "stopped here: every training size at the bar" : "not at the bar (yet)");
}

// A figure's mean over the seeds and, with two or more that differ, its band in percents: "48% (44–52)".
void band_cell(const LabBand& b) {
  ImGui::TableNextColumn();
  char mean[24], lo[24], hi[24], buf[80];
  if (!b.mean) return ImGui::TextDisabled("—");
  format_percent(*b.mean, mean, sizeof mean);
  format_percent(*b.lo, lo, sizeof lo);
  format_percent(*b.hi, hi, sizeof hi);
  if (b.runs < 2 || std::strcmp(lo, hi) == 0) return ImGui::TextUnformatted(mean);
  lo[std::strlen(lo) - 1] = hi[std::strlen(hi) - 1] = '\0';  // the band's '%' is the mean's
  std::snprintf(buf, sizeof buf, "%s (%s–%s)", mean, lo, hi);
  ImGui::TextUnformatted(buf);
}

// Per method: mean exact match inside the training length, just past it and far past it; the final loss and the
// steps trained. Sized to its rows, so six methods and a scaled row show whole; scroll_x leaves room to scroll it
// sideways (a phone).
void summary_table(const LabResult& r, float scale, bool scroll_x) {
  const LabOptions& o = r.options;
  const int L = o.train_len;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float row_h = ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y + 1.0f;  // a row and its border
  int rows = 1;
  for (const LabMethodResult& m : r.methods) rows += m.accuracy_scaled.empty() ? 1 : 2;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_NoHostExtendY;
  const float scrollbar = scroll_x ? style.ScrollbarSize : 0.0f;  // room for a sideways scrollbar
  if (!ImGui::BeginTable("lab_summary", 6, flags, ImVec2(0.0f, rows * row_h + scrollbar + 2.0f * scale))) return;
  char inside[24], near[24], far[24];
  std::snprintf(inside, sizeof inside, "1–%d", L);  // sizes n (the note under the table says so)
  std::snprintf(near, sizeof near, "%d–%d", L + 1, 2 * L);
  std::snprintf(far, sizeof far, "%d–%d", 2 * L + 1, 4 * L);
  for (const char* name : {"method", static_cast<const char*>(inside), static_cast<const char*>(near),
                           static_cast<const char*>(far), "loss", "steps"})
    ImGui::TableSetupColumn(name);
  ImGui::TableHeadersRow();
  for (const LabMethodResult& m : r.methods) {
    const LabSummaryBands b = lab_summary_bands(m, L);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(theme::vec(colour_of(m.method)), "%s", position_method_name(m.method));
    if (m.error && ImGui::IsItemHovered()) tooltip("%s", m.error->c_str());
    band_cell(b.inside);
    band_cell(b.near);
    band_cell(b.far);
    cell(b.final_loss.mean, false);
    steps_cell(m, b, o);
    if (m.accuracy_scaled.empty()) continue;
    const LabSummaryBands z = lab_summary_bands(m, L, true);  // the same weights, scaled frequencies
    char label[48];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(theme::vec(scaled_colour(m.method)), "%s", lab_scaled_label(r.options, label, sizeof label));
    band_cell(z.inside);
    band_cell(z.near);
    band_cell(z.far);
    cell(std::nullopt, false);
    cell(std::nullopt, false);
  }
  ImGui::EndTable();
}

// The summary's width: its widest cells in each of the six columns, their padding and borders, the child's padding.
float summary_width() {
  const ImGuiStyle& style = ImGui::GetStyle();
  float w = 2.0f * style.WindowPadding.x + 6.0f * (2.0f * style.CellPadding.x + 1.0f);
  for (const char* widest :
       {"sinusoidal", ">99% (>99–100)", ">99% (>99–100)", ">99% (>99–100)", "0.00000", "99,999–100,000 (max)"})
    w += ImGui::CalcTextSize(widest).x;
  return w;
}

// Under the table: what a cell's percent is a share of, and why the methods' step counts differ.
void summary_note(const LabResult& r) {
  const LabOptions& o = r.options;
  char per[28], cap[28], every[28], bar[28];
  format_count(o.eval_count, per, sizeof per);
  format_count(o.steps, cap, sizeof cap);
  format_count(o.check_every, every, sizeof every);
  format_percent(kLabBar, bar, sizeof bar);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "Exact match at sizes n, trained on 1–%d only: %s test sequences per size, in whole percents "
      "(what %s sequences can tell apart).",
      o.train_len, per, per);
  if (o.positions == LabPositions::Random)
    ImGui::TextDisabled(
        "Trained and tested at random positions in [0, %d) (sorted, distinct); the same models tested "
        "at 0 to T-1 are in the sequential vs random view.",
        lab_position_range(o));
  if (o.seeds > 1)
    ImGui::TextDisabled(
        "Each figure is the mean over %d seeds (%llu–%llu), in brackets the lowest and highest seed's; "
        "the plot shades that band.",
        o.seeds, (unsigned long long)o.seed, (unsigned long long)(o.seed + o.seeds - 1));
  if (o.check_every > 0)
    ImGui::TextDisabled(
        "Steps differ by method: each stops once every training size is at the bar (%s exact match, "
        "checked every %s steps), at most %s; max: never reached it.",
        bar, every, cap);
  else
    ImGui::TextDisabled("Every method trains all %s steps (no bar check: check_every 0).", cap);
  const std::string verdict = lab_past_verdict(r);
  if (!verdict.empty()) ImGui::TextUnformatted(verdict.c_str());
  ImGui::PopTextWrapPos();
}

// The learned method's result, or null.
const LabMethodResult* learned_of(const LabResult& r) {
  for (const LabMethodResult& m : r.methods)
    if (m.method == PositionMethod::Learned) return &m;
  return nullptr;
}

// The first eval length a method has no number for (a learned table too short), or 0.
int first_failing(const LabMethodResult& m) {
  for (std::size_t i = 0; i < m.accuracy.size(); ++i)
    if (!m.accuracy[i]) return int(i) + 1;
  return 0;
}

void accuracy_readout(const LabResult& r, int n) {
  ImGui::Text("length n = %d%s", n, n <= r.options.train_len ? " (trained)" : " (never trained)");
  for (const LabMethodResult& m : r.methods) {
    if (n < 1 || n > int(m.accuracy.size())) continue;
    const auto& a = m.accuracy[size_t(n - 1)];
    const auto& t = m.token_accuracy[size_t(n - 1)];
    char exact[24], tokens[24], lo[24], hi[24];
    double band_lo = 0, band_hi = 0;
    if (a && m.runs.size() > 1 && lab_curve_band(m, &LabSeedRun::accuracy, n, band_lo, band_hi))
      ImGui::TextColored(theme::vec(colour_of(m.method)), "%s: exact %s (seeds %s–%s), answers %s",
                         position_method_name(m.method), format_percent(*a, exact, sizeof exact),
                         format_percent(band_lo, lo, sizeof lo), format_percent(band_hi, hi, sizeof hi),
                         format_percent(t.value_or(0), tokens, sizeof tokens));
    else if (a)
      ImGui::TextColored(theme::vec(colour_of(m.method)), "%s: exact %s, answers %s", position_method_name(m.method),
                         format_percent(*a, exact, sizeof exact), format_percent(t.value_or(0), tokens, sizeof tokens));
    else
      ImGui::TextColored(theme::vec(theme::kError), "%s: %s", position_method_name(m.method),
                         m.error.value_or("no number").c_str());
    if (n > int(m.accuracy_scaled.size()) || !m.accuracy_scaled[size_t(n - 1)]) continue;
    char label[48];
    ImGui::TextColored(theme::vec(scaled_colour(m.method)), "%s: exact %s, answers %s",
                       lab_scaled_label(r.options, label, sizeof label),
                       format_percent(*m.accuracy_scaled[size_t(n - 1)], exact, sizeof exact),
                       format_percent(m.token_accuracy_scaled[size_t(n - 1)].value_or(0), tokens, sizeof tokens));
  }
}

// Exact match (or per-answer accuracy) per eval length, one line per method; the training length marked, the
// learned table's end shaded.
void accuracy_plot(const LabResult& r, ImVec2 size, bool per_token) {
  const int L = r.options.train_len;
  plot::Spec spec;
  spec.x = {"sequence size n", plot::Scale::Linear, 0.5, 4.0 * L + 0.5, true};
  spec.y = {per_token ? "answers right (teacher-forced)" : "exact match (whole answer right)", plot::Scale::Linear, 0.0,
            1.0};
  if (!plot::begin_plot("lab_accuracy", size, spec)) return;
  plot::plot_vspan(0.5, L + 0.5, IM_COL32(255, 255, 255, 14));
  plot::plot_vline(L + 0.5, theme::kMuted, "trained up to here");
  // Guessing one of the kLabSymbols symbols gets 1 answer in kLabSymbols right (a whole answer far less often).
  if (per_token) plot::plot_hline(1.0 / kLabSymbols, theme::kMuted, "chance");
  for (const LabMethodResult& m : r.methods) {
    const int failing = first_failing(m);
    const int n = failing ? failing - 1 : int(m.accuracy.size());
    // sizes that read rows no training input reached (random positions train every row of the table)
    if (m.method == PositionMethod::Learned && n > L && r.options.positions == LabPositions::Sequential) {
      plot::plot_vspan(L + 0.5, n + 0.5, kUntrainedTint);
      plot::plot_vline(L + 0.5, theme::kMuted, "learned: never-trained rows");
    }
    if (failing) {
      plot::plot_vspan(failing - 0.5, 4.0 * L + 0.5, kIndexErrorTint);
      plot::plot_vline(failing - 0.5, theme::kError, "learned: IndexError");
    }
    const auto& values = per_token ? m.token_accuracy : m.accuracy;
    const auto curve = per_token ? &LabSeedRun::token_accuracy : &LabSeedRun::accuracy;
    if (m.runs.size() > 1)  // the seeds' spread, under the mean
      plot::plot_band_g(
          n,
          [&](int i) {
            double lo, hi;
            return lab_curve_band(m, curve, i + 1, lo, hi);
          },
          [&](int i) {
            double lo = 0, hi = 0;
            lab_curve_band(m, curve, i + 1, lo, hi);
            return lo;
          },
          [&](int i) {
            double lo = 0, hi = 0;
            lab_curve_band(m, curve, i + 1, lo, hi);
            return hi;
          },
          (colour_of(m.method) & 0x00FFFFFF) | 0x38000000, 1.0, 1.0);
    plot::plot_line_g(
        position_method_name(m.method), n, [&values](int i) { return *values[size_t(i)]; },
        {colour_of(m.method), 2.0f, plot::dots_for(n)}, 1.0, 1.0);
    // rope's weights with context extension: a dashed, lighter line of the same colour
    const auto& scaled = per_token ? m.token_accuracy_scaled : m.accuracy_scaled;
    int k = 0;
    while (k < int(scaled.size()) && scaled[size_t(k)]) ++k;
    if (k == 0) continue;
    char label[48];
    plot::Style style{scaled_colour(m.method), 2.0f, plot::dots_for(k)};
    style.dashed = true;
    plot::plot_line_g(
        lab_scaled_label(r.options, label, sizeof label), k, [&scaled](int i) { return *scaled[size_t(i)]; }, style,
        1.0, 1.0);
  }
  plot::end_plot([&](double x) { accuracy_readout(r, int(std::lround(x))); });
}

// The learned table row by row: how far training moved each row from its init (log), against what weight decay alone
// does; rows no training input reaches and positions past the table marked.
void table_rows_plot(const LabResult& r, const LabSeedRun& m, ImVec2 size) {
  const LabOptions& o = r.options;
  const int rows = int(m.table_row_change.size()), trained = lab_trained_positions(o);
  const int longest = lab_input_len(o.task, 4 * o.train_len);  // the longest evaluation input
  plot::Spec spec;
  spec.x = {"position (row of the learned table)", plot::Scale::Linear, -0.5, std::max(rows, longest) - 0.5, true};
  spec.y = {"|P[p] - P_init[p]| / |P_init[p]|  (log)", plot::Scale::Log10};
  if (!plot::begin_plot("lab_table_rows", size, spec)) return;
  plot::plot_vspan(-0.5, trained - 0.5, IM_COL32(255, 255, 255, 14));
  plot::plot_vline(trained - 0.5, theme::kMuted, "trained up to here");
  if (rows > trained) plot::plot_vspan(trained - 0.5, rows - 0.5, kUntrainedTint);
  if (longest > rows) {
    plot::plot_vspan(rows - 0.5, longest - 0.5, kIndexErrorTint);
    plot::plot_vline(rows - 0.5, theme::kError, "IndexError");
  }
  const double decay = lab_decay_only_change(o, m.steps_run);
  plot::plot_hline(decay, theme::kMuted, "weight decay alone");
  plot::plot_line_g("learned", rows, [&m](int i) { return std::max(m.table_row_change[size_t(i)], 1e-9); },
                    {colour_of(PositionMethod::Learned), 2.0f, plot::dots_for(rows)});
  plot::end_plot([&](double x) {
    const int p = int(std::lround(x));  // snapped inside the axis: 0 .. the last eval position
    if (p >= rows) {
      ImGui::TextColored(theme::vec(theme::kError), "position %d: past the %d-row table, %s", p, rows,
                         m.error.value_or("IndexError").c_str());
      return;
    }
    ImGui::Text("position %d: moved %s%% from its init (%s)", p,
                format_sig(100 * m.table_row_change[size_t(p)], 3).c_str(),
                p < trained ? "trained" : "never trained: weight decay alone");
    ImGui::TextDisabled("weight decay alone over %d steps: %s%%", m.steps_run, format_sig(100 * decay, 3).c_str());
  });
}

// Training loss per step of every run (mean over blocks of steps, one block per pixel column), log scale; a method's
// first seed names it in the legend.
void loss_plot(const LabResult& r, ImVec2 size) {
  plot::Spec spec;
  spec.x = {"training step", plot::Scale::Linear, 0.0, double(std::max(1, r.options.steps)), true};
  spec.y = {"training loss (log)", plot::Scale::Log10};
  if (!plot::begin_plot("lab_loss", size, spec)) return;
  const int columns = std::max(1, plot::columns());
  for (const LabMethodResult& m : r.methods)
    for (const LabSeedRun& run : m.runs) {
      const int n = int(run.train_loss.size());
      const int points = std::min(n, columns);
      const auto block_mean = [&run, n, points](int j) {
        const int i0 = int((long long)j * n / points), i1 = std::max(i0 + 1, int((long long)(j + 1) * n / points));
        double sum = 0;
        for (int i = i0; i < i1; ++i) sum += run.train_loss[size_t(i)];
        return std::max(sum / (i1 - i0), 1e-6);
      };
      const double step = points ? double(n) / points : 1.0;
      plot::plot_line_g(&run == &m.first() ? position_method_name(m.method) : nullptr, points, block_mean,
                        {colour_of(m.method), &run == &m.first() ? 1.5f : 1.0f}, step, step / 2);
    }
  plot::end_plot();
}

}  // namespace

std::string lab_intro() {
  const LabOptions o;  // the sizes a Run trains (the panel sets task, n, steps, seed, methods)
  // Ranges are written with an en dash: ImGui may wrap after a '.', which split "1..train_len" into "1." /
  // ".train_len".
  return "Does a model work past its training length? Press Run: each chosen method trains a tiny decoder (" +
         std::to_string(o.layers) + " layers, " + std::to_string(o.heads) + " heads, d_model " +
         std::to_string(o.d_model) +
         ") on sizes 1–train_len from the same seed, then every size up to 4 x train_len is tested on fresh "
         "sequences. The learned table has no row past its training length: those sizes fail with the IndexError. "
         "Give it more rows (table_len) and the sizes that read rows training never reached run on their random "
         "init first.";
}

namespace {

// The view pickers and the chosen view of a run: accuracy, per answer, loss, attention, KV cache, learned rows.
void views(App& app) {
  int& view = app.ui.lab_view;
  const LabResult& r = app.lab.run->result();
  const bool inside = !app.lab.run->trained().empty();  // a trained model to look into
  const LabMethodResult* learned = learned_of(r);
  const bool rows = learned && !learned->first().table_row_change.empty();  // its first seed has finished training
  bool first = true;
  for (int v = 0; v < int(std::size(kLabViews)); ++v) {
    if ((v == kViewAttention || v == kViewKv) && !inside) continue;
    if (v == kViewTable && !rows) continue;
    if (v == kViewRemedy && !app.lab.running && !app.lab.run->done()) continue;  // a stopped run
    if (!first) same_line_if_fits(ImGui::CalcTextSize(kLabViews[v]).x + ImGui::GetFrameHeight() * 2);
    first = false;
    if (ImGui::RadioButton(kLabViews[v], view == v)) view = v;
    record_rect(app.ui, kLabViewRects[v]);
  }
  if ((!inside && (view == kViewAttention || view == kViewKv)) || (!rows && view == kViewTable) ||
      (view == kViewRemedy && !app.lab.running && !app.lab.run->done()))
    view = 0;
  const ImVec2 size = ImGui::GetContentRegionAvail();
  if (view == kViewRemedy)
    lab_remedy_view(app);
  else if (view == kViewTable)
    table_rows_plot(r, learned->first(), size);
  else if (view == kViewKv)
    lab_kv_view(app);
  else if (view == kViewAttention)
    lab_attention_view(app);
  else if (view == 2)
    loss_plot(r, size);
  else
    accuracy_plot(r, size, view == 1);
}

}  // namespace

void show_lab(App& app) {
  // Settings on the left, plots on the right; on a phone the settings above the plots (the panel scrolls).
  const float scale = app.ui.scale;
  const bool narrow = app.ui.narrow;
  const float left = std::min(300.0f * scale, ImGui::GetContentRegionAvail().x * 0.4f);
  if (!narrow) ImGui::BeginChild("lab_settings", ImVec2(left, 0), false, kChildFlags);
  run_controls(app);            // Run first: always in view, however many settings follow
  if (narrow && app.lab.run) {  // one column: the results under Run, then the settings; the panel scrolls (its x too)
    summary_table(app.lab.run->result(), scale, summary_width() > ImGui::GetContentRegionAvail().x);
    summary_note(app.lab.run->result());
  }
  settings(app);
  if (!narrow) ImGui::EndChild();
  if (!narrow) ImGui::SameLine();
  ImGui::BeginChild("lab_plots", ImVec2(0, narrow ? 0.6f * ImGui::GetIO().DisplaySize.y : 0.0f), false, kChildFlags);
  if (!app.lab.run) {
    static const std::string intro = lab_intro();  // constant text, built once
    ImGui::TextWrapped("%s", intro.c_str());
  } else if (narrow) {
    views(app);
  } else {  // the results beside the plots, sized to their rows: every method and column shown whole
    status_line(app);
    const float results = std::min(summary_width(), 0.45f * ImGui::GetContentRegionAvail().x);
    ImGui::BeginChild("lab_results", ImVec2(results, 0), false, kChildFlags);
    summary_table(app.lab.run->result(), scale, false);
    summary_note(app.lab.run->result());
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("lab_views", ImVec2(0, 0), false, kChildFlags);
    views(app);
    ImGui::EndChild();
  }
  ImGui::EndChild();
}

std::string describe_lab(const App& app) {
  std::string out = "Lab panel: trains a tiny decoder with each chosen position method on the " +
                    std::string(lab_task_name(app.params.task)) + " task at sizes 1 to " +
                    std::to_string(app.params.train_len) + ", then tests sizes up to " +
                    std::to_string(4 * app.params.train_len) + ". " + lab_status(app) + ".";
  if (!app.lab.run) return out;
  const LabResult& r = app.lab.run->result();
  char a[24], b[24], lo[24], hi[24];
  const auto spread = [&](const LabBand& band) {  // " (seeds 44% to 52%)" with two or more seeds
    return band.runs < 2 ? std::string()
                         : std::string(" (seeds ") + format_percent(*band.lo, lo, sizeof lo) + " to " +
                               format_percent(*band.hi, hi, sizeof hi) + ")";
  };
  if (r.options.seeds > 1) out += " Each figure is the mean over " + std::to_string(r.options.seeds) + " seeds.";
  for (const LabMethodResult& m : r.methods) {
    const LabSummary s = lab_summary(m, r.options.train_len);
    const LabSummaryBands bands = lab_summary_bands(m, r.options.train_len);
    const LabSeedRun& first = m.first();
    out +=
        " " + std::string(position_method_name(m.method)) + ": exact match " +
        (s.inside ? std::string(format_percent(*s.inside, a, sizeof a)) + spread(bands.inside)
                  : std::string("none yet")) +
        " inside training, " +
        (s.near ? std::string(format_percent(*s.near, b, sizeof b)) + spread(bands.near) : std::string("no number")) +
        " just past it" + (m.error ? " (" + *m.error + ")" : std::string()) + "; trained " +
        format_count(bands.steps_lo) +
        (bands.steps_hi != bands.steps_lo ? " to " + format_count(bands.steps_hi) : std::string()) + " steps" +
        (m.reached_bar                       ? " (stopped at the bar)"
         : bands.steps_hi >= r.options.steps ? " (not every seed at the bar)"
                                             : "") +
        ".";
    if (const int trained = lab_trained_positions(r.options); int(first.table_row_change.size()) > trained)
      out += " Its table" + (m.runs.size() > 1 ? " (seed " + std::to_string(first.seed) + "'s run)" : std::string()) +
             " has " + std::to_string(first.table_row_change.size()) + " rows; rows " + std::to_string(trained) +
             " to " + std::to_string(first.table_row_change.size() - 1) + " were never trained: they moved " +
             format_sig(100 * first.table_row_change.back(), 3) + "% from their random init (weight decay alone: " +
             format_sig(100 * lab_decay_only_change(r.options, first.steps_run), 3) + "%), row 0 moved " +
             format_sig(100 * first.table_row_change.front(), 3) + "%.";
    if (m.accuracy_scaled.empty()) continue;
    const LabSummary z = lab_summary(m, r.options.train_len, true);
    char label[48];
    out += " " + std::string(lab_scaled_label(r.options, label, sizeof label)) + " (the same weights, scaled): " +
           (z.inside ? std::string(format_percent(*z.inside, a, sizeof a)) : std::string("none yet")) +
           " inside training, " +
           (z.near ? std::string(format_percent(*z.near, b, sizeof b)) : std::string("no number")) + " just past it.";
  }
  const std::string verdict = lab_past_verdict(r), remedy = describe_lab_remedy(app);
  if (!verdict.empty()) out += " " + verdict;
  return remedy.empty() ? out : out + " " + remedy;
}

}  // namespace rv
