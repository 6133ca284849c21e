// The position sweep (advanced once per frame by the frame's elapsed time) and the reset to the lesson's defaults.
#include "app/ui/play.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "app/state/params.hpp"
#include "app/ui/widgets.hpp"
#include "imgui.h"

namespace rv {

long long play_end(const Params& p) {
  const double reach = PositionScale::for_table(p.max_position).reach;
  return (long long)std::min(reach, double(Limits::kPositionMax));
}

void play_toggle(App& app) {
  Play& play = app.ui.play;
  if (play.on) {
    play.on = false;
    return;
  }
  if (app.params.position >= play_end(app.params)) set(app.params, keys::position, 0, app.ui.notes);
  play.on = true;
  play.at = double(app.params.position);
}

void play_tick(App& app, double dt) {
  Play& play = app.ui.play;
  if (!play.on) return;
  Params& p = app.params;
  if (std::floor(play.at) != double(p.position)) play.at = double(p.position);
  dt = std::clamp(dt, 0.0, 0.25);
  if (play.log)
    play.at = std::max(play.at, 1.0) * std::pow(10.0, play.decades * dt);
  else
    play.at += play.rate * dt;
  const long long end = play_end(p);
  if (play.at >= double(end)) {
    play.at = double(end);
    play.on = false;
  }
  const long long m = (long long)std::floor(play.at);
  if (m != p.position) set(p, keys::position, double(m), app.ui.notes);
}

void reset_to_lesson(App& app) {
  Params fresh;
  fresh.loaded = app.params.loaded;  // the file stays loaded: model=config can choose it again
  app.params = fresh;
  app.ui.play.on = false;
  app.ui.field_edits.clear();
  app.ui.notes.push_back("reset to the lesson's defaults");
}

void show_play_controls(App& app) {
  Play& play = app.ui.play;
  if (ImGui::SmallButton(play.on ? "Pause###play" : "Play###play")) play_toggle(app);
  record_rect(app.ui, "play");
  ImGui::SameLine();
  if (ImGui::RadioButton("linear", !play.log)) play.log = false;
  record_rect(app.ui, "play_linear");
  ImGui::SameLine();
  if (ImGui::RadioButton("log", play.log)) play.log = true;
  record_rect(app.ui, "play_log");
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  const ImGuiSliderFlags flags = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  if (play.log) {
    const double lo = 0.02, hi = 2.0;
    ImGui::SliderScalar("decades/s##speed", ImGuiDataType_Double, &play.decades, &lo, &hi, "%.3g", flags);
  } else {
    const double lo = 0.1, hi = 1e6;
    ImGui::SliderScalar("positions/s##speed", ImGuiDataType_Double, &play.rate, &lo, &hi, "%.3g", flags);
  }
  record_rect(app.ui, "play_speed");
  formula_tip(
      "Play sweeps the position m up to the slider's end. linear: m grows by the speed in positions per second. "
      "log: m is multiplied by 10 every 1/speed seconds, so every decade takes as long. Dragging m, the arrow keys "
      "or a link move the sweep; it goes on from there.");
}

}  // namespace rv
