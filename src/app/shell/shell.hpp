// The shell around the panels: the controls and the status strip (always shown), and the notes.
#pragma once
#include "app/state/state.hpp"

namespace rv {

void show_controls(App& app);       // parameters, position slider (not on a phone: see below), presets
void position_control(App& app);    // the position slider alone (a phone's layout keeps it above everything)
void show_notes(App& app);          // rejected or clamped inputs
void show_intro(App& app);          // the first screen's title and first step, until taken
void show_position_test(App& app);  // status strip: learned lookup at m (or its IndexError) vs RoPE

}  // namespace rv
