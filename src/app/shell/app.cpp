// Layout of the whole canvas: controls on the left (collapsible), then a status strip and two stacked tab bars
// holding the registry's panels, so two panels are visible at once; on a phone-width screen one column instead.
#include "app/shell/app.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "app/panels/panel_calls.hpp"
#include "app/run/run_session.hpp"
#include "app/shell/shell.hpp"
#include "app/lab/lab_session.hpp"
#include "app/rope_usage/usage.hpp"
#include "app/state/lesson.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/ui/keyboard.hpp"
#include "app/lesson/lesson_box.hpp"
#include "app/ui/play.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "imgui.h"
#include "imgui_internal.h"  // HoveredWindow: the area the wheel scrolls

namespace rv {
namespace {

constexpr size_t kNotesKept = 6;
constexpr float kControlsWidth = 300.0f;
constexpr float kNarrowWidth = 700.0f;  // logical pixels: below this the layout is one column

// Drops the entries of a map keyed by a note's text whose note is no longer shown.
template <class Map>
void forget_unshown(Map& by_note, const std::vector<std::string>& notes) {
  for (auto it = by_note.begin(); it != by_note.end();)
    it = std::find(notes.begin(), notes.end(), it->first) == notes.end() ? by_note.erase(it) : std::next(it);
}

// The notes' one bookkeeping pass, after everything that raises them this frame: a note raised
// again is kept once, where it first appeared, and counted; past notes_kept the oldest go; counts
// and details of notes no longer shown are forgotten.
void tidy_notes(Ui& ui) {
  std::vector<std::string>& notes = ui.notes;
  for (size_t i = 0; i < notes.size(); ++i) {
    int& count = ui.note_repeats[notes[i]];
    count = std::max(count, 1);
    for (size_t j = i + 1; j < notes.size();) {
      if (notes[j] == notes[i]) {
        notes.erase(notes.begin() + std::ptrdiff_t(j));
        ++count;
      } else {
        ++j;
      }
    }
  }
  if (notes.size() > kNotesKept) notes.erase(notes.begin(), notes.end() - kNotesKept);
  forget_unshown(ui.note_repeats, notes);
  forget_unshown(ui.note_details, notes);
}

constexpr const char* kPngLabel = "PNG";  // each bar's trailing button: a picture of the panel it shows

// True when every panel of the bar fits with its full (or short) title in the available width, beside the PNG button.
bool titles_fit(const std::vector<const Panel*>& list, bool full) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto tab_width = [&](const char* label) {
    return ImGui::CalcTextSize(label).x + 2 * style.FramePadding.x + style.ItemInnerSpacing.x;
  };
  float width = tab_width(kPngLabel);
  for (const Panel* p : list) width += tab_width(full ? p->title : p->short_title);
  return width <= ImGui::GetContentRegionAvail().x;
}

// The tab a link asks for (Params::tab_top / tab_bottom) is selected until shown (ImGui applies a
// selection one frame later); a tab the user clicks is written back, so the hash follows the view.
void tab_bar(App& app, Bar bar, float height) {
  const std::vector<const Panel*>& list = bar_panels(bar);
  int& wanted = tab_of(app.params, bar);
  const int want = std::clamp(wanted, 0, int(list.size()) - 1);
  int& last_shown = app.ui.shown_tab[int(bar)];
  int shown = -1;
  ImGui::PushID(int(bar));
  ImGui::BeginChild("bar", ImVec2(0, height), false, kChildFlags);
  const bool full = titles_fit(list, true);
  // Too narrow even for the short titles: the bar scrolls (arrows and a list of every tab) rather than cutting them.
  const ImGuiTabBarFlags bar_flags =
      full || titles_fit(list, false) ? 0 : ImGuiTabBarFlags_FittingPolicyScroll | ImGuiTabBarFlags_TabListPopupButton;
  if (ImGui::BeginTabBar("tabs", bar_flags)) {
    for (int t = 0; t < int(list.size()); ++t) {
      const ImGuiTabItemFlags flags = (t == want && last_shown != want) ? ImGuiTabItemFlags_SetSelected : 0;
      char label[96];  // "###key": the tab keeps its identity whichever title it shows
      std::snprintf(label, sizeof label, "%s###%s", full ? list[size_t(t)]->title : list[size_t(t)]->short_title,
                    list[size_t(t)]->key);
      if (!ImGui::BeginTabItem(label, nullptr, flags)) continue;
      shown = t;
      const char* look = lesson_highlight(app.params);  // the lesson's step frames the panel it talks about
      const bool highlight = look && std::string_view(look) == list[size_t(t)]->key;
      if (highlight) ImGui::PushStyleColor(ImGuiCol_Border, theme::kRope);
      if (highlight) ImGui::PushStyleVar(ImGuiStyleVar_ChildBorderSize, 2.0f);
      ImGui::BeginChild("panel", ImVec2(0, 0), true, kChildFlags);
      if (highlight) ImGui::PopStyleVar();
      if (highlight) ImGui::PopStyleColor();
      show_panel(*list[size_t(t)], app);
      ImGui::EndChild();
      record_rect(app.ui, bar == Bar::Top ? "panel_top" : "panel_bottom");  // the picture's region
      ImGui::EndTabItem();
    }
    if (shown >= 0 && ImGui::TabItemButton(kPngLabel, ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip)) {
      app.ui.pending_picture = true;
      app.ui.picture_panel = list[size_t(shown)]->key;
    }
    record_rect(app.ui, bar == Bar::Top ? "png_top" : "png_bottom");
    hover_tip("This panel as a PNG, at the screen's pixel density.");
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  ImGui::PopID();
  if (shown >= 0 && shown != last_shown && last_shown >= 0 && shown != want) wanted = shown;
  last_shown = shown;
}

// [SECTION] One column (phone width)

// The bar a link, the keyboard or the picker changed last is the one whose panel shows.
void follow_tab_changes(App& app) {
  for (Bar bar : {Bar::Top, Bar::Bottom}) {
    const int now = tab_of(app.params, bar);
    if (now != app.ui.seen_tab[int(bar)]) app.ui.single_bar = int(bar);
    app.ui.seen_tab[int(bar)] = now;
  }
}

// Every panel of both bars by its full title; picking one shows it. The PNG button beside it.
void panel_picker(App& app) {
  const Bar shown_bar = Bar(app.ui.single_bar);
  const std::vector<const Panel*>& shown_list = bar_panels(shown_bar);
  const Panel* shown = shown_list[size_t(std::clamp(tab_of(app.params, shown_bar), 0, int(shown_list.size()) - 1))];
  const float png = ImGui::CalcTextSize(kPngLabel).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - png - ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##panel", shown->title, ImGuiComboFlags_HeightLarge)) {
    for (Bar bar : {Bar::Top, Bar::Bottom}) {
      const std::vector<const Panel*>& list = bar_panels(bar);
      for (std::size_t t = 0; t < list.size(); ++t)
        if (ImGui::Selectable(list[t]->title, list[t] == shown)) {
          tab_of(app.params, bar) = int(t);
          app.ui.single_bar = int(bar);
        }
    }
    ImGui::EndCombo();
  }
  record_rect(app.ui, "panel_picker");
  ImGui::SameLine();
  if (ImGui::Button(kPngLabel)) {
    app.ui.pending_picture = true;
    app.ui.picture_panel = shown->key;
  }
  record_rect(app.ui, shown_bar == Bar::Top ? "png_top" : "png_bottom");
}

// A row with the controls sheet's toggle and the panel picker, the position slider always, then either the controls
// (a sheet over the panel) or the lesson, the status strip, the notes and one panel.
void narrow_layout(App& app) {
  Ui& ui = app.ui;
  follow_tab_changes(app);
  if (ImGui::Button(ui.sheet_open ? "Close" : "Controls")) ui.sheet_open = !ui.sheet_open;
  record_rect(ui, "sheet");  // no hover tip: a tap would leave it standing over the slider
  ImGui::SameLine();
  panel_picker(app);
  position_control(app);
  update_model(app.params, app.model);  // as in the wide layout: what the controls changed, before the panels
  if (ui.sheet_open) {
    ImGui::BeginChild("controls", ImVec2(0, 0), true, kChildFlags);
    show_controls(app);
    show_notes(app);
    ImGui::EndChild();
    return;
  }
  show_intro(app);
  show_lesson_box(app);
  show_position_test(app);
  if (!ui.notes.empty()) show_notes(app);
  const Bar bar = Bar(ui.single_bar);
  const std::vector<const Panel*>& list = bar_panels(bar);
  const int t = std::clamp(tab_of(app.params, bar), 0, int(list.size()) - 1);
  ImGui::BeginChild("panel", ImVec2(0, 0), true, kChildFlags);
  show_panel(*list[size_t(t)], app);
  ImGui::EndChild();
  record_rect(ui, bar == Bar::Top ? "panel_top" : "panel_bottom");  // the picture's region
  ui.shown_tab[int(bar)] = t;
  ui.shown_tab[1 - int(bar)] = -1;  // the wide layout's tab bars select their tabs again
}

// Controls on the left, the status strip and two tab bars on the right.
void wide_layout(App& app) {
  if (app.ui.controls_open) {
    const float left = std::min(kControlsWidth * app.ui.scale, ImGui::GetIO().DisplaySize.x * 0.36f);
    ImGui::BeginChild("controls", ImVec2(left, 0), true, kChildFlags);
    show_intro(app);  // the first screen's title and first step, above the controls (app/shell/intro.cpp)
    show_controls(app);
    show_notes(app);
    ImGui::EndChild();
    ImGui::SameLine();
  }
  ImGui::BeginGroup();
  // The one extra update: the controls change any parameter, including sizes (d_head, heads,
  // max_position, offsets), and the panels below index model arrays, some with bounds taken from
  // app.params. Updating here keeps them consistent this frame; it rebuilds only what the controls
  // changed and is a tuple comparison otherwise. Panels that change params themselves (offsets,
  // scaling) are picked up by the next frame's first update.
  update_model(app.params, app.model);
  show_lesson_box(app);  // the guided lesson's step, when one is open (app/state/lesson.hpp)
  show_position_test(app);
  const float avail = ImGui::GetContentRegionAvail().y;
  const float top = std::max(120.0f * app.ui.scale, (avail - ImGui::GetStyle().ItemSpacing.y) * 0.5f);
  tab_bar(app, Bar::Top, top);
  tab_bar(app, Bar::Bottom, 0);
  ImGui::EndGroup();
}

}  // namespace

