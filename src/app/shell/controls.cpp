// The controls column: the lesson and Reset, the model picker, the position (slider, Play, m and n), the learned
// table's and RoPE's parameters, the shapes, the exports and the notes; every value goes through its key's rules
// (app/state/params.hpp) so limits and notes apply. Panels hold the keys only they use (scaling, offsets, the lab's).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "app/shell/shell.hpp"
#include "app/state/export.hpp"
#include "app/state/lesson.hpp"
#include "app/state/notes.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
#include "app/ui/keyboard.hpp"
#include "app/lesson/lesson_box.hpp"
#include "app/ui/play.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/models/presets.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr const char* kFreeParameters = "none (free parameters)";

// The model picker: a preset's config.json sets the fields it decides; its source shows on hover.
// Real weights (docs/real-weights.md): what is loaded and "none"; on the page, the picker, the Hub's repo field and
// a read's progress with Stop.
void weights_control(App& app) {
  Params& p = app.params;
  WeightsLoad& load = app.ui.weights_load;
  if (p.weights) {
    const LoadedWeights& w = *p.weights;
    if (w.table)
      ImGui::TextWrapped("weights: %s (%s is the learned table)", w.label.c_str(), w.table->tensor.c_str());
    else
      ImGui::TextWrapped("weights: %s (no learned table)", w.label.c_str());
    if (ImGui::SmallButton("none##weights")) unload_weights(p, app.ui.notes);
    record_rect(app.ui, "weights_none");
  }
  if (!app.ui.can_open_files) {
    ImGui::PushTextWrapPos(0.0f);  // the whole hint, wrapped in a narrow column
    ImGui::TextDisabled("drop a model.safetensors here, or --weights FILE");
    ImGui::PopTextWrapPos();
    return;
  }
  if (load.active) {
    char line[96];
    std::snprintf(line, sizeof line, "%s / %s bytes", format_count((long long)load.done).c_str(),
                  format_count((long long)load.total).c_str());
    ImGui::ProgressBar(load.total ? float(double(load.done) / double(load.total)) : 0.0f, ImVec2(-80, 0), line);
    ImGui::SameLine();
    if (ImGui::SmallButton("Stop##weights")) load.stop = true;
    record_rect(app.ui, "weights_stop");
    ImGui::TextDisabled("reading %s", load.what.c_str());
    return;
  }
  if (ImGui::SmallButton("load weights")) load.pending_open = true;
  record_rect(app.ui, "load_weights");
  formula_tip(
      "A checkpoint's .safetensors (or model.safetensors.index.json and its shards), with its config.json: "
      "only the header and the tensors needed are read. GPT-2's wpe.weight is a learned table; drop the files "
      "or pick them.");
  // the field leaves room for "fetch" and its "(?)" on the same line, at any font scale
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::SetNextItemWidth(-(ImGui::CalcTextSize("fetch").x + ImGui::CalcTextSize("(?)").x + 2 * style.FramePadding.x +
                            2 * style.ItemSpacing.x + 2.0f));
  ImGui::InputText("##hub", load.repo, sizeof load.repo);
  record_rect(app.ui, "hub_repo");
  ImGui::SameLine();
  if (ImGui::SmallButton("fetch")) load.pending_fetch = true;
  record_rect(app.ui, "hub_fetch");
  formula_tip(
      "A Hugging Face Hub repo id (openai-community/gpt2, facebook/opt-125m, google-bert/bert-base-uncased): "
      "its config.json, then the index or model.safetensors' header, then only the tensors needed, by "
      "single-range GET requests to huggingface.co. Nothing is requested until you press fetch.");
  record_rect(app.ui, "hub_tip");
}

void model_control(App& app) {
  Params& p = app.params;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.72f);
  const char* shown = p.model.empty()                       ? kFreeParameters
                      : p.model == kLoadedModel && p.loaded ? p.loaded->label.c_str()
                                                            : p.model.c_str();
  if (ImGui::BeginCombo("model", shown)) {
    if (ImGui::Selectable(kFreeParameters, p.model.empty())) set(p, keys::model, "none", app.ui.notes);
    if (p.loaded && ImGui::Selectable(p.loaded->label.c_str(), p.model == kLoadedModel))
      set(p, keys::model, kLoadedModel, app.ui.notes);
    for (const Preset& preset : presets()) {
      if (ImGui::Selectable(preset.name, p.model == preset.name)) set(p, keys::model, preset.name, app.ui.notes);
      if (ImGui::IsItemHovered()) tooltip("%s", preset.source);
    }
    ImGui::EndCombo();
  }
  record_rect(app.ui, "model");
  formula_tip(
      "A real model's positional encoding, from its published config.json: head_dim, the rotated part "
      "(partial_rotary_factor, rotary_pct, rotary_dim), rope_theta, rope_scaling and max_position_embeddings, read "
      "as Hugging Face transformers does. The fields it decides are greyed out; 'none' frees them. 'lesson' is the "
      "lesson's toy (d_head 8, 10 table rows).");
  if (app.ui.can_open_files) {
    if (ImGui::SmallButton("load config.json")) app.ui.pending_open_config = true;
    record_rect(app.ui, "load_config");
    ImGui::SameLine();
    ImGui::TextDisabled("or drop / paste one");
  } else {
    ImGui::TextDisabled("drop a config.json here, or --config FILE");
  }
  const Model& model = app.model;
  if (model.real) ImGui::TextDisabled("from %s", model.real->source.c_str());
  if (!model.model_error.empty()) ImGui::TextColored(theme::vec(theme::kError), "%s", model.model_error.c_str());
  weights_control(app);
}

