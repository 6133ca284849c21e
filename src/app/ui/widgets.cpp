// Custom widgets: position slider with table marker, number fields, model lock, rect recording, tooltips, error box.
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/state/params.hpp"
#include "app/ui/theme.hpp"
#include "core/base/format.hpp"
#include "imgui_internal.h"

namespace rv {

PositionScale PositionScale::for_table(int max_position) {
  double lin_end = std::max(20.0, 2.0 * max_position);
  double reach = std::max(1e6, 20.0 * max_position);
  return {lin_end, reach};
}

double PositionScale::to_u(double position) const {
  if (position <= lin_end) return 0.5 * std::max(0.0, position) / lin_end;
  return 0.5 + 0.5 * std::log(std::min(position, reach) / lin_end) / std::log(reach / lin_end);
}

long long PositionScale::to_position(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  if (u <= 0.5) return std::llround(2.0 * u * lin_end);
  return std::llround(lin_end * std::pow(reach / lin_end, 2.0 * u - 1.0));
}

float position_slider_inset() {
  return ImGui::GetFrameHeight() * 0.5f;
}

namespace {

// "10⁶" for powers of ten from 10^5 on, plain digits below.
void tick_label(double v, char* out, size_t size) {
  static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  const int k = int(std::lround(std::log10(std::max(v, 1.0))));
  if (v >= 1e5 && std::pow(10.0, k) == v) {
    std::snprintf(out, size, "10%s%s", k >= 10 ? digits[k / 10] : "", digits[k % 10]);
    return;
  }
  std::snprintf(out, size, v >= 1e5 ? "%.2g" : "%.0f", v);
}

// Tick labels under the track: 0, max_position (amber), the end of the linear part, the reach.
void slider_ticks(ImDrawList* dl, float x0, float x1, float y, const PositionScale& scale, int max_position,
                  long long original) {
  struct Tick {
    double position;
    ImU32 colour;
  };
  const Tick ticks[] = {{0.0, theme::kMuted},
                        {double(max_position), theme::kLearned},
                        {double(original), theme::kRope},
                        {scale.lin_end, theme::kMuted},
                        {scale.reach, theme::kMuted}};
  float last_right = -1e30f;
  for (const Tick& t : ticks) {
    if (t.colour == theme::kRope && (original <= 0 || original == max_position)) continue;
    char label[32];
    tick_label(t.position, label, sizeof label);
    const float w = ImGui::CalcTextSize(label).x;
    const float x = x0 + float(scale.to_u(t.position)) * (x1 - x0);
    const float left = std::clamp(x - 0.5f * w, x0 - 4.0f, x1 + 4.0f - w);
    if (left < last_right + 6.0f) continue;  // keep labels apart; the table marker wins over later ones
    dl->AddText(ImVec2(left, y), t.colour, label);
    last_right = left + w;
  }
}

}  // namespace

bool position_slider(const char* id, long long* position, int max_position, long long original, float width,
                     ImU32 accent) {
  const PositionScale scale = PositionScale::for_table(max_position);
  const float track_h = ImGui::GetFrameHeight() * 1.4f;
  const float label_h = ImGui::GetTextLineHeight();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(width, track_h + label_h));
  const bool active = ImGui::IsItemActive();
  const float pad = position_slider_inset();
  const float x0 = p0.x + pad, x1 = p0.x + width - pad, yc = p0.y + track_h * 0.5f;
  bool changed = false;
  if (active && x1 > x0 && ImGui::IsMousePosValid()) {  // a drag (Space on the focused slider holds no mouse)
    const double u = (ImGui::GetIO().MousePos.x - x0) / (x1 - x0);
    const long long next = scale.to_position(u);
    if (next != *position) {
      *position = next;
      changed = true;
    }
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float thick = std::max(2.0f, track_h * 0.12f);
  const float table_x = x0 + float(scale.to_u(max_position)) * (x1 - x0);
  const float mid_x = x0 + 0.5f * (x1 - x0);
  dl->AddRectFilled(ImVec2(x0, yc - thick), ImVec2(x1, yc + thick), ImGui::GetColorU32(ImGuiCol_FrameBg), thick);
  dl->AddRectFilled(ImVec2(x0, yc - thick), ImVec2(table_x, yc + thick), theme::kLearned & 0x80FFFFFF, thick);
  dl->AddLine(ImVec2(table_x, p0.y + 2), ImVec2(table_x, p0.y + track_h), theme::kLearned, 2.0f);
  dl->AddLine(ImVec2(mid_x, yc + thick), ImVec2(mid_x, yc + 3 * thick), theme::kMuted);
  if (original > 0) {  // a model's original_max_position_embeddings, its length before extension
    const float original_x = x0 + float(scale.to_u(double(original))) * (x1 - x0);
    dl->AddLine(ImVec2(original_x, yc - 3 * thick), ImVec2(original_x, yc + 3 * thick), theme::kRope, 2.0f);
  }
  slider_ticks(dl, x0, x1, p0.y + track_h, scale, max_position, original);
  const float knob_x = x0 + float(scale.to_u(double(*position))) * (x1 - x0);
  const bool past = *position >= max_position;
  dl->AddCircleFilled(ImVec2(knob_x, yc), track_h * 0.32f, past ? theme::kError : accent);
  if (ImGui::IsItemHovered() || active) {
    char reach[32];
    tick_label(scale.reach, reach, sizeof reach);
    char original_words[64] = "";
    if (original > 0) std::snprintf(original_words, sizeof original_words, "; %lld before extension", original);
    tooltip("m = %lld   (learned table ends at max_position = %d%s; linear to %.0f, then log to %s)", *position,
            max_position, original_words, scale.lin_end, reach);
  }
  return changed;
}

void record_rect(Ui& ui, std::string_view name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  auto at = ui.rects.find(name);  // found without a std::string: a long name allocates only when first recorded
  if (at == ui.rects.end()) at = ui.rects.emplace(std::string(name), Rect{}).first;
  at->second = Rect{a.x, a.y, b.x - a.x, b.y - a.y};
}

void same_line_if_fits(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
  if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

void hover_tip(const char* text, const char* more) {
  if (!ImGui::IsItemHovered()) return;
  begin_tooltip();
  ImGui::TextUnformatted(text);
  if (more) ImGui::TextUnformatted(more);
  end_tooltip();
}

void key_tip(const char* key, const char* more) {
  hover_tip(find_field(key)->help, more);
}

void formula_tip(const char* text, const char* more) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  hover_tip(text, more);
}

void error_box(const char* title, const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(70, 20, 24, 255));
  ImGui::PushStyleColor(ImGuiCol_Border, theme::kError);
  ImGui::PushStyleVar(ImGuiStyleVar_ChildBorderSize, 2.0f);
  const float h = ImGui::GetTextLineHeightWithSpacing() * 3.2f;
  ImGui::BeginChild(title, ImVec2(0, h), true, ImGuiWindowFlags_NoScrollbar | kChildFlags);
  ImGui::TextColored(theme::vec(theme::kError), "%s", title);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);
}

