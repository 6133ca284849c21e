// The lab panel's views beside its curves (lab_inside.cpp, lab_remedy.cpp) and its text before a run.
#pragma once
#include <string>

#include "app/state/state.hpp"
#include "imgui.h"

namespace rv {

// The lab panel's views inside a trained model (lab/lab_inside.cpp): attention maps per head for one sequence,
// and a KV-cache decode checked against a full recompute.
void lab_attention_view(App& app);
void lab_kv_view(App& app);
// The lab panel's "sequential vs random" view (lab/lab_remedy.cpp): the last run beside the one before it when
// they differ only in positions (lab_comparable), or a button that runs the other; and its sentence for the text layer.
bool lab_remedy_ready(const App& app);
void lab_remedy_view(App& app);
std::string describe_lab_remedy(const App& app);

// A position method's colour in every lab view (its checkbox, curves, rows and table).
ImU32 colour_of(PositionMethod m);

// The lab panel's explanation before a run (its sizes from LabOptions' defaults).
std::string lab_intro();

}  // namespace rv
