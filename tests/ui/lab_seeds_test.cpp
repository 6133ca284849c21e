// The Lab over several seeds: the seeds link key, the run's progress per seed, the summary's means and bands, the
// sentence about who holds up past L, the CSV's rows per seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "app/lab/lab_export.hpp"
#include "app/state/export.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "core/base/format.hpp"
#include "headless.hpp"

using rv::test::contains;
using rv::test::Headless;

namespace rv {
std::string describe_lab(const App& app);  // the panel's text layer (registry)
}

namespace {
constexpr const char* kSeeded = "tab=lab&task=copy&train_len=2&steps=20&methods=rope,none&lab_seed=4&seeds=3";
}  // namespace

TEST_CASE("lab seeds: the link key, its bounds, and the flags a Run takes") {
  Headless ui;
  CHECK(ui.set_state(kSeeded).empty());
  CHECK(ui.app.params.lab_seeds == 3);
  CHECK(contains(rv::encode_query(ui.app.params), "seeds=3"));
  const std::vector<std::string> flags = rv::lab_flags(ui.app.params);
  const auto at = std::find(flags.begin(), flags.end(), "--seeds");
  REQUIRE(at != flags.end());
  CHECK(*(at + 1) == "3");
  CHECK(rv::lab_options(ui.app.params).seeds == 3);
  for (const auto& c : {std::pair<const char*, int>{"seeds=0", 1}, {"seeds=17", 16}, {"seeds=x", 3}}) {
    Headless other;
    CHECK(!other.set_state(c.first).empty());  // a note, and the value clamped (a number) or the default kept
    CHECK(other.app.params.lab_seeds == c.second);
  }
  Headless last;  // the largest seed leaves no room for three runs: lab_seed moves down, with a note
  const auto notes = last.set_state("lab_seed=9007199254740991&seeds=3");
  CHECK(!notes.empty());
  CHECK(last.app.params.lab_seed == 9007199254740989ULL);
  CHECK(rv::parse_lab_options(rv::lab_flags(last.app.params)));
}

TEST_CASE("lab seeds: progress names the seed, the summary gives means and bands and says whether they separate") {
  Headless ui;
  ui.set_state(kSeeded);
  ui.frames(2);
  ui.click("lab_run");
  bool saw_second_seed = false;
  for (int f = 0; f < 10000 && ui.app.lab.running; ++f) {
    ui.frame();
    saw_second_seed = saw_second_seed || contains(rv::lab_status(ui.app), "rope seed 5 (2 of 3)");
  }
  CHECK(saw_second_seed);
  const rv::LabResult& r = ui.app.lab.run->result();
  REQUIRE(r.methods.size() == 2);
  CHECK(r.methods[0].runs.size() == 3);
  CHECK(r.methods[1].runs[2].seed == 6);
  ui.frames(2);
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text, "finished: 2 methods x 3 seeds in"));
  CHECK(contains(text, "Each figure is the mean over 3 seeds (4–6), in brackets the lowest and highest seed's"));
  CHECK(contains(text, "Just past training (sizes 3–4), "));
  CHECK(contains(text, " over 3 seeds)"));
  const rv::LabSummaryBands b = rv::lab_summary_bands(r.methods[0], 2);
  char mean[24], lo[24], hi[24];
  rv::format_percent(*b.inside.lo, lo, sizeof lo);
  rv::format_percent(*b.inside.hi, hi, sizeof hi);
  REQUIRE(std::string(lo) != hi);  // these seeds differ inside training: the cell shows their band
  const std::string cell = std::string(rv::format_percent(*b.inside.mean, mean, sizeof mean)) + " (" +
                           std::string(lo, std::strlen(lo) - 1) + "–" + std::string(hi, std::strlen(hi) - 1) + ")";
  CHECK(contains(text, "rope " + cell));  // the first column of rope's row
  const std::string described = rv::describe_lab(ui.app);
  CHECK(contains(described, "Each figure is the mean over 3 seeds."));
  CHECK(contains(described, rv::lab_past_verdict(r)));
  const rv::ExportFile csv = rv::export_lab_csv(ui.app);
  CHECK(contains(csv.content, "method,seed,series,x,value,error\n"));
  CHECK(contains(csv.content, "\nrope,mean,exact_match,1,"));
  CHECK(contains(csv.content, "\nnone,6,train_loss,20,"));
  CHECK(contains(csv.content, "--seed 4 --seeds 3"));
}
