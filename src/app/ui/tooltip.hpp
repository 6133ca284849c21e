// Tooltips that fit the display: wrapped at 32 em, or narrower where the display is (a phone's 390 px).
#pragma once
#include "imgui.h"

namespace rv {

// A tooltip with printf-style text, replacing any other this frame (as ImGui::SetTooltip), wrapped to fit.
void tooltip(const char* fmt, ...) IM_FMTARGS(1);
// A tooltip of several items: ImGui::BeginTooltip with the wrap width pushed; end_tooltip pops it.
void begin_tooltip();
void end_tooltip();

}  // namespace rv
