// Headless ImGui harness for the UI tests (see headless.hpp).
#include "headless.hpp"

#include <doctest/doctest.h>

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

void Headless::frame() {
  ImGui::NewFrame();
  rv::frame(app);
  ImGui::Render();
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

}  // namespace rv::test
