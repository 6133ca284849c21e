// The lesson's two-panel picture, live (app/lesson/lesson_picture.hpp).
#include "app/lesson/lesson_picture.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/ui/theme.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {

namespace {
constexpr int kRows = 5;  // text rows a panel is laid out on

struct Canvas {
  ImDrawList* dl;
  ImVec2 o;    // the panel's top-left
  float w, h;  // its size
  float row() const { return h / kRows; }
  ImVec2 at(float fx, float frow) const { return ImVec2(o.x + fx * w, o.y + frow * row()); }
};

// A box with centred text at (fx, frow) of the panel, `fw` of its width wide.
ImVec2 box(const Canvas& c, float fx, float frow, float fw, const char* text, ImU32 colour, bool broken = false) {
  const ImVec2 centre = c.at(fx, frow);
  const ImVec2 half(fw * c.w * 0.5f, c.row() * 0.36f);
  const ImVec2 a(centre.x - half.x, centre.y - half.y), b(centre.x + half.x, centre.y + half.y);
  c.dl->AddRectFilled(a, b, broken ? IM_COL32(90, 22, 26, 255) : IM_COL32(38, 41, 48, 255), 4.0f);
  c.dl->AddRect(a, b, colour, 4.0f, 0, broken ? 2.0f : 1.0f);
  const ImVec2 ts = ImGui::CalcTextSize(text);
  c.dl->PushClipRect(a, b, true);
  c.dl->AddText(ImVec2(centre.x - std::min(ts.x, 2 * half.x - 6) * 0.5f, centre.y - ts.y * 0.5f), colour, text);
  c.dl->PopClipRect();
  return half;
}

// An arrow from p to q; a broken one is dashed and crossed.
void arrow(const Canvas& c, ImVec2 p, ImVec2 q, ImU32 colour, bool broken = false) {
  const ImVec2 d(q.x - p.x, q.y - p.y);
  const float len = std::sqrt(d.x * d.x + d.y * d.y);
  if (len < 1) return;
  const ImVec2 u(d.x / len, d.y / len);
  if (broken) {
    for (float t = 0; t < len - 8; t += 8)
      c.dl->AddLine(ImVec2(p.x + u.x * t, p.y + u.y * t), ImVec2(p.x + u.x * (t + 4), p.y + u.y * (t + 4)), colour, 2);
    const ImVec2 m(p.x + d.x * 0.5f, p.y + d.y * 0.5f);
    const float k = c.row() * 0.2f;
    c.dl->AddLine(ImVec2(m.x - k, m.y - k), ImVec2(m.x + k, m.y + k), colour, 2.5f);
    c.dl->AddLine(ImVec2(m.x - k, m.y + k), ImVec2(m.x + k, m.y - k), colour, 2.5f);
    return;
  }
  c.dl->AddLine(p, q, colour, 1.5f);
  const float k = std::max(4.0f, c.row() * 0.16f);
  c.dl->AddTriangleFilled(q, ImVec2(q.x - u.x * k - u.y * k * 0.6f, q.y - u.y * k + u.x * k * 0.6f),
                          ImVec2(q.x - u.x * k + u.y * k * 0.6f, q.y - u.y * k - u.x * k * 0.6f), colour);
}

void title(const Canvas& c, const char* text, ImU32 colour) {
  c.dl->AddText(ImVec2(c.o.x + 4, c.o.y + 2), colour, text);
}

// A line under the panel's drawing, wrapped to its width.
void footer(const Canvas& c, const char* text, ImU32 colour) {
  c.dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(c.o.x + 4, c.at(0, 4.1f).y), colour, text, nullptr,
                c.w - 8);
}

// The label that fits a box `fw` of the panel wide: the long one, else the short one.
const char* fit(const Canvas& c, float fw, const char* long_text, const char* short_text) {
  return ImGui::CalcTextSize(long_text).x + 8 <= fw * c.w ? long_text : short_text;
}

