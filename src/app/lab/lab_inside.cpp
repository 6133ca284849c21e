// Inside a trained lab model: attention maps per head for one sequence of a chosen size, and a KV-cache decode
// checked step by step against a full recompute (core's decoder_attention and kv_cache_check on the run's weights).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/lab/lab_views.hpp"
#include "app/lab/lab_session.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr std::uint64_t inspect_seed = 0x5EED;  // the one sequence shown (the same for every method)

// The whole sequence of size n the views show (the model reads all but its last token), and the prompt a decode
// starts from (copy / reverse: x1..xn SEP).
std::vector<long long> inspect_sequence(LabTask t, int n) {
  const LabBatch b = make_lab_batch(t, n, 1, inspect_seed);
  std::vector<long long> full = b.tokens[0];
  full.push_back(b.targets[0].back());
  return full;
}
int prompt_length(LabTask t, int n) {
  return t == LabTask::Repeat ? kRepeatPeriod : n + 1;
}

// Method, size and (attention) layer pickers; recomputes the view's numbers when one changes.
void pickers(App& app, bool layers) {
  LabInspect& in = app.lab.inspect;
  const LabEngine& run = *app.lab.run;
  const auto& trained = run.trained();
  const LabOptions& o = run.result().options;
  in.method = std::clamp(in.method, 0, int(trained.size()) - 1);
  ImGui::SetNextItemWidth(130 * app.ui.scale);
  if (ImGui::BeginCombo("model", position_method_name(trained[size_t(in.method)].method))) {
    for (int i = 0; i < int(trained.size()); ++i)
      if (ImGui::Selectable(position_method_name(trained[size_t(i)].method), i == in.method)) in.method = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  in.n = std::clamp(in.n, 1, 4 * o.train_len);
  ImGui::SetNextItemWidth(160 * app.ui.scale);
  ImGui::SliderInt("size n", &in.n, 1, 4 * o.train_len);
  record_rect(app.ui, "inspect_n");
  if (!layers) return;
  in.layer = std::clamp(in.layer, 0, o.layers - 1);
  for (int j = 0; j < o.layers; ++j) {
    ImGui::SameLine();
    char label[24];
    std::snprintf(label, sizeof label, "layer %d", j);
    if (ImGui::RadioButton(label, in.layer == j)) in.layer = j;
  }
}

// Rebuilds what the current pickers show when they changed (not every frame).
void refresh(App& app, bool kv) {
  LabInspect& in = app.lab.inspect;
  const LabEngine& run = *app.lab.run;
  const LabOptions& o = run.result().options;
  if (in.built_serial == app.lab.serial && in.built_method == in.method && in.built_n == in.n && in.built_kv == kv)
    return;
  in.built_serial = app.lab.serial;
  in.built_method = in.method;
  in.built_n = in.n;
  in.built_kv = kv;
  const LabTrained& t = run.trained()[size_t(in.method)];
  in.sequence = inspect_sequence(o.task, in.n);
  in.tokens.assign(in.sequence.begin(), in.sequence.end() - 1);
  in.error.clear();
  in.maps.clear();
  in.kv.reset();
  if (kv) {
    const int prompt = prompt_length(o.task, in.n);
    const std::vector<long long> head(in.sequence.begin(), in.sequence.begin() + prompt);
    const auto check = kv_cache_check(t.config, t.weights, head, int(in.sequence.size()) - prompt);
    if (check)
      in.kv = *check;
    else
      in.error = check.error().full();
    return;
  }
  const auto maps = decoder_attention(t.config, t.weights, in.tokens);
  if (maps)
    in.maps = *maps;
  else
    in.error = maps.error().full();
}

const char* token_text(long long t) {
  static const char* names[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "SEP"};
  return t >= 0 && t < kLabVocab ? names[t] : "?";
}

// The decoded sequence in one line: the prompt grey, each generated token green when it is the task's answer.
void decoded_line(const KvCheck& kv, const std::vector<long long>& expected) {
  ImGui::TextDisabled("decoded:");
  for (std::size_t p = 0; p < kv.tokens.size(); ++p) {
    ImGui::SameLine();
    const bool prompt = (long long)p < kv.prompt_length;
    const bool right = p < expected.size() && kv.tokens[p] == expected[p];
    ImGui::TextColored(theme::vec(prompt  ? theme::kMuted
                                  : right ? theme::kOk
                                          : theme::kError),
                       "%s", token_text(kv.tokens[p]));
  }
}

}  // namespace

