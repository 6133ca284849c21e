// Keyboard navigation of the canvas (app/ui/keyboard.hpp).
#include "app/ui/keyboard.hpp"

#include "imgui.h"
#include "imgui_internal.h"  // the navigation state ImGui 1.86 keeps there

namespace rv {

// Tab / Shift+Tab reach every control, not only text fields (ImGui 1.86 tabs between inputs only: its tabbing request
// counts every item when it carries the focus API's flag), on from the focused one, with ImGui's focus ring; the
// arrows then move the focus too. Enter presses the focused control as Space does (a text field reached by Tab is
// already being edited; Escape leaves it). A click, or Escape outside a field, ends keyboard navigation: the arrows
// step the position again. Called after NewFrame, before any item, so the request scores this frame's items.
void keyboard_focus() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ImGuiIO& io = ImGui::GetIO();
  const auto pressed = [](ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), false); };
  if (pressed(ImGuiKey_Tab)) io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) || ImGui::IsMouseClicked(ImGuiMouseButton_Right) ||
      (pressed(ImGuiKey_Escape) && g.ActiveId == 0))
    io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
  if (g.NavMoveScoringItems && (g.NavMoveFlags & ImGuiNavMoveFlags_Tabbing)) {
    g.NavMoveFlags |= ImGuiNavMoveFlags_FocusApi;
    if (g.NavTabbingDir == 0 && g.NavId != 0 && !g.NavDisableHighlight) g.NavTabbingDir = +1;  // on from the focus
  }
  if (g.NavId != 0 && !g.NavDisableHighlight && g.ActiveId == 0 &&
      (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter))) {
    g.NavActivateId = g.NavActivateDownId = g.NavActivatePressedId = g.NavId;
    g.NavActivateFlags = ImGuiActivateFlags_None;
  }
}

bool keyboard_navigating() {
  return (ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) != 0 &&
         !ImGui::GetCurrentContext()->NavDisableHighlight;
}

const std::string* focused_control(const Ui& ui) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  if (!keyboard_navigating() || g.NavId == 0 || !g.NavWindow) return nullptr;
  const ImVec2 c = ImGui::WindowRectRelToAbs(g.NavWindow, g.NavWindow->NavRectRel[0]).GetCenter();
  const std::string* best = nullptr;
  float best_area = 0;
  for (const auto& [name, r] : ui.rects)
    if (c.x >= r.x && c.x <= r.x + r.w && c.y >= r.y && c.y <= r.y + r.h && (!best || r.w * r.h < best_area)) {
      best = &name;
      best_area = r.w * r.h;
    }
  return best;
}

}  // namespace rv
