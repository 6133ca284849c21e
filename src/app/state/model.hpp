// Recomputes the Model from Params through src/core, touching only what the change affects.
#pragma once
#include <utility>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

constexpr double kAnchorShift = 1000.0;              // the score curve's second anchor is n + 1000
constexpr int kHeatmapSideMax = 1024;                // texture cap per side; larger tables are downsampled
constexpr int kFieldColumns = 512;                   // positions sampled by the angle field
constexpr double kOverviewStepMax = 10;              // widest step (positions per sample) of the 0..extent overview
constexpr int kSinusRowsMax = 512;                   // positions sampled by the sinusoidal heatmap
constexpr int kSinusPairsMax = kHeatmapSideMax / 2;  // pairs (2 columns each) the sinusoidal heatmap draws at most
constexpr int kSinusAtMDims = 8;                     // dims of PE[m] kept for the sinusoidal panel's read-out

// The precision panel's formats, in Model::precision's column order; rows are Naive, Ours.
constexpr FloatFormat kPrecisionFormats[3] = {FloatFormat::F32, FloatFormat::F16, FloatFormat::BF16};
constexpr AngleRecipe kPrecisionRecipes[2] = {AngleRecipe::Naive, AngleRecipe::Ours};

// The RopeScaling that Params describe (dynamic NTK sees a sequence reaching position m: m + 1).
RopeScaling scaling_of(const Params& p);

// P[position] of the app's table: built whole when small (Model::table_built), else its row drawn alone; the
// IndexError past it either way.
Expected<Eigen::RowVectorXd> table_lookup(const Params& p, const Model& model, long long position);
// P[t, j], for hover read-outs.
double table_value(const Params& p, const Model& model, int t, int j);
// The table row that row r of a `rows`-row sample of a max_position-row table shows (evenly spaced, from 0).
int table_sample_row(int max_position, int rows, int r);

// Where Model::probes look: in range, the last row, past the table (core's offset_probes) and m.
void probe_positions(const Params& p, long long (&out)[Model::kProbeCount]);

// Brings app.model up to date with app.params, rebuilding only the pieces whose inputs changed
// (Model::caches). Cheap when nothing changed: a comparison of small tuples. Called at the start
// of frame() and after the controls (app.cpp), and by the platform seams before reading state
// outside a frame.
void update_model(const Params& params, Model& model);
// Every preset's derivation and context budget, built on first use (tens of ms) and kept: presets never change.
const std::vector<CatalogRow>& model_catalog(Model& model);
// How often each cached piece has been built, by name ("freq", "table", ...), for tests.
std::vector<std::pair<const char*, int>> cache_builds(const Model& model);

// The overview's x range for a position and table: a 1-2-5 step above both, so dragging the
// position only rebuilds the field when it crosses a step.
double field_extent(long long position, int max_position);

// The positions a heatmap samples: `count` of them from x0 to x_end, `step` positions apart.
struct PositionWindow {
  double x0 = 0.0, x_end = 0.0, step = 1.0;
  int count = 0;
  double at(int i) const { return i == count - 1 ? x_end : x0 + step * i; }
};
// Where the angle field and the sinusoidal heatmap look, with at most `count` samples. The overview
// [0, field_extent] (m and max_position in view) while its step is at most overview_step_max and
// resolves the slowest pair (theta_slowest * step <= pi, so not every row is hatched); past that, `count` consecutive
// integer positions around m, one per sample, so every pair is resolved (theta_i <= 1 < pi). The window starts at a
// multiple of count / 4, so m sits in its middle half and a drag rebuilds it only every count / 4 positions.
PositionWindow position_window(long long position, int max_position, int count, double theta_slowest);
// Pairs whose angle turns by more than pi between samples `step` positions apart (theta_i * step
// > pi, past the Nyquist limit): sampled, they would show false, slower stripes.
std::vector<bool> aliased_pairs(const Eigen::VectorXd& inv_freq, double step);

}  // namespace rv