void lab_attention_view(App& app) {
  pickers(app, true);
  refresh(app, false);
  const LabInspect& in = app.lab.inspect;
  if (!in.error.empty()) return error_box("No attention map for this size", in.error);
  if (in.maps.empty()) return;
  const auto& heads = in.maps[size_t(std::clamp(in.layer, 0, int(in.maps.size()) - 1))];
  const int T = int(in.tokens.size()), n_heads = int(heads.size());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float side = std::max(
      24.0f, std::min((avail.x - gap * (n_heads - 1)) / n_heads, avail.y - 2 * ImGui::GetTextLineHeightWithSpacing()));
  for (int h = 0; h < n_heads; ++h) {
    if (h) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("head %d", h);
    const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + side, a.y + side);
    const RowMat<float>& map = heads[size_t(h)];
    const auto [i, j] = cell_heatmap(a, b, T, T, -1.0f, 1.0f,
                                     [&map](int r, int c) { return c > r ? std::nan("") : double(map(r, c)); });
    ImGui::Dummy(ImVec2(side, side));
    if (i >= 0 && j <= i)
      tooltip("head %d: query %d (%s) puts %s of its attention on key %d (%s)", h, i, token_text(in.tokens[size_t(i)]),
              format_sig(map(i, j), 3).c_str(), j, token_text(in.tokens[size_t(j)]));
    ImGui::EndGroup();
  }
  ImGui::TextDisabled("query down, key across, %d tokens; gold = more attention", T);
}

void lab_kv_view(App& app) {
  pickers(app, false);
  refresh(app, true);
  const LabInspect& in = app.lab.inspect;
  if (!in.error.empty()) return error_box("No decode at this size", in.error);
  if (!in.kv) return;
  const KvCheck& kv = *in.kv;
  const bool rope = app.lab.run->trained()[size_t(in.method)].method == PositionMethod::Rope;
  ImGui::PushTextWrapPos(0);
  ImGui::Text("Greedy decode with a KV cache: worst |cached - full recompute| %s of the logits%s.",
              format_sig(kv.worst_logit_diff, 2).c_str(),
              rope ? (", cached keys vs RoPE(k, own position): " + format_sig(kv.worst_key_diff, 2)).c_str() : "");
  ImGui::TextDisabled(
      rope ? "Each key is rotated once, at its own position p, before it is cached; a later query "
             "rotates only itself. Rotating a cached key again would rotate it by its position twice "
             "(by 2p): the last column is how far that key would then be from RoPE(k, p), relative to |k|."
           : "Only RoPE rotates the keys by their position, so only RoPE's cache must not be rotated "
             "again. This method's keys still carry position: learned and sinusoidal add it to the "
             "input, so k = W_k (x + P[p]); ALiBi and T5 add a bias to the score, and in later layers "
             "a causal model's keys can carry position even with ALiBi or none (Haviv et al. 2022). "
             "The cache stores the keys as computed; nothing is rotated.");
  if (kv.error) ImGui::TextColored(theme::vec(theme::kError), "%s", kv.error->full().c_str());
  ImGui::PopTextWrapPos();
  decoded_line(kv, in.sequence);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("kv_steps", rope ? 5 : 3, flags, ImGui::GetContentRegionAvail())) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* name : {"position", "token", "logits vs recompute"}) ImGui::TableSetupColumn(name);
  if (rope) {
    ImGui::TableSetupColumn("key vs RoPE(k, p)");
    ImGui::TableSetupColumn("if rotated again");
  }
  ImGui::TableHeadersRow();
  for (const KvCheckStep& s : kv.steps) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%lld", s.position);
    ImGui::TableNextColumn();
    const bool right = !s.generated || s.token == in.sequence[size_t(s.position)];
    ImGui::TextColored(theme::vec(!s.generated ? theme::kMuted
                                  : right      ? theme::kOk
                                               : theme::kError),
                       "%s%s", token_text(s.token), s.generated ? (right ? " (right)" : " (wrong)") : " (prompt)");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_sig(s.logit_diff, 2).c_str());
    if (!rope) continue;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_sig(s.key_diff, 2).c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(theme::vec(s.rotated_twice > 1e-3 ? theme::kError : theme::kMuted), "%s",
                       format_sig(s.rotated_twice, 2).c_str());
  }
  ImGui::EndTable();
}

}  // namespace rv
