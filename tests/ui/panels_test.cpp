// Every registered panel, headless: default and extreme settings on small, large and high-DPI
// displays without an ImGui assertion; the numbers they show match src/core; heavy settings do
// not rebuild data or allocate per frame.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "alloc_counter.hpp"
#include "app/panels/panel_views.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "app/ui/decimate.hpp"
#include "core/models/presets.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"
#include "imgui_internal.h"

using rv::test::Headless;

namespace {

// Shows every registered panel (both bars stepping together) for a few frames each; returns the
// ImGui assertions raised.
int run_all_tabs(Headless& ui) {
  const int before = rv::imgui_assert_count();
  const int tops = int(rv::bar_panels(rv::Bar::Top).size()), bottoms = int(rv::bar_panels(rv::Bar::Bottom).size());
  for (int t = 0; t < std::max(tops, bottoms); ++t) {
    ui.app.params.tab_top = t % tops;
    ui.app.params.tab_bottom = t % bottoms;
    ui.frames(3);
    CHECK(ui.app.ui.shown_tab[0] == t % tops);
    CHECK(ui.app.ui.shown_tab[1] == t % bottoms);
  }
  return rv::imgui_assert_count() - before;
}

void check_model_finite(const rv::Model& m) {
  CHECK(m.inv_freq.allFinite());
  CHECK(m.angles.allFinite());
  CHECK(std::isfinite(m.score));
  for (double s : m.curve_a) REQUIRE(std::isfinite(s));
  for (double s : m.bound) REQUIRE(std::isfinite(s));
  for (float v : m.field.values) REQUIRE(std::isfinite(v));
  CHECK(std::isfinite(m.relative_spread));
}

float root_scroll_max() {
  ImGuiWindow* w = ImGui::FindWindowByName("ropeviz");
  REQUIRE(w != nullptr);
  return w->ScrollMax.y;
}

}  // namespace

TEST_CASE("every panel draws at the lesson's defaults with no assertion, and the layout fits") {
  rv::test::for_each_setting({""}, [](Headless& ui) {
    CHECK(run_all_tabs(ui) == 0);
    CHECK(root_scroll_max() == 0.0f);  // nothing spills below the window
    check_model_finite(ui.app.model);
  });
}

TEST_CASE("extreme settings: every panel, every display, no assertion, finite values") {
  rv::test::for_each_setting(
      {
          "d_head=2&max_position=1&position=0",
          "d_head=1024&max_position=16&position=1000000000&key_position=0",
          "d_head=256&max_position=8192&offsets=4096&position=100000",
          "max_position=1&position=1000000000&offsets=65536&pairing=half_split",
          "d_head=2&offsets=65536&position=1000000000&key_position=1000000000",
          "heads=64&d_head=1024&max_position=1048576&batch=64&seq_len=8192&vocab=1000000",
          "heads=256&d_head=1024&max_position=1000000000&position=999999999",  // 2.6e14 entries, rows on demand
          "base=1000000&d_head=128&pairing=half_split&position=65536&max_position=4096",
      },
      [](Headless& ui) {
        CHECK(run_all_tabs(ui) == 0);
        check_model_finite(ui.app.model);
        CHECK(ui.app.model.table_img.rows <= rv::kHeatmapSideMax);
        CHECK(ui.app.model.table_img.cols <= rv::kHeatmapSideMax);
      });
}

TEST_CASE("every preset model: every panel draws with no assertion, finite values, a bounded table image") {
  for (const rv::Preset& preset : rv::presets()) {
    CAPTURE(preset.name);
    Headless ui;
    CHECK(ui.set_state(std::string("model=") + preset.name + "&position=100000").empty());
    CHECK(run_all_tabs(ui) == 0);
    check_model_finite(ui.app.model);
    CHECK(ui.app.model.table_img.rows <= rv::kHeatmapSideMax);
    CHECK(ui.app.model.table_img.cols <= rv::kHeatmapSideMax);
  }
}

TEST_CASE("rotations panel: arcs are fmod(m theta_i, 2 pi) and the pairs are core's rotations") {
  Headless ui;
  ui.set_state("position=1000000000&d_head=16&key_position=7&pairing=half_split");
  ui.frame();
  const rv::Model& m = ui.app.model;
  const Eigen::VectorXd theta = rv::rope_inv_freq(16, 10000.0);
  const Eigen::VectorXd q_rot = rv::apply_rope(m.q, 1e9, theta, rv::Pairing::HalfSplit);
  const Eigen::VectorXd k_rot = rv::apply_rope(m.k, 7.0, theta, rv::Pairing::HalfSplit);
  for (int i = 0; i < 8; ++i) {
    const rv::PairView v = rv::pair_view(ui.app, i);
    CHECK(v.theta == theta[i]);
    CHECK(v.angle_mod == std::fmod(1e9 * theta[i], rv::kTwoPi));
    CHECK(v.angle_mod >= 0.0);
    CHECK(v.angle_mod < rv::kTwoPi);
    CHECK(v.wavelength == doctest::Approx(rv::kTwoPi / theta[i]));
    CHECK(v.q_rot.x() == q_rot[i]);  // half-split: pair (x[i], x[i + d/2])
    CHECK(v.q_rot.y() == q_rot[i + 8]);
    CHECK(v.k_rot.x() == k_rot[i]);
    CHECK(v.q.norm() == doctest::Approx(v.q_rot.norm()).epsilon(1e-12));
    CHECK(v.beyond_table == (rv::kTwoPi / theta[i] > 10.0));
  }
  // The lesson's numbers at d_head 8, m = 3: theta = [1, 0.1, 0.01, 0.001], angle 3 rad for pair 0.
  ui.set_state("position=3&d_head=8&pairing=interleaved");
  ui.frame();
  CHECK(rv::pair_view(ui.app, 0).angle_mod == 3.0);
  CHECK(rv::pair_view(ui.app, 3).theta == 0.001);
  CHECK_FALSE(rv::pair_view(ui.app, 0).beyond_table);  // wavelength 6.28 < 10 rows
  CHECK(rv::pair_view(ui.app, 1).beyond_table);        // 62.8 > 10
}