// A: token id -> E[token], p -> P[p], E + P -> blocks; past the table P[p] and the sum are broken.
void panel_a(const Canvas& c, const App& app) {
  const Params& p = app.params;
  const bool past = p.position >= p.max_position;
  char buf[96];
  title(c, "A  learned absolute (GPT-2): E[token] + P[p]", theme::kLearned);
  std::snprintf(buf, sizeof buf, "token id %lld", app.model.token);
  const ImVec2 h = box(c, 0.17f, 1.5f, 0.3f, buf, theme::kMuted);
  std::snprintf(buf, sizeof buf, "E[%lld]", app.model.token);
  box(c, 0.55f, 1.5f, 0.2f, buf, theme::kLearned);
  arrow(c, ImVec2(c.at(0.17f, 1.5f).x + h.x, c.at(0, 1.5f).y), ImVec2(c.at(0.45f, 1.5f).x, c.at(0, 1.5f).y),
        theme::kMuted);
  std::snprintf(buf, sizeof buf, "position p = %lld", p.position);
  box(c, 0.17f, 3.0f, 0.3f, buf, past ? theme::kError : theme::kMuted);
  std::snprintf(buf, sizeof buf, "P[%lld]", p.position);
  box(c, 0.55f, 3.0f, 0.2f, buf, past ? theme::kError : theme::kLearned, past);
  arrow(c, ImVec2(c.at(0.32f, 3.0f).x, c.at(0, 3.0f).y), ImVec2(c.at(0.45f, 3.0f).x, c.at(0, 3.0f).y),
        past ? theme::kError : theme::kMuted, past);
  const ImVec2 plus = c.at(0.75f, 2.25f);
  c.dl->AddCircle(plus, c.row() * 0.3f, theme::kLearned, 0, 1.5f);
  c.dl->AddText(ImVec2(plus.x - ImGui::CalcTextSize("+").x * 0.5f, plus.y - ImGui::GetTextLineHeight() * 0.5f),
                theme::kLearned, "+");
  arrow(c, ImVec2(c.at(0.65f, 1.5f).x, c.at(0, 1.5f).y), ImVec2(plus.x - c.row() * 0.3f, plus.y), theme::kLearned);
  arrow(c, ImVec2(c.at(0.65f, 3.0f).x, c.at(0, 3.0f).y), ImVec2(plus.x - c.row() * 0.3f, plus.y),
        past ? theme::kError : theme::kLearned, past);
  box(c, 0.92f, 2.25f, 0.13f, "blocks", past ? theme::kError : theme::kOk, past);
  arrow(c, ImVec2(plus.x + c.row() * 0.3f, plus.y), ImVec2(c.at(0.855f, 2.25f).x, plus.y),
        past ? theme::kError : theme::kLearned, past);
  std::snprintf(buf, sizeof buf,
                past ? "%d-row table: P[%lld] is out of range (IndexError)" : "%d-row table: row P[%lld] exists",
                p.max_position, p.position);
  footer(c, buf, past ? theme::kError : theme::kMuted);
}

