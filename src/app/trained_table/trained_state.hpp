// The trained-table panel's state in App (App::trained): its two sides' analyses; data only, read by the house.
#pragma once
#include <cstdint>
#include <string>

#include "core/base/matrix.hpp"
#include "core/weights/learned_table.hpp"

namespace rv {

// One side of the trained-table panel: a table's analysis and what the panel draws of it, built once per table.
struct TrainedSide {
  bool trained = false;   // a checkpoint's table, not a seeded random one
  std::string name;       // "wpe.weight of model.safetensors", "the app's random table"
  std::string sentence;   // its measured numbers in words (app/trained_table/trained_view.cpp)
  std::string too_large;  // why it was not analysed, or ""
  LearnedTableAnalysis analysis;
  RowMatrixXd cosines;            // core's sampled_cosines [side, side]
  double component_absmax = 0.0;  // max |component| over the top three (the path's scale)
};
// The trained-table panel's sides (app/trained_table/trained_view.hpp): [0] the loaded table when there is one, [1] a
// random table of the same shape. Built when the panel is first shown after a load or a change of frame, not per frame.
struct TrainedView {
  std::uint64_t serial = 0;  // weights_serial the sides were built for
  long long rows = -1, dim = -1;
  std::uint64_t seed = 0;
  bool has_trained = false;
  TrainedSide sides[2];
  int random_builds = 0;  // the random side's analyses, for tests
};

}  // namespace rv
