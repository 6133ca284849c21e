// Keyboard only: Tab and Shift+Tab move the focus through every control (not only text fields), Space and Enter
// press the focused one, a field reached by Tab is edited (Enter applies, Escape drops the text).
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "headless.hpp"
#include "imgui.h"

using rv::test::Headless;

namespace {

std::string focused(const Headless& ui) {
  return ui.app.ui.focus;
}

void tab_to(Headless& ui, const std::string& name) {
  for (int i = 0; i < 200 && focused(ui) != name; ++i) ui.key(ImGuiKey_Tab);
  REQUIRE(focused(ui) == name);
}

}  // namespace

TEST_CASE("keyboard: Tab reaches every control of the controls column and both panels' bars, then wraps around") {
  Headless ui;
  ui.frames(2);
  ui.key(ImGuiKey_Tab);
  const std::string first = focused(ui);
  CHECK(first == "intro_lesson");  // the first control: the first screen's "Start the lesson"
  std::vector<std::string> order{first};
  for (int i = 0; i < 300; ++i) {
    ui.key(ImGuiKey_Tab);
    const std::string f = focused(ui);
    if (f == first) break;  // wrapped
    if (!f.empty() && f != order.back()) order.push_back(f);
  }
  INFO("reached: " << [&] {
    std::string s;
    for (const auto& n : order) s += n + " ";
    return s;
  }());
  CHECK(focused(ui) == first);
  const std::set<std::string> reached(order.begin(), order.end());
  for (const char* name : {"lesson_start", "reset", "model", "position", "play", "max_position", "d_head", "base",
                           "pairing_frame", "heads", "seed", "export_picture", "copy_link", "png_top", "png_bottom"}) {
    INFO(name);
    CHECK(reached.count(name) == 1);
  }
  // in reading order: the controls column before the panels
  const auto at = [&](const char* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  CHECK(at("reset") < at("max_position"));
  CHECK(at("max_position") < at("copy_link"));
  CHECK(at("copy_link") < at("png_top"));
  CHECK(at("png_top") < at("png_bottom"));
}

TEST_CASE("keyboard: Shift+Tab goes back, Space and Enter press the focused button") {
  Headless ui;
  ui.set_state("position=50&max_position=20");
  ui.frames(2);
  tab_to(ui, "reset");
  ui.key(ImGuiKey_Tab, true);
  CHECK(focused(ui) == "lesson_start");
  ui.key(ImGuiKey_Tab);
  CHECK(focused(ui) == "reset");
  ui.key(ImGuiKey_Space);
  CHECK(ui.app.params.position != 50);  // the lesson's defaults
  CHECK(ui.app.params.max_position == 10);
  ui.key(ImGuiKey_Tab, true);
  CHECK(focused(ui) == "lesson_start");
  ui.key(ImGuiKey_Enter);
  CHECK(ui.app.params.lesson == 1);
}

TEST_CASE("keyboard: a field reached by Tab is edited, Enter applies the typed value, Escape drops it") {
  Headless ui;
  ui.frames(2);
  tab_to(ui, "max_position");
  CHECK(ImGui::IsAnyItemActive());  // editing at once, its text selected
  ui.type("20");
  ui.key(ImGuiKey_Enter);
  CHECK(ui.app.params.max_position == 20);
  ui.key(ImGuiKey_Tab, true);
  ui.key(ImGuiKey_Tab);
  REQUIRE(focused(ui) == "max_position");
  ui.type("99");
  ui.key(ImGuiKey_Escape);
  ui.frames(2);
  CHECK(ui.app.params.max_position == 20);
}

TEST_CASE("keyboard: the arrows step the position until Tab starts keyboard navigation, and again after a click") {
  Headless ui;
  ui.set_state("position=5");
  ui.frames(2);
  ui.key(ImGuiKey_RightArrow);
  CHECK(ui.app.params.position == 6);
  ui.key(ImGuiKey_Tab);
  CHECK(focused(ui) == "lesson_start");
  ui.key(ImGuiKey_DownArrow);  // ImGui moves the focus; the position stays
  ui.key(ImGuiKey_RightArrow);
  CHECK(ui.app.params.position == 6);
  CHECK(focused(ui) != "lesson_start");
  ui.click("panel_top");  // a click ends keyboard navigation
  ui.key(ImGuiKey_RightArrow);
  CHECK(ui.app.params.position == 7);
}

TEST_CASE("keyboard: Tab moves on from a field being typed into, through an exercise's fields to its Check button") {
  Headless ui;
  ui.set_state("tab_bottom=exercises");
  ui.frames(2);
  tab_to(ui, "ex_answer0");
  ui.type("65536");
  ui.key(ImGuiKey_Tab);
  CHECK(focused(ui) == "ex_answer1");
  ui.type("0");
  ui.key(ImGuiKey_Tab);
  CHECK(focused(ui) == "ex_check");
  ui.key(ImGuiKey_Enter);
  ui.frames(2);
  CHECK(std::string(ui.app.ui.exercises[0].answers[0]) == "65536");
}
