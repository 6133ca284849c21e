// Heatmaps: block max-abs downsampling keeps outliers; angle field and sinusoidal never draw an aliased pair.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/state/model.hpp"
#include "app/ui/heatmap.hpp"
#include "core/encodings/sinusoidal.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {


// Every pair drawn as resolved turns at most pi per sample and holds cos(x theta_i); every other
// pair is flagged and drawn as 0 (hatched by the panel), never as stripes.
void check_field(const rv::Model& m, long long position) {
  const rv::Grid& g = m.field;
  REQUIRE(g.rows == int(m.inv_freq.size()));
  REQUIRE(g.cols == rv::kFieldColumns);
  REQUIRE(m.field_aliased.size() == size_t(g.rows));
  const double step = (m.field_x_end - m.field_x0) / (g.cols - 1);  // positions per column
  CHECK(step == doctest::Approx(m.field_step));
  CHECK(m.field_x0 <= double(position));
  CHECK(double(position) <= m.field_x_end);
  for (int i = 0; i < g.rows; ++i) {
    CAPTURE(i);
    const bool resolved = m.inv_freq[i] * step <= rv::kPi;
    CHECK(m.field_aliased[size_t(i)] == !resolved);
    for (int c : {0, 1, g.cols / 2, g.cols - 1}) {
      const double x = m.field_x0 + c * step;
      const double expect = resolved ? std::cos(x * m.inv_freq[i]) : 0.0;
      CHECK(g.values[size_t(i) * g.cols + c] == doctest::Approx(expect).epsilon(1e-5));
    }
  }
}

// The same rule for the sinusoidal heatmap: rows are integer positions at most sinus_step apart; its pairs are
// Vaswani's at width d_model (every pair, or kSinusPairsMax of them evenly spaced), with base 10,000.
void check_sinus(const rv::Model& m, long long position, int d_model) {
  const rv::Grid& g = m.sinus;
  const int drawn = std::min(d_model / 2, rv::kSinusPairsMax);
  REQUIRE(g.cols == 2 * drawn);
  REQUIRE(size_t(g.rows) == m.sinus_positions.size());
  CHECK(m.sinus_positions.front() <= double(position));
  CHECK(double(position) <= m.sinus_positions.back());
  double spacing = 1.0;
  for (size_t r = 1; r < m.sinus_positions.size(); ++r)
    spacing = std::max(spacing, m.sinus_positions[r] - m.sinus_positions[r - 1]);
  REQUIRE(m.sinus_aliased.size() == size_t(drawn));
  for (int i = 0; i < drawn; ++i) {
    CAPTURE(i);
    const int dim = m.sinus_dims[size_t(2 * i)];
    CHECK(m.sinus_dims[size_t(2 * i + 1)] == dim + 1);
    CHECK(m.sinus_theta[i] == rv::sinusoidal_theta(d_model, dim / 2, 10000.0));
    const bool resolved = m.sinus_theta[i] * spacing <= rv::kPi;
    CHECK(m.sinus_aliased[size_t(i)] == !resolved);
    if (!resolved)
      for (int r : {0, g.rows - 1}) CHECK(g.values[size_t(r) * g.cols + 2 * i] == 0.0f);
  }
}

}  // namespace

TEST_CASE("downsample_signed_maxabs: a lone outlier survives with its sign, steps fit the limits") {
  std::vector<double> v(size_t(3000) * 8, 0.01);
  v[size_t(1234) * 8 + 5] = -7.5;  // one negative outlier in a sea of small positives
  const rv::Grid g = rv::downsample_signed_maxabs(v.data(), 3000, 8, 1024, 1024);
  CHECK(g.row_step == 3);
  CHECK(g.col_step == 1);
  CHECK(g.rows == 1000);
  CHECK(g.cols == 8);
  CHECK(g.values[size_t(1234 / 3) * 8 + 5] == -7.5f);
  CHECK(g.values[size_t(1234 / 3) * 8 + 4] == 0.01f);
  CHECK(g.values[0] == 0.01f);

  // Both dimensions: 5 x 7 into 2 x 3 takes 3 x 3 blocks; the last blocks are partial.
  std::vector<float> f(35);
  for (int i = 0; i < 35; ++i) f[size_t(i)] = 0.1f * float(i % 7);
  f[4 * 7 + 6] = -9.0f;  // the bottom-right corner, alone in its partial block
  f[1 * 7 + 1] = 3.0f;
  const rv::Grid h = rv::downsample_signed_maxabs(f.data(), 5, 7, 2, 3);
  CHECK(h.row_step == 3);
  CHECK(h.col_step == 3);
  REQUIRE(h.rows == 2);
  REQUIRE(h.cols == 3);
  CHECK(h.values[0] == 3.0f);
  CHECK(h.values[1] == doctest::Approx(0.5f));
  CHECK(h.values[5] == -9.0f);

  // Small grids are copied as they are.
  const double small[4] = {1, -2, 3, -4};
  const rv::Grid s = rv::downsample_signed_maxabs(small, 2, 2, 1024, 1024);
  CHECK(s.row_step == 1);
  CHECK(s.values == std::vector<float>{1, -2, 3, -4});
}