ModelLock::ModelLock(const App& app, Key key) : locked(model_bound(app.params, field(key).key)) {
  if (locked) ImGui::BeginDisabled();
}
ModelLock::~ModelLock() {
  if (locked) ImGui::EndDisabled();
}

void commit_typed(App& app, Key k, const char* text, const char* shown, bool enter) {
  const char* key = field(k).key;
  // The live text is kept while the field is active: when another widget takes the focus, this field is no
  // longer active on its last frame and ImGui hands its text back no more.
  // Escape (ImGui restores the text) drops it.
  std::map<std::string, std::string>& edits = app.ui.field_edits;
  if (ImGui::IsItemActive()) edits[key] = text;
  if (enter || ImGui::IsItemDeactivated()) {
    const auto pending = edits.find(key);
    const std::string typed = enter || pending == edits.end() ? std::string(text) : pending->second;
    if (pending != edits.end()) edits.erase(pending);
    const bool escaped = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    if (!escaped && typed != shown) set_param(app.params, key, typed, app.ui.notes);
  }
}

// typing 2048 into max_position must not pass through 2 and 20 (so no per-keystroke apply)
void number_field(App& app, const char* label, TypedKey<double> k, double value, double step) {
  const char* key = field(k.key).key;
  const ModelLock lock(app, k.key);
  const std::string shown = format_number(value);
  char text[64];  // while the field is active ImGui keeps the live text and copies it back here every frame
  std::snprintf(text, sizeof text, "%s", shown.c_str());
  const ImGuiStyle& style = ImGui::GetStyle();
  const float button = ImGui::GetFrameHeight();
  ImGui::PushID(key);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f -
                          (step > 0 ? 2 * (button + style.ItemInnerSpacing.x) : 0));
  const bool enter = ImGui::InputText(
      "##value", text, sizeof text,
      ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
  commit_typed(app, k.key, text, shown.c_str(), enter);
  // the slider owns the name "position"; its exact-value box is "position_input"
  record_rect(app.ui, std::string(key) == "position" ? "position_input" : key);
  if (step > 0) {
    const double by = ImGui::GetIO().KeyShift ? 10 * step : step;
    ImGui::SameLine(0, style.ItemInnerSpacing.x);
    if (ImGui::Button("-", ImVec2(button, button))) set(app.params, k, value - by, app.ui.notes);
    record_rect(app.ui, std::string(key) + "-");  // names stay short (no allocation per frame)
    ImGui::SameLine(0, style.ItemInnerSpacing.x);
    if (ImGui::Button("+", ImVec2(button, button))) set(app.params, k, value + by, app.ui.notes);
    record_rect(app.ui, std::string(key) + "+");
  }
  ImGui::PopID();
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  ImGui::TextUnformatted(label);
}

}  // namespace rv
