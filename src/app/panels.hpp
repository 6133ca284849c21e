// The explorer's panels: one function per topic, each drawing into the current ImGui window,
// plus the small pure functions whose numbers they show (so tests can check them against core).
#pragma once
#include <Eigen/Core>

#include "app/state.hpp"

namespace rv {

void show_controls(App& app);       // parameters, position slider, presets
void show_notes(App& app);          // rejected or clamped inputs
void show_position_test(App& app);  // status strip: learned lookup at m (or its IndexError) vs RoPE

void show_rotations(App& app);      // 1. Q/K pair i on the unit circle, rotated by m * theta_i; V unchanged
void show_score_curve(App& app);    // 2. <RoPE(q, m), RoPE(k, n)> against m - n at two anchors, decay bound
void show_learned_table(App& app);  // 3. P[max_position, d] heatmap, row m, E[token] + P[t], IndexError
void show_angle_field(App& app);    // 4. cos(x * theta_i) over positions x and pairs i
void show_shape_trace(App& app);    // 5. the lesson's dims and every step's shape, parameter counts
void show_checks(App& app);         // 6. norm kept, relative property, section 3 table, core's checks
void show_comparison(App& app);     // 7. sections 4 and 5 with live values
// Beyond the lesson:
void show_extension(App& app);   // 8. context extension (rope_scaling): original vs scaled theta_i per pair
void show_precision(App& app);   // 9. angle error at m: naive float32 recipe vs ours, float16, bfloat16
void show_sinusoidal(App& app);  // 10. Vaswani's sinusoidal PE over positions x dims, position m marked

struct Panel {
  const char* name;
  void (*show)(App&);
};
constexpr int panel_count = 10;
const Panel* panels();  // the ten, in the order above

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
};
PairView pair_view(const App& app, int i);

// What the score panel draws at offset r in [-offsets, offsets]: the curves at both anchors and both
// true bounds on |score(r)| (the hover read-out shows exactly these).
struct ScoreAt {
  double a = 0, b = 0, bound = 0, roformer = 0;
};
ScoreAt score_at(const App& app, long long r);

}  // namespace rv
