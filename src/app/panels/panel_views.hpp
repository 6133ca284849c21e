// Pieces of the panels that others show too (the status strip's framework tooltip), and
// the small pure functions whose numbers the panels show, so tests can check them against core.
#pragma once
#include <Eigen/Core>
#include <string>

#include "app/state/state.hpp"

namespace rv {

// What P[position], P[-1] and P[-position] do on a table of max_position rows in PyTorch, TensorFlow and JAX
// (core/encodings/frameworks.hpp), as a table.
void frameworks_table(long long position, int max_position);
// A tooltip with that table (the status strip and the learned panel's summary both offer it on hover).
void frameworks_tooltip(long long position, int max_position);
// One short item per framework for the current m past the table (Model::elsewhere); hover: the full table.
void frameworks_summary(App& app);

// What the extension panel shows for pair i (from core's rope_scaled_inv_freq).
enum class Band { Kept, Interpolated, Blended };
struct ExtensionPair {
  double theta = 0, scaled = 0;                  // theta_i, scaled theta_i
  double wavelength = 0, scaled_wavelength = 0;  // 2 pi / theta
  double interpolated = 0;                       // 0: left alone .. 1: divided by factor ((1 - s/t) / (1 - 1/factor))
  Band band = Band::Kept;
};
ExtensionPair extension_pair(const App& app, int i);  // requires app.model.scaled_inv_freq non-empty
const char* band_name(Band b);

// What the rotations panel draws for pair i.
struct PairView {
  double theta = 0, angle = 0, angle_mod = 0, wavelength = 0;  // theta_i, m theta_i, fmod(., 2 pi), 2 pi / theta_i
  Eigen::Vector2d q, q_rot, k_rot;                             // pair i of q, RoPE(q, m), RoPE(k, n)
  bool beyond_table = false;                                   // wavelength > max_position
  bool passes = false;  // a partial-rotary model leaves this pair alone (theta 0)
};
PairView pair_view(const App& app, int i);

// What the score panel draws at offset r in [-offsets, offsets]: the curves at both anchors and both
// true bounds on |score(r)| (the hover read-out shows exactly these).
struct ScoreAt {
  double a = 0, b = 0, bound = 0, roformer = 0;
};
ScoreAt score_at(const App& app, long long r);

}  // namespace rv