TEST_CASE("score panel: curves are core's, decimation keeps the extremes, anchors coincide") {
  Headless ui;
  ui.set_state("offsets=65536&d_head=64&key_position=11&tab_bottom=1");
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  REQUIRE(m.curve_a.size() == 131073);
  std::vector<double> expect;
  rv::rope_score_curve(m.q, m.k, m.inv_freq, rv::Pairing::Interleaved, 11.0, -65536, 65536, expect);
  CHECK(expect == m.curve_a);
  CHECK(m.curve_a[65536] == doctest::Approx(rv::rope_score(m.q, m.k, 11, 11, m.inv_freq, rv::Pairing::Interleaved)));
  CHECK(m.relative_spread < 1e-9);

  // The plot decimated the curve to its pixel width: the extremes survive exactly.
  const rv::Decimated& d = ui.app.ui.dec_a;
  REQUIRE(d.columns > 100);
  CHECK(d.columns < 2000);
  double lo = 1e300, hi = -1e300;
  for (double s : m.curve_a) lo = std::min(lo, s), hi = std::max(hi, s);
  float dlo = 1e30f, dhi = -1e30f;
  for (int c = 0; c < d.columns; ++c) dlo = std::min(dlo, d.lo[c]), dhi = std::max(dhi, d.hi[c]);
  CHECK(dlo == float(lo));
  CHECK(dhi == float(hi));

  // decimate() on its own, against a brute-force min/max per column
  std::vector<double> y = {3, -1, 4, 1, -5, 9, 2, 6, -5, 3};
  rv::Decimated small;
  rv::decimate(y.data(), y.size(), 3, 1, small);
  REQUIRE(small.columns == 3);
  CHECK(small.lo[0] == -1.0f);  // [0, 3)
  CHECK(small.hi[0] == 4.0f);
  CHECK(small.lo[1] == -5.0f);  // [3, 6)
  CHECK(small.hi[1] == 9.0f);
  CHECK(small.lo[2] == -5.0f);  // [6, 10)
  CHECK(small.hi[2] == 6.0f);

  // The bounds are core's, at the curve's offsets.
  REQUIRE(m.bound.size() == m.curve_a.size());
  const rv::ScoreBound b0 =
      rv::rope_score_bound(rv::rope_pair_products(m.q, m.k, rv::Pairing::Interleaved), m.inv_freq, 0.0);
  CHECK(m.bound[65536] == doctest::Approx(b0.abel));
  CHECK(m.roformer_bound[65536] == doctest::Approx(b0.roformer));
}

TEST_CASE("learned table and angle field grids hold core's values") {
  Headless ui;
  ui.set_state("max_position=3000&d_head=64&position=2000");  // 3000 rows: downsampled 3 x 1
  ui.frame();
  const rv::Model& m = ui.app.model;
  CHECK(m.table_img.row_step == 3);
  CHECK(m.table_img.rows == 1000);
  CHECK(m.table_img.cols == 256);
  // texel (r, c) is the entry of largest magnitude among P[3r .. 3r+2, c]
  for (int r : {0, 17, 999}) {
    for (int c : {0, 100, 255}) {
      double best = 0;
      for (int t = 3 * r; t < 3 * r + 3; ++t)
        if (std::abs(m.table.P(t, c)) > std::abs(best)) best = m.table.P(t, c);
      CHECK(m.table_img.values[size_t(r) * m.table_img.cols + c] == float(best));
    }
  }
  CHECK(m.table_absmax == doctest::Approx(m.table.P.cwiseAbs().maxCoeff()));
  // angle field: cos(x theta_i) on field_columns positions over [0, field_x_end]; rows of aliased
  // pairs (theta_i * step > pi) hold 0
  const double x_end = m.field_x_end;
  CHECK(x_end >= 1.1 * 2000);
  for (int i : {0, 5, 31}) {
    for (int c : {0, 1, 200, rv::kFieldColumns - 1}) {
      const double x = x_end * c / (rv::kFieldColumns - 1);
      CHECK(m.field.values[size_t(i) * rv::kFieldColumns + c] ==
            doctest::Approx(m.field_aliased[size_t(i)] ? 0.0 : std::cos(x * m.inv_freq[i])).epsilon(1e-6));
    }
  }
  // The embedding sum's shape and the lookup
  REQUIRE(m.row.has_value());
  CHECK(m.row->size() == 256);
  CHECK(m.e_row.size() == 256);
}

