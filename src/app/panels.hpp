// The explorer's panels: one function per topic, each drawing into the current ImGui window.
#pragma once
#include "app/state.hpp"

namespace rv {

void show_controls(App& app);        // parameters, position slider, presets
void show_notes(App& app);           // rejected or clamped inputs
void show_position_test(App& app);   // the lesson's section 3, live: learned lookup vs RoPE angles

}  // namespace rv
