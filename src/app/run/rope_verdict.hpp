// RoPE at the position m, said for the formula and, apart, for a model trained to a context: past it a trained model
// degrades unless rescaled, and where Run it measured these weights there, the measured ratio.
#pragma once

#include "app/state/state.hpp"

namespace rv {

enum class RopeVerdictKind {
  InContext,     // m is inside the context the model (or the table's max_position) was trained to
  Past,          // m is past it: the formula still rotates, the trained model is untested here
  PastMeasured,  // m is past it and Run it measured these weights there
  NotUsed        // the loaded model has a learned table, no rope: the dials are the formula's alone
};

struct RopeVerdict {
  RopeVerdictKind kind = RopeVerdictKind::InContext;
  char formula[96] = "";   // "RoPE (formula): defined at every m, 32 pairs, θ₀·m = 2000 rad"
  char trained[320] = "";  // what holds for the trained model at m
};

// Fills the verdict for app.params.position without allocating (the status strip draws it every frame).
void rope_verdict(const App& app, RopeVerdict& out);

}  // namespace rv
