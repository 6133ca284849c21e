// Tooltips that fit the display: the wrap width comes from the display's width and the style's paddings.
#include "app/ui/tooltip.hpp"

#include <algorithm>
#include <cstdarg>

#include "imgui_internal.h"

namespace rv {
namespace {

// The wrap position, local to the tooltip window: its text starts at WindowPadding.x, and the window (text, both
// paddings, borders) keeps inside the display's safe area, where ImGui places a tooltip that fits.
float wrap_x() {
  const ImGuiStyle& s = ImGui::GetStyle();
  const float fit = ImGui::GetIO().DisplaySize.x - s.WindowPadding.x - 2.0f * s.WindowBorderSize -
                    2.0f * s.DisplaySafeAreaPadding.x - 2.0f;
  return std::max(s.WindowPadding.x + 4.0f * ImGui::GetFontSize(), std::min(ImGui::GetFontSize() * 32.0f, fit));
}

}  // namespace

void tooltip(const char* fmt, ...) {
  ImGui::BeginTooltipEx(ImGuiTooltipFlags_OverridePreviousTooltip, ImGuiWindowFlags_None);
  ImGui::PushTextWrapPos(wrap_x());
  va_list args;
  va_start(args, fmt);
  ImGui::TextV(fmt, args);
  va_end(args);
  end_tooltip();
}

void begin_tooltip() {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(wrap_x());
}

void end_tooltip() {
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace rv
