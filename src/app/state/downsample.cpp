// Signed block max-abs downsampling: block sizes, then each block's entry of largest magnitude.
#include "app/state/downsample.hpp"

#include "core/base/format.hpp"

namespace rv {
namespace {

template <class T>
Grid downsample(const T* values, int rows, int cols, int max_rows, int max_cols) {
  Grid g;
  const BlockSteps s = block_steps(rows, cols, max_rows, max_cols);
  g.row_step = s.rows;
  g.col_step = s.cols;
  g.rows = (rows + s.rows - 1) / s.rows;
  g.cols = (cols + s.cols - 1) / s.cols;
  g.values.assign(size_t(g.rows) * size_t(g.cols), 0.0f);
  for_each_block_maxabs([&](int r, int c) { return double(values[size_t(r) * size_t(cols) + size_t(c)]); }, rows, cols,
                        s, [&](int r, int c, double v) { g.values[size_t(r) * size_t(g.cols) + c] = float(v); });
  return g;
}

}  // namespace

BlockSteps block_steps(int rows, int cols, int max_rows, int max_cols) {
  BlockSteps s;
  s.rows = std::max(1, (rows + std::max(1, max_rows) - 1) / std::max(1, max_rows));
  s.cols = std::max(1, (cols + std::max(1, max_cols) - 1) / std::max(1, max_cols));
  return s;
}

Grid downsample_signed_maxabs(const double* values, int rows, int cols, int max_rows, int max_cols) {
  return downsample(values, rows, cols, max_rows, max_cols);
}

Grid downsample_signed_maxabs(const float* values, int rows, int cols, int max_rows, int max_cols) {
  return downsample(values, rows, cols, max_rows, max_cols);
}

std::string sampling_words(double x0, double x_end, double step, const char* sample) {
  std::string s = "positions " + format_count((long long)std::llround(x0)) + " to " +
                  format_count((long long)std::llround(x_end)) + ", ";
  const bool whole = step >= 1 ? step == std::round(step) : 1 / step == std::round(1 / step);
  const std::string about = whole ? "" : "about ";
  if (step == 1) return s + "one " + sample + " per position";
  if (step > 1) return s + about + format_sig(step, 3) + " positions per " + sample;
  return s + about + format_sig(1 / step, 2) + " " + sample + "s per position";
}

}  // namespace rv
