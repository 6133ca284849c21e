// The trained-table panel: a planted smooth, low-rank table (what training makes) beside a random one of its shape;
// the numbers on screen are core's analysis, degenerate tables draw no NaN, the random side is built once per load,
// steady frames do not allocate, and a phone stacks the two sides.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/state/registry.hpp"
#include "app/trained_table/trained_view.hpp"
#include "app/state/weights.hpp"
#include "core/weights/byte_source.hpp"
#include "core/weights/safetensors.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

// P[t] = sum over three frequencies of cos(t w) a_f + sin(t w) b_f (fixed pseudo-random directions), plus 1e-4 noise.
std::vector<double> smooth_table(int rows, int dim) {
  std::uint64_t s = 7;
  auto uniform = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(s >> 11) / double(1ULL << 53) - 0.5;
  };
  std::vector<double> dirs(6 * std::size_t(dim));
  for (double& x : dirs) x = uniform();
  std::vector<double> P(std::size_t(rows) * dim);
  const double w[3] = {0.01, 0.023, 0.05}, amp[3] = {1.0, 0.6, 0.3};
  for (int t = 0; t < rows; ++t)
    for (int j = 0; j < dim; ++j) {
      double v = 1e-4 * uniform();
      for (int f = 0; f < 3; ++f)
        v += amp[f] * (std::cos(t * w[f]) * dirs[std::size_t(2 * f) * dim + j] +
                       std::sin(t * w[f]) * dirs[std::size_t(2 * f + 1) * dim + j]);
      P[std::size_t(t) * dim + j] = v;
    }
  return P;
}

// Opens `values` [rows, dim] as wpe.weight of model.safetensors and installs it, as a drop would.
void load_table(Headless& ui, int rows, int dim, std::vector<double> values, std::uint64_t serial) {
  const auto bytes = rv::write_safetensors({{"wpe.weight", {rows, dim}, std::move(values)}}, "F32", {});
  REQUIRE(bytes);
  rv::WeightsFiles files;
  files.label = "model.safetensors";
  files.file = "model.safetensors";
  const std::vector<std::uint8_t> data = *bytes;
  const rv::SourceOpener opener = [data](const std::string&) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(data));
  };
  const auto w = rv::open_weights(files, opener, serial);
  REQUIRE(w);
  REQUIRE((*w)->table);
  std::vector<std::string> notes;
  REQUIRE(rv::install_weights(ui.app.params, *w, notes));
}

struct Seen {
  double mean = NAN, sd = NAN;
  int rank90 = -1, of = -1;
};
// The number right after `label`, searched from `from` (moved past the number); NAN when either is missing.
double number_after(const std::string& text, const std::string& label, std::size_t& from) {
  from = from == std::string::npos ? from : text.find(label, from);
  if (from == std::string::npos) return NAN;
  const char* begin = text.c_str() + from + label.size();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  from = std::size_t(end - text.c_str());
  return end == begin ? NAN : v;
}

// The numbers one side's sentence shows: "<what> (...): neighbouring rows' cosine M ± S; 90% ... in R of N", read
// with the text's runs of white space (a wrapped line) as one space.
Seen read_side(const std::string& drawn, const std::string& what) {
  std::string text;
  for (char c : drawn)
    if (!std::isspace((unsigned char)c))
      text += c;
    else if (!text.empty() && text.back() != ' ')
      text += ' ';
  Seen s;
  std::size_t at = text.find(what);
  at = at == std::string::npos ? at : text.find(':', at);
  s.mean = number_after(text, ": neighbouring rows' cosine ", at);
  s.sd = number_after(text, " ± ", at);
  const double rank = number_after(text, "; 90% of the centred table's energy in ", at);
  const double of = number_after(text, " of ", at);
  if (std::isnan(s.mean) || std::isnan(s.sd) || std::isnan(rank) || std::isnan(of)) return Seen{};
  s.rank90 = int(rank);
  s.of = int(of);
  return s;
}

bool has_nan(const std::string& text) {
  return text.find("nan") != std::string::npos || text.find("NaN") != std::string::npos ||
         text.find("inf") != std::string::npos;
}

}  // namespace