// A link key's number field: its label (the key unless named otherwise) and, on hover, its table row's help text
// (app/state/params.cpp), with `more` after it where this control does more.
void int_control(App& app, TypedKey<double> key, long long value, long long step, const char* label = nullptr,
                 const char* more = nullptr) {
  number_field(app, label ? label : field(key.key).key, key, double(value), double(step));
  formula_tip(field(key.key).help, more);
}

void base_control(App& app) {
  number_field(app, "base", keys::base, app.params.base, 0);
  formula_tip(field(Key::base).help,
              "10000 in the original RoPE and Llama 2; 500000 in Llama 3; 1000000 in several long-context models.");
  const ModelLock lock(app, Key::base);
  for (double preset : {10000.0, 500000.0, 1000000.0}) {
    if (preset != 10000.0) ImGui::SameLine();
    std::string label = preset == 10000.0 ? "10k" : preset == 500000.0 ? "500k" : "1M";
    if (ImGui::SmallButton(label.c_str())) set(app.params, keys::base, preset, app.ui.notes);
  }
}

void pairing_control(App& app) {
  const ModelLock lock(app, Key::pairing);
  // The box shows the short name, wide enough for either; the list adds who uses each.
  const float need = std::max(ImGui::CalcTextSize(pairing_name(Pairing::Interleaved)).x,
                              ImGui::CalcTextSize(pairing_name(Pairing::HalfSplit)).x) +
                     2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetFrameHeight();
  // Narrow panes (800 px at scale 2) put the name above the box so neither is clipped.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize("pairing").x + ImGui::GetStyle().ItemInnerSpacing.x;
  const bool label_inline = need + label_w <= avail;
  if (!label_inline) ImGui::TextUnformatted("pairing");
  const float w = label_inline ? std::min(avail - label_w, std::max(avail * 0.55f, need)) : avail;
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo(label_inline ? "pairing" : "##pairing", pairing_name(app.params.pairing))) {
    for (Pairing choice : {Pairing::Interleaved, Pairing::HalfSplit}) {
      const char* who = choice == Pairing::Interleaved ? "interleaved (Llama)" : "half_split (NeoX / HF)";
      if (ImGui::Selectable(who, app.params.pairing == choice)) set(app.params, keys::pairing, choice, app.ui.notes);
    }
    ImGui::EndCombo();
  }
  record_rect(app.ui, "pairing");
  app.ui.rects["pairing_frame"] = Rect{ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, w,
                                       ImGui::GetItemRectSize().y};  // the box alone, without its name
  formula_tip(
      "Which coordinates rotate together. interleaved: (x[2i], x[2i+1]) as in Meta's Llama "
      "(view_as_complex). half_split: (x[i], x[i + d/2]) as in GPT-NeoX and Hugging Face rotate_half.");
}

// Arrow keys step the position (shift: x10) when no text field has the keyboard.
void position_keys(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsAnyItemActive() || keyboard_navigating()) return;  // Tab's arrows move the focus
  const long long step = io.KeyShift ? 10 : 1;
  long long m = app.params.position;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) m += step;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) m -= step;
  if (m != app.params.position) set(app.params, keys::position, double(std::max(0LL, m)), app.ui.notes);
}

// The guided lesson and the one-click reset to the lesson's defaults.
void learn_row(App& app) {
  if (ImGui::SmallButton(app.params.lesson > 0 ? "Restart lesson###lesson" : "Lesson###lesson")) start_lesson(app);
  record_rect(app.ui, "lesson_start");
  ImGui::SameLine();
  if (ImGui::SmallButton("Reset")) reset_to_lesson(app);
  record_rect(app.ui, "reset");
  formula_tip(
      "Lesson: a guided walk through the lesson's sections, each step setting the view and saying what to look at "
      "(links: #lesson=K). Reset: every parameter back to the lesson's defaults (its dims, table and position), no "
      "model.");
}

