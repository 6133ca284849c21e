// Recomputes the Model from Params through src/core, touching only what the change affects.
#pragma once
#include <utility>
#include <vector>

#include "app/state.hpp"

namespace rv {

constexpr double anchor_shift = 1000.0;  // the score curve's second anchor is n + 1000
constexpr int heatmap_side_max = 1024;   // texture cap per side; larger tables are downsampled
constexpr int field_columns = 512;       // positions sampled by the angle field
constexpr int decay_samples_max = 512;   // offsets at which the decay bound is evaluated
constexpr int sinus_rows_max = 512;      // positions sampled by the sinusoidal heatmap

// The precision panel's formats, in Model::precision's column order; rows are Naive, Ours.
constexpr FloatFormat precision_formats[3] = {FloatFormat::F32, FloatFormat::F16, FloatFormat::BF16};
constexpr AngleRecipe precision_recipes[2] = {AngleRecipe::Naive, AngleRecipe::Ours};

// The RopeScaling that Params describe (dynamic NTK sees a sequence reaching position m: m + 1).
RopeScaling scaling_of(const Params& p);

// Brings app.model up to date with app.params, rebuilding only the pieces whose inputs changed
// (Model::caches). Cheap when nothing changed: a comparison of small tuples. Called at the start
// of frame() and after the controls (app.cpp), and by the platform seams before reading state
// outside a frame.
void update_model(const Params& params, Model& model);
// How often each cached piece has been built, by name ("freq", "table", ...), for tests.
std::vector<std::pair<const char*, int>> cache_builds(const Model& model);

// The angle field's x range for a position and table: a 1-2-5 step above both, so dragging the
// position only rebuilds the field when it crosses a step.
double field_extent(long long position, int max_position);

}  // namespace rv
