// Headless ImGui harness for the UI tests (see headless.hpp).
#include "headless.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "imgui_config.hpp"

namespace rv::test {

Headless::Headless(float width, float height, float scale) {
  context_ = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(width, height);
  io.DeltaTime = 1.0f / 60.0f;
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k;  // identity key map, as a backend would set
  app.ui.scale = scale;
  theme::apply(scale);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // what a renderer would upload
}

Headless::~Headless() {
  ImGui::DestroyContext(context_);
}

std::vector<std::string> Headless::set_state(const std::string& query) {
  std::vector<std::string> notes;
  apply_query(app.params, query, notes);
  return notes;
}

int Headless::frames_while_lab_runs(int max_frames, double slice_ms) {
  int n = 0;
  for (; app.lab.running && n < max_frames; ++n) {
    if (app.lab.run->background())
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    else
      lab_tick(app, slice_ms);
    frame();
  }
  return n;
}

void Headless::resize(float width, float height) {
  ImGui::GetIO().DisplaySize = ImVec2(width, height);
}

void Headless::frame() {
  ImGui::NewFrame();
  rv::frame(app);
  ImGui::Render();
}

std::string Headless::frame_text() {
  frame();
  return drawn_text();
}

std::string Headless::drawn_text() {
  // Every glyph quad of the font atlas, by its top-left texture coordinate.
  std::map<std::pair<float, float>, const ImFontGlyph*> glyphs;
  for (const ImFont* font : ImGui::GetIO().Fonts->Fonts)
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) glyphs[{g.U0, g.V0}] = &g;
  std::string text;
  float line_y = -1e9f, next_x = 0, space = 0;
  const ImDrawData* data = ImGui::GetDrawData();
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList& list = *data->CmdLists[l];
    const ImVector<ImDrawVert>& v = list.VtxBuffer;
    // Each vertex's clip rectangle, from the command that draws it: a glyph outside it is not seen.
    std::vector<ImVec4> clip(size_t(v.Size), ImVec4(0, 0, 0, 0));
    for (const ImDrawCmd& cmd : list.CmdBuffer)
      for (unsigned int k = 0; k < cmd.ElemCount; ++k)
        clip[size_t(list.IdxBuffer[int(cmd.IdxOffset + k)] + cmd.VtxOffset)] = cmd.ClipRect;
    for (int i = 0; i + 3 < v.Size; ++i) {
      const auto it = glyphs.find({v[i].uv.x, v[i].uv.y});
      if (it == glyphs.end()) continue;
      const ImFontGlyph& g = *it->second;
      if (v[i + 2].uv.x != g.U1 || v[i + 2].uv.y != g.V1 || g.Y1 <= g.Y0) continue;  // not a whole glyph quad
      const ImVec4& box = clip[size_t(i)];
      const float mid_x = 0.5f * (v[i].pos.x + v[i + 2].pos.x), mid_y = 0.5f * (v[i].pos.y + v[i + 2].pos.y);
      if (mid_x < box.x || mid_x > box.z || mid_y < box.y || mid_y > box.w) {
        i += 3;  // clipped away: drawn, not seen
        continue;
      }
      const float scale = (v[i + 2].pos.y - v[i].pos.y) / (g.Y1 - g.Y0);
      const float origin_x = v[i].pos.x - g.X0 * scale, origin_y = v[i].pos.y - g.Y0 * scale;
      if (std::abs(origin_y - line_y) > 0.5f || origin_x < next_x - 0.5f * space) {
        if (!text.empty()) text += '\n';
      } else if (origin_x > next_x + 0.3f * space) {
        text += ' ';  // spaces draw no quad: a gap of a third of one is a space
      }
      line_y = origin_y;
      next_x = origin_x + g.AdvanceX * scale;
      space = 0.5f * g.AdvanceX * scale + 0.5f * space;
      unsigned int c = g.Codepoint;  // UTF-8
      if (c < 0x80) {
        text += char(c);
      } else if (c < 0x800) {
        text += char(0xC0 | (c >> 6)), text += char(0x80 | (c & 0x3F));
      } else {
        text += char(0xE0 | (c >> 12)), text += char(0x80 | ((c >> 6) & 0x3F)), text += char(0x80 | (c & 0x3F));
      }
      i += 3;
    }
  }
  return text + '\n';
}

std::string Headless::frame_sentences() {
  std::string text = frame_text();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void Headless::mouse_move(float x, float y) {
  ImGui::GetIO().MousePos = ImVec2(x, y);
}
void Headless::mouse_down(bool down) {
  ImGui::GetIO().MouseDown[0] = down;
}

void Headless::key(int imgui_key, bool shift) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyShift = shift;
  io.KeysDown[imgui_key] = true;
  frame();
  io.KeysDown[imgui_key] = false;
  frame();
  io.KeyShift = false;
}

void Headless::click(const std::string& name) {
  const Rect r = rect(name);
  mouse_move(r.x + r.w * 0.5f, r.y + r.h * 0.5f);
  frame();
  mouse_down(true);
  frame();
  mouse_down(false);
  frame();
}

void Headless::type(const std::string& text) {
  for (char ch : text) ImGui::GetIO().AddInputCharacter(static_cast<unsigned char>(ch));
  frame();
}

Rect Headless::rect(const std::string& name) const {
  auto it = app.ui.rects.find(name);
  REQUIRE_MESSAGE(it != app.ui.rects.end(), "control '" << name << "' was not drawn");
  return it->second;
}

void Headless::drag(const std::string& name, double u_from, double u_to, int steps) {
  const Rect r = rect(name);
  const float pad = position_slider_inset();
  auto x_at = [&](double u) { return float(r.x + pad + u * (r.w - 2 * pad)); };
  const float y = r.y + r.h * 0.5f;
  mouse_move(x_at(u_from), y);
  frame();
  mouse_down(true);
  frame();
  for (int i = 1; i <= steps; ++i) {
    mouse_move(x_at(u_from + (u_to - u_from) * i / steps), y);
    frame();
  }
  mouse_down(false);
  frame();
}

void for_each_setting(std::initializer_list<const char*> states, const std::function<void(Headless&)>& body) {
  INFO("first ImGui assertion: " << rv::imgui_first_assert());
  for (const char* state : states) {
    for (const Display& d : kEveryDisplay) {
      CAPTURE(state);
      CAPTURE(d.w);
      CAPTURE(d.h);
      CAPTURE(d.scale);
      Headless ui(d.w * d.scale, d.h * d.scale, d.scale);
      ui.set_state(state);
      body(ui);
    }
  }
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const std::string& n : notes)
    if (contains(n, part)) return true;
  return false;
}

std::string without_times(const std::string& doc) {
  const std::size_t from = doc.find("\"seconds\""), to = doc.find("\"methods\"");
  REQUIRE(from != std::string::npos);
  REQUIRE(to > from);
  return doc.substr(0, from) + doc.substr(to);
}

}  // namespace rv::test
