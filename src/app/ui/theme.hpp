// The look: a calm dark theme, one accent per method (RoPE, learned table), a distinct error
// colour, and the embedded DejaVu font at the display's scale.
#pragma once
#include "imgui.h"

namespace rv::theme {

constexpr ImU32 kRope = IM_COL32(77, 208, 225, 255);      // teal: RoPE
constexpr ImU32 kLearned = IM_COL32(255, 183, 77, 255);   // amber: learned absolute table
constexpr ImU32 kError = IM_COL32(255, 82, 82, 255);      // red: failures
constexpr ImU32 kKey = IM_COL32(186, 140, 255, 255);      // violet: the key K (RoPE panels)
constexpr ImU32 kOk = IM_COL32(129, 199, 132, 255);       // green: checks that hold
constexpr ImU32 kCaution = IM_COL32(255, 224, 102, 255);  // yellow: holds for the formula, not the trained model
constexpr ImU32 kMuted = IM_COL32(150, 156, 168, 255);    // secondary text, faint marks
constexpr ImU32 kGrid = IM_COL32(70, 74, 84, 255);        // axes and grid lines
constexpr ImU32 kPanelBg = IM_COL32(30, 32, 38, 255);

constexpr ImU32 kPink = IM_COL32(240, 98, 146, 255);
constexpr ImU32 kPale = IM_COL32(220, 222, 228, 255);

// Six distinct line colours for numbered series (a model's layers), taken in turn.
constexpr ImU32 kSeries[] = {kLearned, kPink, kRope, kOk, kKey, kPale};

inline ImVec4 vec(ImU32 c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

// Style and fonts for a display with `scale` device pixels per logical pixel. Rebuilds the font
// atlas: the renderer must re-upload its font texture afterwards.
void apply(float scale);

}  // namespace rv::theme
