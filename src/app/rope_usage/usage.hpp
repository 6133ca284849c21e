// The "Frequencies in use" walk (docs/real-weights.md): core's rope_usage over the loaded checkpoint, one layer per
// step, so the desktop stays live (a layer per frame) and the page holds one layer's projections at a time (the step
// answers the bytes it wants, as rv_web_weights_step does). App::usage keeps the layers measured and what the panel
// draws and says of them.
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

class JsonWriter;  // core/base/json_writer.hpp

enum class UsageStepKind { Idle, Measured, Want, Done, Error };
struct UsageStep {
  UsageStepKind kind = UsageStepKind::Idle;
  SuppliedBytes::Want want;  // Want: the bytes to supply before the next step
  std::string error;         // Error: core's message (a note says it too)
};

// Follows Params::weights: a new checkpoint whose config.json is a RoPE layout rope_usage knows starts a walk; any
// other keeps a note saying why there is none (core's message names a refused model type); unloading clears it.
// True when it (re)started or cleared the walk.
bool sync_usage(App& app);
// Measures the next layer: Measured (more to come), Done (the last, or Stop taken), Want (on the page: supply
// `want` and step again; nothing was measured), Error (a note naming what is wrong; the layers done are kept), Idle.
UsageStep usage_step(App& app);
// Each frame: sync, then one layer when the checkpoint's bytes are at hand (the desktop); the page steps its own.
void usage_tick(App& app);
// Stop: the walk ends, the layers done so far are kept and the sentences say so; `why` replaces the note.
void usage_stop(App& app, const std::string& why = "");
bool usage_walking(const App& app);
// The head detail's grids for UsageWalk::head; a no-op when they are current.
void usage_head_grids(UsageWalk& u);

// What the measurement is and is not, with the activation study that complements it.
constexpr const char* kUsageCaveat =
    "Read from the weights, not from activations: a pair's gain is the norm of the rows of W_q (or W_k) that feed it, "
    "the layer's input norm folded in, so it says how much the pair can carry, not what it carries on real text. "
    "Barbero et al. 2025 (\"Round and Round We Go! What makes Rotary Positional Encodings useful?\") measure "
    "activations and find that Gemma puts most of its weight on the lowest frequencies; the activations plot below "
    "measures them on Run it's text.";

// state().weights.rope_usage: the walk's layers so far, or null without one.
void rope_usage_state(JsonWriter& j, const UsageWalk& u);

}  // namespace rv
