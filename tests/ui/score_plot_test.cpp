// The score panel's bounds, headless: every curve point the panel draws stays inside the bound it draws.
#include <doctest/doctest.h>

#include <cmath>

#include "app/panels/panel_views.hpp"
#include "core/rope/rope.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

// Offsets where |curve| exceeds the bound (exactly, no tolerance: the bound is not tight at these points).
int crossings(const std::vector<double>& curve, const std::vector<double>& bound) {
  int n = 0;
  for (std::size_t j = 0; j < curve.size(); ++j) n += std::abs(curve[j]) > bound[j];
  return n;
}

// Columns where the drawn curve (min/max per column) leaves the drawn envelope (± the bound's column max).
int drawn_crossings(const rv::Decimated& curve, const rv::Decimated& bound) {
  REQUIRE(curve.columns == bound.columns);
  int n = 0;
  for (int c = 0; c < curve.columns; ++c) n += curve.hi[c] > bound.hi[c] || curve.lo[c] < -bound.hi[c];
  return n;
}

void check_drawn_within_bounds(const char* state) {
  CAPTURE(state);
  Headless ui;
  ui.set_state(state);
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  const rv::Ui& u = ui.app.ui;
  REQUIRE(m.bound.size() == m.curve_a.size());
  REQUIRE(m.roformer_bound.size() == m.curve_a.size());
  REQUIRE(u.dec_bound.n == m.curve_a.size());
  CHECK(crossings(m.curve_a, m.bound) == 0);
  CHECK(crossings(m.curve_b, m.bound) == 0);
  CHECK(crossings(m.curve_a, m.roformer_bound) == 0);
  CHECK(drawn_crossings(u.dec_a, u.dec_bound) == 0);
  CHECK(drawn_crossings(u.dec_b, u.dec_bound) == 0);
  CHECK(drawn_crossings(u.dec_a, u.dec_roformer) == 0);
  CHECK(drawn_crossings(u.dec_bound, u.dec_roformer) == 0);  // the Abel bound is the tighter one
  // What the hover shows at r is what the model (and so the plot) holds at r.
  const rv::ScoreAt s = rv::score_at(ui.app, -15);
  const std::size_t j = std::size_t(ui.app.params.offsets - 15);
  CHECK(s.a == m.curve_a[j]);
  CHECK(s.bound == m.bound[j]);
  CHECK(s.roformer == m.roformer_bound[j]);
}

}  // namespace

TEST_CASE("score panel: at the defaults every drawn curve point is within the drawn bound") {
  check_drawn_within_bounds("tab_bottom=1");
}

TEST_CASE("score panel: bounds hold at 131,073 offsets, wide heads and half-split pairing") {
  check_drawn_within_bounds("tab_bottom=1&offsets=65536&d_head=64&key_position=11");
  check_drawn_within_bounds("tab_bottom=1&offsets=4096&d_head=256&pairing=half_split&seed=7");
  check_drawn_within_bounds("tab_bottom=1&d_head=2&offsets=1000");
}

TEST_CASE("score panel: the bound is the Abel bound for this q, k and RoFormer's is its looser form") {
  Headless ui;
  ui.set_state("tab_bottom=1&d_head=16&seed=5");
  ui.frames(2);
  const rv::Model& m = ui.app.model;
  const Eigen::VectorXcd h = rv::rope_pair_products(m.q, m.k, rv::Pairing::Interleaved);
  for (long long r : {-64LL, -15LL, 0LL, 2LL, 63LL}) {
    CAPTURE(r);
    const rv::ScoreBound b = rv::rope_score_bound(h, m.inv_freq, double(r));
    CHECK(rv::score_at(ui.app, r).bound == doctest::Approx(b.abel).epsilon(1e-12));
    CHECK(rv::score_at(ui.app, r).roformer == doctest::Approx(b.roformer).epsilon(1e-12));
  }
}
