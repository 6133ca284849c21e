// The three panels beyond the lesson, headless: context extension, precision and sinusoidal PE.
// They draw at defaults and extremes with no ImGui assertion, show core's numbers, take their
// link keys through set_param (bad values become notes), and recompute only when inputs change.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/panels/panel_views.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "core/encodings/sinusoidal.hpp"
#include "core/rope/precision.hpp"
#include "core/rope/scaling.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"

using rv::test::Headless;
using rv::test::has_note;

namespace {

constexpr int kExtensionTab = 3, precision_tab = 4, sinusoidal_tab = 5;

// Shows the three new tabs for a few frames each; returns the ImGui assertions raised.
int run_new_tabs(Headless& ui) {
  const int before = rv::imgui_assert_count();
  for (int tab = kExtensionTab; tab <= sinusoidal_tab; ++tab) {
    ui.app.params.tab_top = tab;
    ui.frames(3);
    CHECK(ui.app.ui.shown_tab[0] == tab);
    CHECK(ui.app.params.tab_top == tab);
  }
  return rv::imgui_assert_count() - before;
}

}  // namespace

TEST_CASE("new tabs come after the first three in the top bar, old tab indices are unchanged") {
  Headless ui;
  for (int tab = 0; tab < 3; ++tab) {
    ui.app.params.tab_top = tab;
    ui.frames(2);
    CHECK(ui.app.ui.shown_tab[0] == tab);
  }
  CHECK(run_new_tabs(ui) == 0);
  const auto& top = rv::bar_panels(rv::Bar::Top);
  CHECK(std::string(top[kExtensionTab]->title) == "Context extension");
  CHECK(std::string(top[precision_tab]->title) == "Precision");
  CHECK(std::string(top[sinusoidal_tab]->title) == "Sinusoidal");
  std::vector<std::string> notes;
  const int last = int(top.size()) - 1;
  CHECK(rv::set_param(ui.app.params, "tab_top", std::to_string(last), notes));
  CHECK(notes.empty());
  CHECK(rv::set_param(ui.app.params, "tab_top", std::to_string(last + 1), notes));  // clamped with a note
  CHECK(ui.app.params.tab_top == last);
  CHECK(notes.size() == 1);
}

TEST_CASE("the new panels draw at defaults and extremes, every method and display, with no assertion") {
  rv::test::for_each_setting(
      {
          "",
          "d_head=2&position=0",
          "d_head=2&position=1000000000&scaling=dynamic",  // core rejects d_head 2 for dynamic: an error box
          "d_head=1024&position=1000000000&scaling=yarn&factor=1000&original_max=1",
          "d_head=1024&position=0&scaling=llama3&base=500000&factor=8&original_max=8192",
          "d_head=128&position=1000000&scaling=linear&factor=0.001",
          "d_head=128&position=65536&scaling=dynamic&factor=1000&original_max=1",
          "d_head=64&position=5&scaling=yarn&beta_fast=1000&beta_slow=999&base=1000000000000",
          "d_head=16&position=1000000000&scaling=llama3&low_freq=999&high_freq=1000&original_max=1000000000",
          "d_head=1024&max_position=16&position=1000000000&scaling=none&base=1.0001",
      },
      [](Headless& ui) {
        CHECK(run_new_tabs(ui) == 0);
        const rv::Model& m = ui.app.model;
        if (m.scaling_error.empty()) {
          REQUIRE(m.scaled_inv_freq.size() == m.inv_freq.size());
          CHECK(m.scaled_inv_freq.allFinite());
          CHECK((m.scaled_inv_freq.array() > 0).all());
        }
        for (float v : m.sinus.values) REQUIRE(std::isfinite(v));
        CHECK(m.sinus.rows <= rv::kSinusRowsMax);
        CHECK(m.sinus.cols == std::min(ui.app.params.d_model(), 2 * rv::kSinusPairsMax));  // PE is d_model wide
        CHECK(std::isfinite(m.precision[1][0].max_angle_err));
        const std::string text = rv::describe(ui.app);  // the visible panel's sentence (sinusoidal, last shown)
        CHECK(text.find("Sinusoidal panel:") != std::string::npos);
      });
}