TEST_CASE("angle field at m = 1,000,000: a window around m, one column per position, no aliased stripes") {
  Headless ui;
  ui.set_state("position=1000000&tab_top=1");
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  check_field(m, 1000000);
  CHECK(m.field_step == 1.0);
  CHECK(m.field_words.find("positions 999,680 to 1,000,191, one column per position") == 0);
  check_sinus(m, 1000000, ui.app.params.d_model());
}

TEST_CASE("angle field and sinusoidal heatmap: resolved rows turn at most pi per sample, the rest flagged") {
  const char* positions[] = {"0", "5", "100", "3000", "4545", "5000", "65536", "1000000", "123456789", "1000000000"};
  const char* d_heads[] = {"2", "8", "64", "256"};
  const char* bases[] = {"10", "10000", "500000"};
  Headless ui;
  int flagged = 0;
  for (const char* pos : positions)
    for (const char* d : d_heads)
      for (const char* base : bases) {
        const std::string state = std::string("tab_top=1&position=") + pos + "&d_head=" + d + "&base=" + base;
        CAPTURE(state);
        ui.set_state(state);
        ui.frames(1);
        check_field(ui.app.model, std::atoll(pos));
        check_sinus(ui.app.model, std::atoll(pos), ui.app.params.d_model());
        for (bool a : ui.app.model.field_aliased) flagged += a;
      }
  CHECK(flagged > 0);  // the overview does flag some fast pairs: the rule is exercised both ways
}

TEST_CASE("sampling_words: the range and resolution as a person says them") {
  CHECK(rv::sampling_words(999680, 1000191, 1.0, "column") ==
        "positions 999,680 to 1,000,191, one column per position");
  CHECK(rv::sampling_words(0, 5000, 5000.0 / 511, "column") == "positions 0 to 5,000, about 9.78 positions per column");
  CHECK(rv::sampling_words(0, 100, 100.0 / 511, "row") == "positions 0 to 100, about 5.1 rows per position");
  CHECK(rv::sampling_words(0, 1000, 2.0, "row") == "positions 0 to 1,000, 2 positions per row");
}

TEST_CASE("position_window: the overview from 0 while it resolves the slowest pair, else one position per sample") {
  const rv::PositionWindow small = rv::position_window(5, 10, 512, 1e-4);
  CHECK(small.x0 == 0.0);
  CHECK(small.x_end == 100.0);  // field_extent: 1-2-5 step above 64
  CHECK(small.step == doctest::Approx(100.0 / 511));
  const rv::PositionWindow far = rv::position_window(1000000, 10, 512, 1e-4);
  CHECK(far.x0 == 999680.0);
  CHECK(far.x_end == 1000191.0);
  CHECK(far.step == 1.0);
  // One pair (d_head = 2, theta = 1): an overview at 9.78 positions per column would hatch every row.
  CHECK(rv::position_window(3000, 10, 512, 1e-4).step == doctest::Approx(5000.0 / 511));
  CHECK(rv::position_window(3000, 10, 512, 1.0).step == 1.0);
  for (long long m : {0LL, 1LL, 255LL, 4546LL, 99999LL, 1000000LL, 999999999LL}) {
    CAPTURE(m);
    const rv::PositionWindow w = rv::position_window(m, 10, 512, 1e-4);
    CHECK(w.x0 <= double(m));
    CHECK(double(m) <= w.x_end);
    CHECK(w.at(w.count - 1) == w.x_end);
    if (w.x0 > 0) CHECK(double(m) - w.x0 >= 128.0);  // m in the middle half, not at an edge
  }
}
