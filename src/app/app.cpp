// Layout of the whole canvas: controls on the left (collapsible), then a status strip and two
// stacked tab bars holding the ten panels, so two panels are visible at once at any size.
#include "app/app.hpp"

#include <algorithm>

#include "app/model.hpp"
#include "app/panels.hpp"
#include "app/params.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr size_t notes_kept = 6;
constexpr float controls_width = 300.0f;

const Panel panel_list[panel_count] = {
    {"Rotations per frequency", show_rotations},
    {"Angle field", show_angle_field},
    {"Shape trace", show_shape_trace},
    {"Learned table", show_learned_table},
    {"Dot product vs offset", show_score_curve},
    {"Checks", show_checks},
    {"Comparison", show_comparison},
    {"Context extension", show_extension},
    {"Precision", show_precision},
    {"Sinusoidal", show_sinusoidal},
};
// Which panels each tab bar holds, in tab order: tab_top / tab_bottom index these lists, so the
// panels added later (7-9) come after the first three and old links keep their tabs. The angle
// field and the sinusoidal heatmap share a GPU slot: they must stay in one bar.
constexpr int top_panels[Limits::tab_top_max + 1] = {0, 1, 2, 7, 8, 9};
constexpr int bottom_panels[Limits::tab_bottom_max + 1] = {3, 4, 5, 6};
struct Bar {
  const int* panels;
  int count;
};
constexpr Bar bars[2] = {{top_panels, Limits::tab_top_max + 1}, {bottom_panels, Limits::tab_bottom_max + 1}};

void trim_notes(Ui& ui) {
  if (ui.notes.size() > notes_kept) ui.notes.erase(ui.notes.begin(), ui.notes.end() - notes_kept);
}

// The tab a link asks for (params.tab_top / tab_bottom) is selected until shown (ImGui applies a
// selection one frame later); a tab the user clicks is written back, so the hash follows the view.
void tab_bar(App& app, int bar, float height) {
  int& wanted = bar == 0 ? app.params.tab_top : app.params.tab_bottom;
  const Bar& b = bars[bar];
  const int want = b.panels[std::clamp(wanted, 0, b.count - 1)];
  const int previous = app.ui.shown_tab[bar];
  int shown = -1;
  ImGui::PushID(bar);
  ImGui::BeginChild("bar", ImVec2(0, height), false);
  if (ImGui::BeginTabBar("tabs")) {
    for (int t = 0; t < b.count; ++t) {
      const int i = b.panels[t];
      const ImGuiTabItemFlags flags = (i == want && previous != want) ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(panel_list[i].name, nullptr, flags)) {
        shown = i;
        ImGui::BeginChild("panel", ImVec2(0, 0), true);
        panel_list[i].show(app);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  ImGui::PopID();
  if (shown >= 0 && shown != previous && previous >= 0 && shown != want)
    for (int t = 0; t < b.count; ++t)
      if (b.panels[t] == shown) wanted = t;
  app.ui.shown_tab[bar] = shown;
}

}  // namespace

const Panel* panels() {
  return panel_list;
}

void frame(App& app) {
  update_model(app.params, app.model);  // links, the JS hook and last frame's widgets: all picked up here
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("ropeviz", nullptr, flags);
  if (app.ui.controls_open) {
    const float left = std::min(controls_width * app.ui.scale, io.DisplaySize.x * 0.36f);
    ImGui::BeginChild("controls", ImVec2(left, 0), true);
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
  show_position_test(app);
  const float avail = ImGui::GetContentRegionAvail().y;
  const float top = std::max(120.0f * app.ui.scale, (avail - ImGui::GetStyle().ItemSpacing.y) * 0.5f);
  tab_bar(app, 0, top);
  tab_bar(app, 1, 0);
  ImGui::EndGroup();
  ImGui::End();
  trim_notes(app.ui);
  app.ui.frames += 1;
}

}  // namespace rv