TEST_CASE("context extension: the plotted theta is core's rope_scaled_inv_freq for every method") {
  Headless ui;
  for (const char* method : {"none", "linear", "dynamic", "yarn", "llama3"}) {
    CAPTURE(method);
    ui.set_state(std::string("tab_top=3&d_head=64&base=10000&position=20000&factor=4&original_max=2048&scaling=") +
                 method);
    ui.frames(2);
    const rv::Params& p = ui.app.params;
    const rv::Model& m = ui.app.model;
    CHECK(std::string(rv::scaling_name(p.scaling)) == method);
    rv::Expected<rv::ScaledFreq> want = rv::rope_scaled_inv_freq(64, 10000.0, rv::scaling_of(p));
    REQUIRE(want.ok());
    REQUIRE(m.scaling_error.empty());
    REQUIRE(m.scaled_inv_freq.size() == 32);
    for (int i = 0; i < 32; ++i) {
      const rv::ExtensionPair e = rv::extension_pair(ui.app, i);
      CHECK(e.scaled == want.value().inv_freq[i]);
      CHECK(e.theta == rv::rope_inv_freq(64, 10000.0)[i]);
      CHECK(e.scaled_wavelength == doctest::Approx(6.283185307179586 / want.value().inv_freq[i]));
    }
    CHECK(m.attention_factor == want.value().attention_factor);
    const std::string text = rv::describe(ui.app);
    CHECK(text.find(std::string("Context extension panel: ") + method + " scaling with factor 4") != std::string::npos);
  }
  // Dynamic NTK sees the sequence m + 1: it changes theta only past original_max.
  ui.set_state("scaling=dynamic&position=100&original_max=2048");
  ui.frame();
  CHECK(ui.app.model.scaled_inv_freq == ui.app.model.inv_freq);
  ui.set_state("position=8191");
  ui.frame();
  CHECK(ui.app.model.scaled_inv_freq[31] < ui.app.model.inv_freq[31]);
  CHECK(ui.app.model.scaled_inv_freq[0] == ui.app.model.inv_freq[0]);
}

TEST_CASE("context extension: linear divides every pair, Llama 3.1 keeps the fast pairs and divides the slow") {
  Headless ui;
  ui.set_state("tab_top=3&d_head=128&scaling=linear&factor=8");
  ui.frames(2);
  for (int i = 0; i < 64; ++i) {
    const rv::ExtensionPair e = rv::extension_pair(ui.app, i);
    CHECK(e.scaled == doctest::Approx(e.theta / 8).epsilon(1e-14));
    CHECK(e.band == rv::Band::Interpolated);
    CHECK(e.interpolated == doctest::Approx(1.0));
  }

  // The preset button's values, through links: Llama 3.1 (base 500000, factor 8, low 1, high 4, original 8192).
  ui.set_state("d_head=128&base=500000&scaling=llama3&factor=8&low_freq=1&high_freq=4&original_max=8192");
  ui.frames(2);
  const rv::RopeScaling l = rv::llama31_scaling();
  CHECK(rv::scaling_of(ui.app.params).factor == l.factor);
  CHECK(rv::scaling_of(ui.app.params).low_freq_factor == l.low_freq_factor);
  CHECK(rv::scaling_of(ui.app.params).high_freq_factor == l.high_freq_factor);
  CHECK(rv::scaling_of(ui.app.params).original_max_position_embeddings == l.original_max_position_embeddings);
  const rv::Expected<rv::ScaledFreq> want = rv::rope_scaled_inv_freq(128, 500000.0, l);
  REQUIRE(want.ok());
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 64; ++i) {
    const rv::ExtensionPair e = rv::extension_pair(ui.app, i);
    CHECK(e.scaled == want.value().inv_freq[i]);
    counts[int(e.band)] += 1;
    if (e.wavelength < 8192.0 / 4) CHECK(e.band == rv::Band::Kept);
    if (e.wavelength > 8192.0 / 1) CHECK(e.band == rv::Band::Interpolated);
  }
  CHECK(rv::extension_pair(ui.app, 0).scaled == rv::extension_pair(ui.app, 0).theta);  // fastest: unchanged
  CHECK(rv::extension_pair(ui.app, 63).scaled == doctest::Approx(rv::extension_pair(ui.app, 63).theta / 8));  // slowest
  CHECK(counts[0] > 0);
  CHECK(counts[1] > 0);
  CHECK(counts[2] > 0);  // the band between original/high and original/low
  CHECK(ui.app.model.attention_factor == 1.0);

  // YaRN: the ramp's range and attention factor are core's.
  ui.set_state("scaling=yarn&factor=8&original_max=4096&base=10000");
  ui.frame();
  const rv::RopeScaling y = rv::scaling_of(ui.app.params);
  CHECK(ui.app.model.yarn_range == rv::yarn_correction_range(128, 10000.0, y));
  CHECK(ui.app.model.attention_factor == doctest::Approx(0.1 * std::log(8.0) + 1.0));
  CHECK(rv::extension_pair(ui.app, 0).band == rv::Band::Kept);
  CHECK(rv::extension_pair(ui.app, 63).band == rv::Band::Interpolated);
}