// Buttons that hand a file to the platform seam: a download in the browser, a file on the desktop.
void show_exports(App& app) {
  ImGui::Spacing();
  ImGui::TextDisabled("Export");
  struct Item {
    const char* label;
    const char* id;
    ExportFile (*make)(const App&);
  };
  const Item items[] = {{"angles.csv", "export_angles", export_angles_csv},
                        {"score.csv", "export_score", export_score_csv},
                        {"state.json", "export_state", export_state_json}};
  for (const Item& item : items) {
    if (item.make != export_angles_csv) ImGui::SameLine();
    if (ImGui::SmallButton(item.label)) app.ui.pending_exports = {item.make(app)};
    record_rect(app.ui, item.id);
  }
  formula_tip(
      "angles.csv: per pair i, theta_i, m*theta_i, its value mod 2pi, the wavelength and the pairs of q "
      "(before and after RoPE) and k. score.csv: the score against the offset m - n at two anchors. "
      "state.json: everything window.ropeviz.state() reports. Numbers are exact (shortest round-trip). "
      "picture.png: the window as drawn, at its full pixel size.");
  if (ImGui::SmallButton("picture.png")) {
    app.ui.pending_picture = true;
    app.ui.picture_panel.clear();
  }
  record_rect(app.ui, "export_picture");
  ImGui::SameLine();
  if (ImGui::SmallButton("copy link")) app.ui.pending_copy_link = true;
  record_rect(app.ui, "copy_link");
  formula_tip(
      "Copies a link to this exact view: the page's address in the browser (the view lives in its #hash), "
      "a 'ropeviz --state ...' command on the desktop.");
}

}  // namespace

void position_control(App& app) {
  Params& p = app.params;
  long long m = p.position;
  if (position_slider("position", &m, p.max_position, pre_extension_length(app), ImGui::GetContentRegionAvail().x,
                      theme::kRope))
    set(p, keys::position, double(m), app.ui.notes);
  record_rect(app.ui, "position");
}

void show_controls(App& app) {
  Params& p = app.params;
  learn_row(app);
  model_control(app);
  ImGui::Spacing();
  ImGui::TextColored(theme::vec(theme::kRope), "Position");
  if (!app.ui.narrow) position_control(app);  // a phone shows it above the sheet, always
  show_play_controls(app);
  position_keys(app);
  int_control(app, keys::position, p.position, 1, "m", "Arrow keys step it, shift x10.");
  int_control(app, keys::key_position, p.key_position, 1, "n (key)");

  ImGui::Spacing();
  ImGui::TextColored(theme::vec(theme::kLearned), "Learned table");
  int_control(app, keys::max_position, p.max_position, 1);

  ImGui::Spacing();
  ImGui::TextColored(theme::vec(theme::kRope), "RoPE");
  int_control(app, keys::d_head, p.d_head, 2);
  base_control(app);
  pairing_control(app);

  ImGui::Spacing();
  ImGui::TextDisabled("Shapes");
  int_control(app, keys::heads, p.heads, 1, "h (heads)");
  int_control(app, keys::batch, p.batch, 1, "B (batch)");
  int_control(app, keys::seq_len, p.seq_len, 1, "T (tokens)");
  int_control(app, keys::vocab, p.vocab, 1, "V (vocab)");
  int_control(app, keys::seed, (long long)p.seed, 1);
  enforce_limits(p, app.ui.notes);
  show_exports(app);
}

void show_notes(App& app) {
  const Ui& ui = app.ui;  // merged, counted and trimmed once per frame by tidy_notes (app.cpp)
  if (ui.notes.empty()) return;
  for (size_t i = 0; i < ui.notes.size(); ++i) {
    const std::string& note = ui.notes[i];
    const bool info = note_kind(note) == NoteKind::Info;
    ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(info ? theme::kOk : theme::kLearned));
    const auto repeats = ui.note_repeats.find(note);
    const int count = repeats == ui.note_repeats.end() ? 1 : repeats->second;
    if (count > 1)
      ImGui::TextWrapped("%s %s (×%d)", info ? "Done:" : "Note:", note.c_str(), count);
    else
      ImGui::TextWrapped("%s %s", info ? "Done:" : "Note:", note.c_str());
    ImGui::PopStyleColor();
    // the list the note stands for (a checkpoint's tensors), closed until asked for
    const auto details = ui.note_details.find(note);
    if (details == ui.note_details.end()) continue;
    const NoteDetails& d = details->second;
    ImGui::PushID(int(i));
    const bool open = ImGui::TreeNode("details", "%s", d.label.c_str());
    record_rect(app.ui, "note_details");
    if (open) {
      ImGui::TextWrapped("%s", d.text.c_str());
      for (const std::string& line : d.lines) ImGui::TextUnformatted(line.c_str());
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
  if (ImGui::SmallButton("Dismiss notes")) {
    app.ui.notes.clear();
    app.ui.note_repeats.clear();
    app.ui.note_details.clear();
  }
}

}  // namespace rv