// B: p -> angle m * theta_0 on a dial -> rotates Q and K pairs; V passes unchanged.
void panel_b(const Canvas& c, const App& app) {
  const Params& p = app.params;
  char buf[96];
  title(c, "B  RoPE (Llama 2): rotate Q and K by p * theta_i", theme::kRope);
  std::snprintf(buf, sizeof buf, "position p = %lld", p.position);
  box(c, 0.17f, 1.5f, 0.3f, buf, theme::kMuted);
  const double angle = app.model.angles.size() ? app.model.angles[0] : 0.0;
  const ImVec2 dial = c.at(0.5f, 2.0f);
  const float r = c.row() * 0.75f;
  c.dl->AddCircle(dial, r, theme::kGrid, 0, 1.0f);
  c.dl->AddLine(dial, ImVec2(dial.x + r, dial.y), theme::kMuted, 1.0f);
  const float a = float(std::fmod(angle, 6.283185307179586));
  c.dl->AddLine(dial, ImVec2(dial.x + r * std::cos(a), dial.y - r * std::sin(a)), theme::kRope, 2.0f);
  arrow(c, ImVec2(c.at(0.32f, 1.5f).x, c.at(0, 1.5f).y), ImVec2(dial.x - r - 2, dial.y), theme::kMuted);
  std::snprintf(buf, sizeof buf, "angle p * theta_0 = %s rad", format_sig(angle, 4).c_str());
  c.dl->AddText(ImVec2(dial.x - ImGui::CalcTextSize(buf).x * 0.5f, dial.y + r + 2), theme::kRope, buf);
  box(c, 0.86f, 1.0f, 0.22f, fit(c, 0.22f, "Q pairs rotated", "Q rotated"), theme::kRope);
  box(c, 0.86f, 2.0f, 0.22f, fit(c, 0.22f, "K pairs rotated", "K rotated"), theme::kKey);
  box(c, 0.86f, 3.0f, 0.22f, fit(c, 0.22f, "V unchanged", "V as is"), theme::kMuted);
  arrow(c, ImVec2(dial.x + r + 2, dial.y), ImVec2(c.at(0.75f, 1.0f).x, c.at(0, 1.0f).y), theme::kRope);
  arrow(c, ImVec2(dial.x + r + 2, dial.y), ImVec2(c.at(0.75f, 2.0f).x, c.at(0, 2.0f).y), theme::kRope);
  footer(c,
         fit(c, 1.0f, "formula: defined at any p, no table; a trained model past its length: Run it measures it",
             "formula: any p; past training? Run it measures"),
         theme::kMuted);
}
}  // namespace

namespace {
float row_height() {
  return ImGui::GetTextLineHeight() * 1.9f;
}
bool stacked(float width, float scale) {  // A above B when side by side would squeeze the boxes' text
  return width < 760.0f * scale;
}
}  // namespace

float lesson_picture_height(float width, float scale) {
  return row_height() * kRows * (stacked(width, scale) ? 2 : 1) + ImGui::GetStyle().ItemSpacing.y;
}

void draw_lesson_picture(const App& app, float width) {
  const bool one_above_other = stacked(width, app.ui.scale);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pw = one_above_other ? width : width * 0.5f - 4, ph = row_height() * kRows;
  panel_a({dl, o, pw, ph}, app);
  panel_b({dl, one_above_other ? ImVec2(o.x, o.y + ph) : ImVec2(o.x + width * 0.5f + 4, o.y), pw, ph}, app);
  if (!one_above_other)
    dl->AddLine(ImVec2(o.x + width * 0.5f, o.y), ImVec2(o.x + width * 0.5f, o.y + ph), theme::kGrid);
  ImGui::Dummy(ImVec2(width, lesson_picture_height(width, app.ui.scale) - ImGui::GetStyle().ItemSpacing.y));
}

void lesson_picture_text(const App& app, char* out, std::size_t size) {
  const Params& p = app.params;
  const bool past = p.position >= p.max_position;
  const double angle = app.model.angles.size() ? app.model.angles[0] : 0.0;
  std::snprintf(
      out, size,
      "Picture, panel A: token id %lld selects the learned token embedding E[%lld], and position p = %lld "
      "selects the learned position embedding P[%lld]; adding the vectors supplies the block input. With a "
      "%d-row position table, P[%lld] %s. Panel B: position %lld gives the angle %s rad (pair 0) that rotates "
      "the query and key feature pairs; values are not rotated. RoPE computes the angle at any position "
      "without a table; whether the model is useful beyond its training range must be measured.",
      app.model.token, app.model.token, p.position, p.position, p.max_position, p.position,
      past ? "is out of range (IndexError)" : "exists", p.position, format_sig(angle, 4).c_str());
}

}  // namespace rv
