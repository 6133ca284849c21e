// Layout of the whole canvas: controls on the left, the panels on the right.
#include "app/app.hpp"

#include "app/model.hpp"
#include "app/panels.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr size_t notes_kept = 6;
constexpr float controls_width = 300.0f;

void trim_notes(Ui& ui) {
  if (ui.notes.size() > notes_kept) ui.notes.erase(ui.notes.begin(), ui.notes.end() - notes_kept);
}

}  // namespace

void frame(App& app) {
  update_model(app.params, app.model);
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("ropeviz", nullptr, flags);
  const float left = std::min(controls_width * app.ui.scale, io.DisplaySize.x * 0.45f);
  ImGui::BeginChild("controls", ImVec2(left, 0), true);
  show_controls(app);
  show_notes(app);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("panels", ImVec2(0, 0), true);
  update_model(app.params, app.model);  // controls may have changed params this frame
  show_position_test(app);
  ImGui::EndChild();
  ImGui::End();
  trim_notes(app.ui);
  update_model(app.params, app.model);
  app.ui.frames += 1;
}

}  // namespace rv
