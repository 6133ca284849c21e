// Play: the position sweeps by itself, linearly (positions per second) or logarithmically (decades per second), so
// the rotations and the IndexError can be watched rather than dragged; and the one-click reset to the lesson's
// defaults.
#pragma once
#include "app/state/state.hpp"

namespace rv {

// Where a sweep stops: the end of the position slider's range (PositionScale::reach), within Limits::position_max.
long long play_end(const Params& p);
// Starts the sweep from the current position (from 0 when it is already at the end), or pauses it.
void play_toggle(App& app);
// Advances the position by dt seconds of sweep (dt capped at a quarter second, so a stalled tab does not jump) and
// stops at play_end. A position changed by hand or by a link meanwhile is where the sweep continues from.
void play_tick(App& app, double dt);
// The lesson's defaults (Params{}; a loaded config.json stays available), the sweep stopped, typed fields dropped.
void reset_to_lesson(App& app);
// The controls' row: Play / Pause, linear or log, and the speed.
void show_play_controls(App& app);

}  // namespace rv
