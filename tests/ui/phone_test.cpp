// A phone-width screen (390 x 844 CSS pixels at 3 device pixels each): one column, the position slider always
// visible, the controls as a sheet, one panel at a time from a picker, and every line inside the screen.
#include <doctest/doctest.h>

#include <string>

#include "app/state/registry.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

constexpr float kScale = 3.0f, kWidth = 390 * kScale, kHeight = 844 * kScale;

// The named control lies inside the screen.
void check_inside(const Headless& ui, const std::string& name) {
  const rv::Rect r = ui.rect(name);
  INFO(name << ": x " << r.x << " y " << r.y << " w " << r.w << " h " << r.h);
  CHECK(r.x >= 0);
  CHECK(r.y >= 0);
  CHECK(r.x + r.w <= kWidth + 0.5f);
  CHECK(r.y + r.h <= kHeight + 0.5f);
}

}  // namespace

TEST_CASE("phone: one column with the slider always visible, the controls as a sheet, one panel from a picker") {
  Headless ui(kWidth, kHeight, kScale);
  ui.frames(3);
  CHECK(ui.app.ui.narrow);
  for (const char* name : {"sheet", "panel_picker", "png_top", "position", "lookup", "panel_top"})
    check_inside(ui, name);
  CHECK(ui.app.ui.rects.count("max_position") == 0);  // the controls are closed
  CHECK(ui.app.ui.rects.count("panel_bottom") == 0);  // one panel at a time
  CHECK(ui.rect("panel_top").h > 0.5f * kHeight);     // and it gets most of the screen

  // the slider drags the position on a phone too
  const long long before = ui.app.params.position;
  ui.drag("position", 0.05, 0.6);
  CHECK(ui.app.params.position != before);

  // the sheet: every field shows its number (the wide layout's 36% column showed one digit here)
  ui.click("sheet");
  ui.frames(2);
  CHECK(ui.app.ui.sheet_open);
  for (const char* name : {"max_position", "d_head", "base", "pairing", "seed"}) {
    check_inside(ui, name);
    CHECK(ui.rect(name).w >= 120 * kScale);
  }
  check_inside(ui, "copy_link");
  check_inside(ui, "position");  // still above the sheet
  ui.click("sheet");
  ui.frames(2);
  CHECK(!ui.app.ui.sheet_open);
}

TEST_CASE("phone: a link's panel is the one shown, and the picker reaches every panel of both bars") {
  Headless ui(kWidth, kHeight, kScale);
  ui.set_state("tab=lab");
  ui.frames(3);
  CHECK(ui.app.ui.single_bar == int(rv::Bar::Bottom));
  check_inside(ui, "panel_bottom");
  check_inside(ui, "lab_run");
  ui.set_state("tab=precision");
  ui.frames(3);
  CHECK(ui.app.ui.single_bar == int(rv::Bar::Top));
  CHECK(std::string(rv::selected_panel(ui.app.params, rv::Bar::Top).key) == "precision");
  // every panel draws in the one column without an ImGui assertion
  for (rv::Bar bar : {rv::Bar::Top, rv::Bar::Bottom})
    for (const rv::Panel* panel : rv::bar_panels(bar)) {
      INFO(panel->key);
      ui.set_state(std::string("tab=") + panel->key);
      ui.frames(2);
      CHECK(std::string(rv::selected_panel(ui.app.params, bar).key) == panel->key);
      CHECK(ui.app.ui.shown_tab[int(bar)] == rv::tab_of(ui.app.params, bar));
    }
}

TEST_CASE("phone: the IndexError wraps inside the screen instead of spilling out of its box") {
  Headless ui(kWidth, kHeight, kScale);
  ui.set_state("position=100000&max_position=10");
  ui.frames(3);
  REQUIRE(ui.app.model.lookup_error);
  check_inside(ui, "lookup");
  CHECK(ui.rect("lookup").h >= 2 * ImGui::GetTextLineHeight());  // wrapped onto more lines
  check_inside(ui, "panel_top");
}

// The small desktop window: the wide layout at 800 x 600, at one and two device pixels per CSS pixel.
TEST_CASE("800 x 600: number fields show whole numbers and nothing drawn spills past the window's right edge") {
  for (float scale : {1.0f, 2.0f}) {
    const float w = 800 * scale, h = 600 * scale;
    Headless ui(w, h, scale);
    ui.set_state("position=100000&max_position=10");
    ui.frames(3);
    INFO("scale " << scale);
    CHECK_FALSE(ui.app.ui.narrow);
    const float digits = ImGui::CalcTextSize("1000000").x + 2 * ImGui::GetStyle().FramePadding.x;
    for (const char* name : {"max_position", "d_head", "base", "seed", "position_input"}) {
      INFO(name << " is " << ui.rect(name).w << " wide, 7 digits need " << digits);
      CHECK(ui.rect(name).w >= digits);
    }
    CHECK(ui.rect("lookup").h >= 2 * ImGui::GetTextLineHeight());  // the IndexError wraps inside its box
    for (const auto& named : ui.app.ui.rects) {  // no structured binding: INFO's lambda cannot capture one
      const rv::Rect& r = named.second;
      INFO(named.first << ": x " << r.x << " w " << r.w);
      CHECK(r.x + r.w <= w + 0.5f);
    }
  }
}