TEST_CASE("context extension: bad values via links become notes, the last good value is kept or clamped") {
  Headless ui;
  struct Case {
    const char* query;
    const char* note;
  };
  const Case cases[] = {
      {"factor=0", "factor='0' must be a number greater than 0; kept 8"},
      {"factor=-3", "must be a number greater than 0"},
      {"factor=nan", "must be a number greater than 0"},
      {"factor=inf", "must be a number greater than 0"},
      {"factor=1e9", "factor='1e9' is above 1000; using that"},
      {"scaling=ntk", "scaling='ntk' is not none, linear, dynamic, yarn or llama3; kept none"},
      {"original_max=0", "original_max='0' is outside [1, 1000000000]; using 1"},
      {"original_max=12.5", "is not a whole number"},
      {"low_freq=4&high_freq=1", "must be below high_freq"},
      {"beta_fast=1&beta_slow=32", "must be below beta_fast"},
      {"high_freq=-1", "must be a number greater than 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.query);
    Headless fresh;
    const std::vector<std::string> notes = fresh.set_state(c.query);
    CHECK(has_note(notes, c.note));
    const rv::Params& p = fresh.app.params;
    CHECK(std::isfinite(p.factor));
    CHECK(p.factor > 0);
    CHECK(p.factor <= rv::Limits::kFactorMax);
    CHECK(p.original_max >= 1);
    CHECK(p.low_freq < p.high_freq);
    CHECK(p.beta_slow < p.beta_fast);
  }
  std::vector<std::string> notes = ui.set_state("factor=1e9&original_max=0&scaling=bogus&tab_top=3");
  CHECK(ui.app.params.factor == 1000.0);
  CHECK(ui.app.params.original_max == 1.0);
  CHECK(ui.app.params.scaling == rv::ScalingType::None);
  CHECK(notes.size() == 3);
  // A setting core rejects (dynamic needs d_head >= 4) is shown as core's error, not a crash.
  ui.set_state("scaling=dynamic&d_head=2");
  CHECK(run_new_tabs(ui) == 0);
  CHECK(ui.app.model.scaling_error.find("d_head >= 4") != std::string::npos);
  CHECK(ui.app.model.scaled_inv_freq.size() == 0);
  ui.app.params.tab_top = kExtensionTab;
  CHECK(rv::describe(ui.app).find("Context extension panel: BadRequest") != std::string::npos);
}

TEST_CASE("the new link keys round-trip through encode_query") {
  rv::Params p;
  std::vector<std::string> notes;
  rv::apply_query(p,
                  "scaling=yarn&factor=8&original_max=4096&beta_fast=16&beta_slow=2&low_freq=1.5&high_freq=3.25"
                  "&tab_top=4",
                  notes);
  CHECK(notes.empty());
  CHECK(p.scaling == rv::ScalingType::Yarn);
  CHECK(p.factor == 8.0);
  CHECK(p.beta_fast == 16.0);
  CHECK(p.low_freq == 1.5);
  const std::string hash = rv::encode_query(p);
  CHECK(hash.find("scaling=yarn&factor=8&original_max=4096&low_freq=1.5&high_freq=3.25&beta_fast=16&beta_slow=2") !=
        std::string::npos);
  rv::Params back;
  rv::apply_query(back, hash, notes);
  CHECK(notes.empty());
  CHECK(back == p);
  back.factor = 2.5;
  CHECK(back != p);  // factor takes part in ==, so the model notices the change
  for (const char* method : {"none", "linear", "dynamic", "llama3"}) {
    rv::Params q;
    rv::apply_query(q, std::string("scaling=") + method + "&factor=0.125", notes);
    rv::Params r;
    rv::apply_query(r, rv::encode_query(q), notes);
    CHECK(r == q);
  }
  CHECK(notes.empty());
}

TEST_CASE("precision: the panel's numbers are core's, naive float32 loses about 5e-2 rad at m = 1e6, ours < 1e-6") {
  Headless ui;
  ui.set_state("tab_top=4&position=1000000&d_head=128");
  ui.frames(2);
  const rv::Model& m = ui.app.model;
  for (int r = 0; r < 2; ++r)
    for (int f = 0; f < 3; ++f) {
      const rv::PrecisionReport want =
          rv::rope_precision(128, 10000.0, 1e6, rv::kPrecisionFormats[f], rv::kPrecisionRecipes[r]);
      const rv::PrecisionReport& got = m.precision[r][f];
      CHECK(got.format == want.format);
      CHECK(got.recipe == want.recipe);
      CHECK(got.max_angle_err == want.max_angle_err);
      CHECK(got.position_in_format == want.position_in_format);
      REQUIRE(got.pairs.size() == 64);
      for (int i : {0, 1, 31, 63}) {  // naive float16 overflows m: NaN on both sides
        const double a = got.pairs[size_t(i)].angle_err, b = want.pairs[size_t(i)].angle_err;
        CHECK((a == b || (std::isnan(a) && std::isnan(b))));
      }
    }
  const double naive = m.precision[0][0].max_angle_err, ours = m.precision[1][0].max_angle_err;
  MESSAGE("m = 1e6, d_head 128: naive float32 " << naive << " rad, ours " << ours << " rad");
  CHECK(naive > 1e-2);
  CHECK(naive < 0.2);
  CHECK(ours < 1e-6);
  CHECK(m.precision[0][2].position_in_format == 999424.0);  // bf16: 8 significant bits
  CHECK(rv::exact_integer_limit(rv::FloatFormat::BF16) == 256.0);
  CHECK(std::isinf(m.precision[0][1].position_in_format));  // float16 overflows past 65504
  const std::string text = rv::describe(ui.app);
  CHECK(text.find("Precision panel: at position 1,000,000") != std::string::npos);
  CHECK(text.find("exactly only up to 256, so position 1,000,000 would round to 999,424 if the angles were built in "
                  "bfloat16") != std::string::npos);

  // Small positions are exact in every format; at m = 0 every angle is exact.
  ui.set_state("position=0");
  ui.frame();
  CHECK(m.precision[0][0].max_angle_err == 0.0);
  CHECK(m.precision[0][2].position_in_format == 0.0);
  ui.set_state("position=257");
  ui.frame();
  CHECK(m.precision[0][2].position_in_format == 256.0);  // 257 is not a bfloat16
  CHECK(m.precision[0][0].position_in_format == 257.0);
}

TEST_CASE("sinusoidal: the heatmap grid holds core's PE at integer positions, m marked inside the range") {
  Headless ui;
  ui.set_state("tab_top=5&d_head=16&position=3000");  // 4 heads: d_model 64
  ui.frames(2);
  const rv::Model& m = ui.app.model;
  CHECK(m.sinus_x_end == rv::field_extent(3000, 10));
  CHECK(m.sinus_x_end >= 3000);
  REQUIRE(m.sinus.rows == rv::kSinusRowsMax);
  REQUIRE(m.sinus.cols == 64);
  const rv::RowMatrixXd pe = rv::sinusoidal(64, m.sinus_positions, 10000.0);
  for (int r : {0, 1, 255, rv::kSinusRowsMax - 1}) {
    CHECK(m.sinus_positions[size_t(r)] == std::round(m.sinus_positions[size_t(r)]));
    for (int c = 0; c < 64; ++c)  // dims of aliased pairs (theta_i * step > pi) hold 0
      CHECK(m.sinus.values[size_t(r) * 64 + c] == (m.sinus_aliased[size_t(c / 2)] ? 0.0f : float(pe(r, c))));
  }
  CHECK(m.sinus_positions.front() == 0.0);
  CHECK(m.sinus_positions.back() == m.sinus_x_end);
  // Vaswani's frequencies at width d_model = 64 and base 10,000: dims (2i, 2i+1) = (sin, cos)(pos / 10000^(2i/64)).
  REQUIRE(m.sinus_at_m.size() == rv::kSinusAtMDims);
  for (int i = 0; i < rv::kSinusAtMDims / 2; ++i) {
    const double theta = 1.0 / std::pow(10000.0, 2.0 * i / 64);
    CHECK(m.sinus_at_m[2 * i] == doctest::Approx(std::sin(3000.0 * theta)).epsilon(1e-12));
    CHECK(m.sinus_at_m[2 * i + 1] == doctest::Approx(std::cos(3000.0 * theta)).epsilon(1e-12));
  }
  // Few positions: every integer position is a row.
  ui.set_state("position=3");
  ui.frame();
  CHECK(m.sinus_x_end == 100.0);  // field_extent: 1-2-5 step above 64
  CHECK(m.sinus.rows == 101);
  CHECK(m.sinus_positions[3] == 3.0);
  CHECK(rv::describe(ui.app).find("Sinusoidal panel: ") != std::string::npos);
}

TEST_CASE("the new panels recompute only when their inputs change") {
  Headless ui;
  ui.set_state("d_head=256&position=100000&scaling=llama3&tab_top=3");
  ui.frames(3);
  rv::Model& m = ui.app.model;
  for (int tab = kExtensionTab; tab <= sinusoidal_tab; ++tab) {
    ui.app.params.tab_top = tab;
    ui.frames(3);
    const std::uint64_t s = m.scaling_version, pr = m.precision_version, si = m.sinus.version;
    ui.frames(10);
    CHECK(m.scaling_version == s);
    CHECK(m.precision_version == pr);
    CHECK(m.sinus.version == si);
  }
  // Moving m: precision follows it; scaling (not dynamic) and the sinusoidal grid (same range) do not.
  const std::uint64_t s = m.scaling_version, pr = m.precision_version, si = m.sinus.version;
  ui.app.params.position = 100050;
  ui.frame();
  CHECK(m.scaling_version == s);
  CHECK(m.precision_version != pr);
  CHECK(m.sinus.version == si);
  CHECK(m.precision[0][0].position == 100050.0);
  // Changing the factor rebuilds only the scaling.
  const std::uint64_t pr2 = m.precision_version;
  ui.app.params.factor = 16;
  ui.frame();
  CHECK(m.scaling_version != s);
  CHECK(m.precision_version == pr2);
  CHECK(m.sinus.version == si);
  // Dynamic NTK follows the sequence length m + 1.
  ui.app.params.scaling = rv::ScalingType::Dynamic;
  ui.frame();
  const std::uint64_t s2 = m.scaling_version;
  ui.app.params.position = 100501;
  ui.frame();
  CHECK(m.scaling_version != s2);
}