TEST_CASE("past the table: the error is shown while every RoPE panel keeps working") {
  Headless ui;
  ui.set_state("position=100");
  CHECK(run_all_tabs(ui) == 0);
  const rv::Model& m = ui.app.model;
  REQUIRE(m.lookup_error.has_value());
  CHECK(m.lookup_error->full() == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
  CHECK(m.probes[0].learned_ok);  // P[5]
  CHECK(m.probes[1].learned_ok);  // P[9], the last row
  CHECK_FALSE(m.probes[2].learned_ok);
  CHECK(m.probes[2].learned == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
  CHECK(m.probes[2].angle0 == 100.0);
  CHECK(m.angles[0] == 100.0);
  CHECK(m.norm_max_diff < 1e-12);
  CHECK(rv::all_ok(m.checks));  // the lesson's claims hold at the lesson's dims
  ui.set_state("tab_top=rotations&tab_bottom=learned_table");
  std::string text = rv::describe(ui.app);  // the text layer speaks of the two panels on screen
  CHECK(text.find("missing row 100 marked") != std::string::npos);
  CHECK(text.find("3 of 4 pairs have a wavelength longer than max_position") != std::string::npos);
  ui.set_state("tab_bottom=score_curve");
  text = rv::describe(ui.app);
  CHECK(text.find("coincide within") != std::string::npos);
  CHECK(text.find("missing row 100 marked") == std::string::npos);
  const std::string json = rv::state_json(ui.app);
  CHECK(json.find("\"relative_spread\":") != std::string::npos);
  CHECK(json.find("\"absolute\":{\"ok\":false") != std::string::npos);
}

TEST_CASE("a tab chosen by a link is shown, and a clicked tab is written back to the hash") {
  Headless ui;
  ui.set_state("tab_top=1&tab_bottom=2");
  ui.frames(2);
  CHECK(ui.app.ui.shown_tab[0] == 1);
  CHECK(ui.app.ui.shown_tab[1] == 2);
  CHECK(rv::encode_query(ui.app.params).find("tab_top=angle_field&tab_bottom=checks") != std::string::npos);
  std::vector<std::string> notes;
  CHECK(rv::set_param(ui.app.params, "tab_bottom", "99", notes));  // clamped with a note
  CHECK(ui.app.params.tab_bottom == int(rv::bar_panels(rv::Bar::Bottom).size()) - 1);
  CHECK(notes.size() == 1);
}

TEST_CASE("heavy settings: steady frames rebuild nothing and allocate (almost) nothing") {
  Headless ui;
  ui.set_state("d_head=256&max_position=8192&offsets=4096&position=100000");
  const int tops = int(rv::bar_panels(rv::Bar::Top).size()), bottoms = int(rv::bar_panels(rv::Bar::Bottom).size());
  for (int tab = 0; tab < std::max(tops, bottoms); ++tab) {  // every top tab, every bottom tab
    const int bottom = tab % bottoms;
    CAPTURE(tab);
    ui.app.params.tab_bottom = bottom;
    ui.app.params.tab_top = tab % tops;
    ui.frames(4);  // settle the tab switch and caches
    const rv::Model& m = ui.app.model;
    const std::uint64_t table_v = m.table_img.version, field_v = m.field.version, curve_v = m.curve_version;
    const int recomputes = ui.app.ui.dec_a.recomputes;
    const long long before = rv::test::allocations();
    ui.frames(10);
    const long long per_frame = (rv::test::allocations() - before) / 10;
    MESSAGE("allocations per frame, top tab " << tab << ", bottom tab " << bottom << ": " << per_frame);
    CHECK(per_frame == 0);
    CHECK(m.table_img.version == table_v);
    CHECK(m.field.version == field_v);
    CHECK(m.curve_version == curve_v);
    CHECK(ui.app.ui.dec_a.recomputes == recomputes);
  }
  // Moving the position inside the field's range rebuilds neither the curves nor the table.
  const std::uint64_t table_v = ui.app.model.table_img.version, curve_v = ui.app.model.curve_version;
  const std::uint64_t field_v = ui.app.model.field.version;
  ui.app.params.position = 100050;
  ui.frame();
  CHECK(ui.app.model.table_img.version == table_v);
  CHECK(ui.app.model.curve_version == curve_v);
  CHECK(ui.app.model.field.version == field_v);
  CHECK(ui.app.model.angles[0] == 100050.0);
}

TEST_CASE("the assertion hook counts ImGui assertions (so the checks above can fail)") {
  Headless ui;
  ui.frame();
  const int before = rv::imgui_assert_count();
  ImGui::NewFrame();
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, 1.0f);  // float setter on an ImVec2 style var: asserts
  ImGui::Render();
  CHECK(rv::imgui_assert_count() == before + 1);
}