TEST_CASE(
    "trained table: a planted smooth table reads near cosine 1 and a small rank, its random twin near 0 and large") {
  Headless ui(1600, 1000);
  ui.set_state("tab_bottom=trained_table");
  load_table(ui, 256, 64, smooth_table(256, 64), 1);
  ui.frames(2);
  const std::string text = ui.frame_sentences();
  INFO(text);
  const rv::TrainedView& v = ui.app.trained;
  REQUIRE(v.has_trained);
  const rv::LearnedTableAnalysis& t = v.sides[0].analysis;
  const rv::LearnedTableAnalysis& r = v.sides[1].analysis;
  const Seen trained = read_side(text, "Trained, measured on this checkpoint's table");
  const Seen random = read_side(text, "Random N(0, 0.02²) rows");
  // read off the screen, then compared with core's analysis (to the two decimals shown)
  CHECK(trained.mean > 0.95);
  CHECK(trained.rank90 >= 1);
  CHECK(trained.rank90 <= 6);
  CHECK(std::abs(trained.mean - rv::mean_sd(t.neighbour_cos).mean) <= 0.006);
  CHECK(trained.rank90 == t.rank90);
  CHECK(trained.of == 64);
  CHECK(std::abs(random.mean) < 0.1);
  CHECK(random.sd < 0.3);
  CHECK(random.rank90 > 30);
  CHECK(random.rank90 == r.rank90);
  CHECK(std::abs(random.mean - rv::mean_sd(r.neighbour_cos).mean) <= 0.006);
  CHECK(std::abs(random.sd - rv::mean_sd(r.neighbour_cos).sd) <= 0.006);
  CHECK(text.find("wpe.weight of model.safetensors") != std::string::npos);
  CHECK_FALSE(has_nan(text));
  // the text layer says the same
  const std::string words = rv::describe_panel(*rv::find_panel("trained_table"), ui.app);
  CHECK(words.find(v.sides[0].sentence) != std::string::npos);
  CHECK(words.find(v.sides[1].sentence) != std::string::npos);
}

TEST_CASE("trained table: the random twin is built once per load, and steady frames do not allocate") {
  Headless ui(1600, 1000);
  ui.set_state("tab_bottom=trained_table");
  ui.frames(2);
  CHECK(ui.app.trained.random_builds == 1);  // the app's own table, before any load
  load_table(ui, 128, 32, smooth_table(128, 32), 1);
  ui.frames(5);
  CHECK(ui.app.trained.random_builds == 2);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK(rv::test::allocations() - before == 0);
  CHECK(ui.app.trained.random_builds == 2);
  load_table(ui, 128, 32, smooth_table(128, 32), 2);  // a second load of the same shape: a new serial, one build
  ui.frames(3);
  CHECK(ui.app.trained.random_builds == 3);
}

TEST_CASE("trained table: degenerate tables (all zeros, one row, two columns) put no NaN on screen") {
  struct Case {
    int rows, dim;
    std::vector<double> values;
  };
  std::vector<Case> cases = {{16, 8, std::vector<double>(16 * 8, 0.0)},
                             {1, 8, std::vector<double>(8, 0.5)},
                             {40, 2, smooth_table(40, 2)}};
  for (Case& c : cases) {
    CAPTURE(c.rows);
    CAPTURE(c.dim);
    Headless ui(1600, 1000);
    ui.set_state("tab_bottom=trained_table");
    load_table(ui, c.rows, c.dim, c.values, 1);
    ui.frames(2);
    const std::string text = ui.frame_sentences();
    INFO(text);
    CHECK(ui.app.trained.has_trained);
    CHECK(text.find("Trained, measured on this checkpoint's table") != std::string::npos);
    CHECK_FALSE(has_nan(text));
    CHECK_FALSE(has_nan(rv::describe_panel(*rv::find_panel("trained_table"), ui.app)));
  }
}

TEST_CASE("trained table: without weights the app's random table and a line saying what to load, and a phone stacks") {
  Headless ui(390 * 3, 844 * 3, 3);
  ui.set_state("tab_bottom=trained_table&max_position=64&d_head=8&heads=2");
  ui.frames(3);
  CHECK(ui.app.ui.narrow);
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(text.find("model.safetensors") != std::string::npos);
  CHECK(text.find("GPT-2's wpe") != std::string::npos);
  const Seen random = read_side(text, "Random N(0, 0.02²) rows");
  CHECK(random.of == 16);
  CHECK(random.rank90 == ui.app.trained.sides[1].analysis.rank90);
  CHECK_FALSE(has_nan(text));
  load_table(ui, 64, 16, smooth_table(64, 16), 1);
  ui.frames(3);
  const std::string loaded = ui.frame_sentences();
  INFO(loaded);
  CHECK(loaded.find("Trained, measured on this checkpoint's table") != std::string::npos);
}