bool app_animating(const App& app) {
  // a sweep of the position, a lab run training a slice per frame, a rope_usage walk reading a layer per frame
  return app.ui.play.on || (app.lab.running && !app.lab.run->background()) || (app.run && app.run->running) ||
         (app.usage.active && app.params.weights && !app.params.weights->supplied);
}

bool app_polling(const App& app) {
  return app.lab.running && app.lab.run->background();
}

void frame(App& app) {
  keyboard_focus();
  lab_tick(app, kLabSliceMs);                // a training run advances a slice per frame (app/lab/lab_session.hpp)
  play_tick(app, ImGui::GetIO().DeltaTime);  // a playing sweep moves the position (app/ui/play.hpp)
  update_model(app.params, app.model);       // links, the JS hook and last frame's widgets: all picked up here
  usage_tick(app);  // a loaded RoPE checkpoint's walk: a layer per frame (app/rope_usage/usage.hpp)
  run_tick(app);    // Run it: a forward pass per frame (app/run/run_session.hpp)
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  // No background of its own: the platform clears the canvas to the theme's WindowBg before each frame
  // (render_frame), and drawing it again over every pixel cost a software GPU a quarter of a frame (docs/building.md
  // "Pixels on a software GPU").
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoBackground;
  ImGui::Begin("ropeviz", nullptr, flags);
  app.ui.narrow = io.DisplaySize.x < kNarrowWidth * app.ui.scale;
  app.ui.typing_words = false;  // an answer field being typed into sets it
  if (app.ui.narrow)
    narrow_layout(app);
  else
    wide_layout(app);
  ImGui::End();
  if (const ImGuiWindow* hovered = ImGui::GetCurrentContext()->HoveredWindow) {
    app.ui.hovered_scroll[0] = hovered->Scroll.y;
    app.ui.hovered_scroll[1] = hovered->ScrollMax.y;
  }
  tidy_notes(app.ui);
  const std::string* focus = focused_control(app.ui);
  if (focus ? app.ui.focus != *focus : !app.ui.focus.empty()) app.ui.focus = focus ? *focus : std::string();
  app.ui.frames += 1;
}

}  // namespace rv
