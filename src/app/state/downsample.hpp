// Signed block max-abs downsampling of value grids (pure: the model builds its heatmap grids with it, the UI draws
// them): a lone outlier stays visible however far a grid is reduced.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

#include "app/state/state.hpp"

namespace rv {

// Source rows and columns per output cell so that a [rows, cols] grid fits in [max_rows, max_cols].
struct BlockSteps {
  int rows = 1, cols = 1;
};
BlockSteps block_steps(int rows, int cols, int max_rows, int max_cols);

// Calls emit(out_row, out_col, v) for each block of `steps` in a [rows, cols] grid read through
// at(r, c), where v is the block's entry of largest magnitude, with its sign: a lone outlier survives.
template <class At, class Emit>
void for_each_block_maxabs(const At& at, int rows, int cols, BlockSteps steps, const Emit& emit) {
  for (int r0 = 0, br = 0; r0 < rows; r0 += steps.rows, ++br) {
    for (int c0 = 0, bc = 0; c0 < cols; c0 += steps.cols, ++bc) {
      double best = 0.0;
      for (int r = r0; r < std::min(rows, r0 + steps.rows); ++r)
        for (int c = c0; c < std::min(cols, c0 + steps.cols); ++c) {
          const double v = at(r, c);
          if (std::abs(v) > std::abs(best)) best = v;
        }
      emit(br, bc, best);
    }
  }
}

// values [rows, cols] (row-major) downsampled to at most [max_rows, max_cols] by signed block
// max-abs; the Grid records its row_step and col_step. Its version is left at 0 for the caller.
Grid downsample_signed_maxabs(const double* values, int rows, int cols, int max_rows, int max_cols);
Grid downsample_signed_maxabs(const float* values, int rows, int cols, int max_rows, int max_cols);

// The sampled range in words: "positions 999,680 to 1,000,191, one column per position",
// "positions 0 to 5,000, about 9.78 positions per column" (`sample` is "column" or "row").
std::string sampling_words(double x0, double x_end, double step, const char* sample);

}  // namespace rv
