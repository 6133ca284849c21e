// The panel registry: every panel is reachable by its link key and by its old number, draws
// without an ImGui assertion, and speaks in the text layer when it is on screen.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "app/panels/panel_calls.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"
#include "imgui_internal.h"

using rv::Bar;
using rv::test::Headless;

TEST_CASE("registry: keys are unique, every panel sits in one bar, old tab numbers keep their panels") {
  std::set<std::string> keys;
  for (const rv::Panel& p : rv::all_panels()) CHECK(keys.insert(p.key).second);
  CHECK(rv::bar_panels(Bar::Top).size() + rv::bar_panels(Bar::Bottom).size() == rv::all_panels().size());
  // Links written before the registry used these numbers: they must open the same panels forever.
  const char* top[] = {"rotations", "angle_field", "shape_trace", "extension", "precision", "sinusoidal"};
  const char* bottom[] = {"learned_table", "score_curve", "checks", "comparison"};
  for (int i = 0; i < 6; ++i) CHECK(std::string(rv::bar_panels(Bar::Top)[size_t(i)]->key) == top[i]);
  for (int i = 0; i < 4; ++i) CHECK(std::string(rv::bar_panels(Bar::Bottom)[size_t(i)]->key) == bottom[i]);
}

TEST_CASE("registry: a link names its tab, old numeric links still open the right panel") {
  Headless ui;
  for (Bar bar : rv::kBars) {
    const char* name = bar == Bar::Top ? "tab_top" : "tab_bottom";
    const auto& list = rv::bar_panels(bar);
    for (size_t t = 0; t < list.size(); ++t) {
      CAPTURE(list[t]->key);
      for (const std::string& value : {std::string(list[t]->key), std::to_string(t)}) {
        ui.set_state(std::string(name) + "=" + (t == 0 ? std::string(list[1]->key) : std::string(list[0]->key)));
        ui.frames(2);
        CHECK(ui.set_state(std::string(name) + "=" + value).empty());
        ui.frames(3);
        CHECK(ui.app.ui.shown_tab[int(bar)] == int(t));
        CHECK(&rv::selected_panel(ui.app.params, bar) == list[t]);
        // The hash carries the key, and reading it back selects the same panel.
        const std::string hash = rv::encode_query(ui.app.params);
        CHECK(hash.find(std::string(name) + "=" + list[t]->key) != std::string::npos);
        rv::Params back;
        std::vector<std::string> notes;
        rv::apply_query(back, hash, notes);
        CHECK(notes.empty());
        CHECK(back == ui.app.params);
      }
    }
  }
}

TEST_CASE("registry: an unknown tab name is rejected with a note naming the keys, a big number is clamped") {
  Headless ui;
  ui.set_state("tab_top=precision");
  std::vector<std::string> notes = ui.set_state("tab_top=nonsense");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("'nonsense' is not one of rotations, angle_field") != std::string::npos);
  CHECK(notes[0].find("kept precision") != std::string::npos);
  CHECK(std::string(rv::selected_panel(ui.app.params, Bar::Top).key) == "precision");
  notes = ui.set_state("tab_bottom=99");
  REQUIRE(notes.size() == 1);
  CHECK(&rv::selected_panel(ui.app.params, Bar::Bottom) == rv::bar_panels(Bar::Bottom).back());
  notes = ui.set_state("tab_bottom=-1");
  CHECK(notes.size() == 1);
  CHECK(ui.app.params.tab_bottom == 0);
}

TEST_CASE("registry: every panel draws without an assertion and describes itself when on screen") {
  Headless ui;
  ui.set_state("position=100");
  const int before = rv::imgui_assert_count();
  for (const rv::Panel& p : rv::all_panels()) {
    CAPTURE(p.key);
    ui.set_state(std::string(p.bar == Bar::Top ? "tab_top=" : "tab_bottom=") + p.key);
    ui.frames(3);
    const std::string sentence = rv::describe_panel(p, ui.app);
    CHECK(sentence.size() > 40);
    CHECK(sentence.find("panel") != std::string::npos);
    CHECK(sentence.find("nan") == std::string::npos);
    CHECK(rv::describe(ui.app).find(sentence) != std::string::npos);
  }
  CHECK(rv::imgui_assert_count() == before);
}

TEST_CASE("a link cannot choose longrope: its per-pair factors come only from a model's config") {
  Headless ui;
  for (const char* name : {"longrope", "su"}) {
    const std::vector<std::string> notes = ui.set_state(std::string("scaling=") + name);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("is not none, linear, dynamic, yarn or llama3; kept none") != std::string::npos);
    CHECK(ui.app.params.scaling == rv::ScalingType::None);
  }
  ui.set_state("tab_top=extension");
  ui.frames(3);  // the panel's method text and tips index by the method: must stay in range
}

TEST_CASE("registry: no tab label is cut short at any display (short titles when a bar is narrow)") {
  rv::test::for_each_setting({"", "tab_top=sinusoidal&tab_bottom=comparison"}, [](Headless& ui) {
    ui.frames(3);
    ImGuiContext& g = *ImGui::GetCurrentContext();
    int tabs = 0;
    for (int n = 0; n < g.TabBars.GetMapSize(); ++n) {
      ImGuiTabBar* bar = g.TabBars.TryGetMapData(n);
      if (!bar) continue;
      for (const ImGuiTabItem& tab : bar->Tabs) {
        CHECK(tab.Width + 0.5f >= tab.ContentWidth);  // ImGui shrinks a tab below its label to fit the bar
        tabs += 1;
      }
    }
    CHECK(tabs == int(rv::all_panels().size()) + 2);  // and each bar's PNG button
  });
}
