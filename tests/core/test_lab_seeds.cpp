// The lab's seeds: each run is the one-seed lab of its seed, the curves are the runs' means, the bands and the
// sentence about who holds up past L.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/base/json_value.hpp"
#include "core/lab/lab.hpp"
#include "core/lab/lab_runs.hpp"
#include "lab_test_options.hpp"
#include "test_util.hpp"

using namespace rv;

namespace {

using rv::test::contains;

// An evaluated run with these exact-match numbers per eval length.
LabSeedRun run_of(std::uint64_t seed, std::vector<std::optional<double>> accuracy) {
  LabSeedRun r;
  r.seed = seed;
  r.accuracy = r.token_accuracy = std::move(accuracy);
  r.train_loss = {1.0, 0.5};
  r.steps_run = 2;
  r.evaluated = true;
  return r;
}

// A method whose runs are just past L = 1 (eval lengths 1..4: the second is L+1..2L) at these values.
LabMethodResult method_of(PositionMethod m, std::vector<double> near) {
  LabMethodResult out;
  out.method = m;
  for (std::size_t k = 0; k < near.size(); ++k) out.runs.push_back(run_of(k, {1.0, near[k], 0.0, 0.0}));
  lab_combine_runs(out);
  return out;
}

LabResult result_of(std::vector<LabMethodResult> methods, int seeds) {
  LabResult r;
  r.options.train_len = 1;
  r.options.seeds = seeds;
  r.methods = std::move(methods);
  return r;
}

}  // namespace

TEST_CASE("lab seeds: each run is the one-seed lab of its seed; the curves are their means") {
  LabOptions o = test::small({PositionMethod::Learned, PositionMethod::Rope}, 6);
  o.seed = 5;
  o.seeds = 3;
  const LabResult r = run_lab(o);
  REQUIRE(r.methods.size() == 2);
  for (const LabMethodResult& m : r.methods) {
    INFO(position_method_name(m.method));
    REQUIRE(m.runs.size() == 3);
    for (int k = 0; k < 3; ++k) {
      LabOptions one = o;
      one.seeds = 1;
      one.seed = o.seed + k;
      one.methods = {m.method};
      const LabResult single = run_lab(one);
      const LabSeedRun& alone = single.methods[0].first();
      const LabSeedRun& run = m.runs[k];
      CHECK(run.seed == o.seed + k);
      CHECK(run.train_loss == alone.train_loss);
      CHECK(run.accuracy == alone.accuracy);
      CHECK(run.token_accuracy == alone.token_accuracy);
      CHECK(run.evaluated);
    }
    CHECK(m.runs[0].train_loss != m.runs[1].train_loss);  // other seeds, other runs
    REQUIRE(m.accuracy.size() == 12);
    for (std::size_t n = 0; n < 12; ++n) {
      const auto& a = m.runs[0].accuracy[n];
      const auto& b = m.runs[1].accuracy[n];
      const auto& c = m.runs[2].accuracy[n];
      if (!a || !b || !c) {
        CHECK(!m.accuracy[n]);  // null where any seed's is null
        continue;
      }
      REQUIRE(m.accuracy[n]);
      CHECK(*m.accuracy[n] == (0.0 + *a + *b + *c) / 3);  // summed in seed order, then divided
    }
  }
  const LabMethodResult& learned = r.methods[0];
  CHECK(!learned.accuracy[3]);  // n = 4 needs 8 positions of a 6-row table
  CHECK(*learned.error == "IndexError: index 6 is out of bounds for dimension 0 with size 6");
}

TEST_CASE("lab seeds: the document has the seeds, the means and every run") {
  LabOptions o = test::small({PositionMethod::Rope}, 4);
  o.seeds = 2;
  o.seed = 9;
  const LabResult r = run_lab(o);
  const Expected<JsonValue> doc = parse_json(lab_json(r));
  REQUIRE(doc);
  CHECK(doc->find("seeds")->number == 2);
  CHECK(doc->find("seed")->number == 9);
  const JsonValue& rope = *doc->find("methods")->find("rope");
  const JsonValue& runs = *rope.find("runs");
  REQUIRE(runs.array.size() == 2);
  for (int k = 0; k < 2; ++k) {
    const JsonValue& run = runs.array[std::size_t(k)];
    CHECK(run.find("seed")->number == 9 + k);
    CHECK(run.find("steps")->number == 4);
    CHECK(run.find("train_loss")->array.size() == 4);
    CHECK(run.find("accuracy")->array.size() == 12);
    CHECK(run.find("token_accuracy")->array.size() == 12);
  }
  const JsonValue& mean = *rope.find("accuracy");
  for (std::size_t n = 0; n < 12; ++n)
    CHECK(mean.array[n].number ==
          (0.0 + runs.array[0].find("accuracy")->array[n].number + runs.array[1].find("accuracy")->array[n].number) /
              2);
  CHECK(rope.find("train_loss")->array.size() == 4);  // the first seed's, as a one-seed lab writes it
  // one seed: the method's numbers are that run's exactly
  o.seeds = 1;
  const LabResult one = run_lab(o);
  CHECK(one.methods[0].accuracy == one.methods[0].first().accuracy);
  CHECK(contains(lab_json(one), "\"seeds\": 1"));
  const auto again = parse_lab_options(lab_option_flags(r.options));  // Re-run keeps the seeds
  REQUIRE(again);
  CHECK(again->seeds == 2);
}

TEST_CASE("lab seeds: --seeds is bounded, and seed + seeds - 1 stays an exact JSON number") {
  CHECK(parse_lab_options({"--seeds", "1"}));
  CHECK(parse_lab_options({"--seeds", "16"}));
  for (const char* bad : {"0", "17", "-1", "2.5", "x"}) {
    const auto o = parse_lab_options({"--seeds", bad});
    REQUIRE(!o);
    CHECK(contains(o.error().message, "--seeds"));
  }
  CHECK(parse_lab_options({"--seed", std::to_string(kLabSeedMax), "--seeds", "1"}));
  const auto past = parse_lab_options({"--seed", std::to_string(kLabSeedMax), "--seeds", "2"});
  REQUIRE(!past);
  CHECK(contains(past.error().message, "--seeds 2"));
}

TEST_CASE("lab seeds: a run in progress has means over the runs evaluated so far, and progress counts every run") {
  LabOptions o = test::small({PositionMethod::Rope, PositionMethod::None}, 3, 2);
  o.seeds = 2;
  LabRun run(o);
  int steps = 0;
  bool checked_partial = false;
  while (!run.done()) {
    run.step();
    ++steps;
    const auto& methods = run.result().methods;
    if (!checked_partial && methods.size() == 1 && methods[0].runs.size() == 2 && !methods[0].runs[1].evaluated) {
      checked_partial = true;  // the second seed is training: the means are the first seed's numbers
      CHECK(methods[0].accuracy == methods[0].runs[0].accuracy);
    }
  }
  CHECK(checked_partial);
  CHECK(steps == 2 * 2 * (3 + 8));  // methods x seeds x (3 training steps + 8 evaluation lengths)
  CHECK(run.progress() == 1.0);
  CHECK(run.trained().size() == 2);  // the first seed's model of each method
}

TEST_CASE("lab bands: a figure's mean, lowest and highest seed, and the steps' range") {
  LabMethodResult m = method_of(PositionMethod::Alibi, {0.2, 0.6, 0.4});
  m.runs[1].steps_run = 7;
  const LabSummaryBands b = lab_summary_bands(m, 1);
  CHECK(b.near.runs == 3);
  CHECK(*b.near.lo == 0.2);
  CHECK(*b.near.hi == 0.6);
  CHECK(*b.near.mean == doctest::Approx(0.4));
  CHECK(*b.inside.lo == 1.0);
  CHECK(b.steps_lo == 2);
  CHECK(b.steps_hi == 7);
  CHECK(*b.final_loss.mean == 0.5);
  double lo = 0, hi = 0;
  REQUIRE(lab_curve_band(m, &LabSeedRun::accuracy, 2, lo, hi));
  CHECK(lo == 0.2);
  CHECK(hi == 0.6);
  CHECK(!lab_curve_band(m, &LabSeedRun::accuracy, 5, lo, hi));  // past the eval lengths
  m.runs[2].evaluated = false;  // a run still training has no place in the band
  CHECK(lab_summary_bands(m, 1).near.runs == 2);
}

TEST_CASE("lab verdict: a difference only where the bands separate") {
  // alibi's worst seed (0.5) above rope's best (0.3): apart; none's best (0.55) above alibi's worst: not apart
  const LabResult r = result_of({method_of(PositionMethod::Alibi, {0.5, 0.7, 0.6}),
                                 method_of(PositionMethod::Rope, {0.1, 0.3, 0.2}),
                                 method_of(PositionMethod::None, {0.3, 0.55, 0.4})},
                                3);
  const std::string v = lab_past_verdict(r);
  INFO(v);
  CHECK(contains(v, "sizes 2–2"));
  CHECK(contains(v, "alibi holds up best: 60% (50%–70% over 3 seeds)"));
  CHECK(contains(v, "separates from rope"));
  CHECK(contains(v, "not from none"));
  const std::string all =
      lab_past_verdict(result_of({method_of(PositionMethod::Alibi, {0.5, 0.7, 0.6}),
                                  method_of(PositionMethod::Rope, {0.1, 0.3, 0.2})},
                                 3));
  CHECK(contains(all, "separates from every other method"));
  const std::string none =
      lab_past_verdict(result_of({method_of(PositionMethod::Alibi, {0.5, 0.7, 0.6}),
                                  method_of(PositionMethod::Rope, {0.55, 0.5, 0.6})},
                                 3));
  CHECK(contains(none, "overlaps every other method's"));
  const std::string one = lab_past_verdict(
      result_of({method_of(PositionMethod::Alibi, {0.6}), method_of(PositionMethod::Rope, {0.2})}, 1));
  CHECK(contains(one, "one seed cannot tell a difference from noise"));
  CHECK(lab_past_verdict(result_of({method_of(PositionMethod::Alibi, {0.6})}, 1)).empty());  // nothing to compare
}

TEST_CASE(
    "lab runs: each (method, seed) alone, its JSON read back bit for bit, gathered in any order to the document") {
  LabOptions o = test::small({PositionMethod::Learned, PositionMethod::Rope, PositionMethod::Alibi}, 5);
  o.seeds = 2;
  o.seed = 11;
  o.rope_scaling = ScalingType::Yarn;  // rope's scaled curves travel too
  const auto list = lab_run_list(o);
  REQUIRE(list.size() == 6);
  CHECK(list[1] == std::make_pair(PositionMethod::Learned, std::uint64_t(12)));
  CHECK(list[2] == std::make_pair(PositionMethod::Rope, std::uint64_t(11)));
  std::vector<LabGathered> runs;
  for (auto it = list.rbegin(); it != list.rend(); ++it) {  // backwards: the order must not matter
    const LabResult one = run_lab(lab_run_options(o, it->first, it->second));
    const LabSeedRun& run = one.methods[0].first();
    const Expected<LabSeedRun> back = parse_lab_run(lab_run_json(run), o, it->first);
    REQUIRE(back);
    CHECK(back->train_loss == run.train_loss);  // exact: shortest round-trip numbers
    CHECK(back->accuracy == run.accuracy);
    CHECK(back->accuracy_scaled == run.accuracy_scaled);
    CHECK(back->table_row_change == run.table_row_change);
    CHECK(back->error == run.error);
    CHECK(back->evaluated);
    CHECK(lab_run_json(*back) == lab_run_json(run));
    runs.push_back({it->first, *back, one.seconds, one.train_seconds, one.tokens_trained});
  }
  auto strip = [](std::string s) {  // drop "seconds" and "tokens_per_s"
    const std::size_t from = s.find("\"seconds\""), to = s.find("\"methods\"");
    return s.erase(from, to - from);
  };
  const LabResult whole = run_lab(o);
  const LabResult gathered = lab_gather(o, runs);
  CHECK(strip(lab_json(gathered)) == strip(lab_json(whole)));
  CHECK(gathered.tokens_trained == whole.tokens_trained);
  runs.pop_back();  // learned seed 11 missing: learned has its other seed only
  CHECK(lab_gather(o, runs).methods[0].runs.size() == 1);
}

TEST_CASE("lab runs: a run's JSON that is not one is refused by name") {
  const LabOptions o = test::small({PositionMethod::Rope}, 2);
  for (const char* bad : {"[]", "{\"seed\": -1}", "{\"seed\": 1, \"steps\": 2.5}",
                          "{\"seed\": 1, \"steps\": 2, \"reached_bar\": 1, \"error\": null}",
                          "{\"seed\": 1, \"steps\": 2, \"reached_bar\": true, \"error\": 3}",
                          "{\"seed\": 1, \"steps\": 2, \"reached_bar\": true, \"error\": null, \"train_loss\": [null]}",
                          "{\"seed\": 1, \"steps\": 2, \"reached_bar\": true, \"error\": null, \"train_loss\": [1], "
                          "\"accuracy\": [\"x\"], \"token_accuracy\": []}",
                          "{"}) {
    const Expected<LabSeedRun> r = parse_lab_run(bad, o, PositionMethod::Rope);
    INFO(bad);
    REQUIRE(!r);
    CHECK(contains(r.error().message, "lab run"));
  }
  const Expected<LabSeedRun> partial = parse_lab_run(
      "{\"seed\": 1, \"steps\": 2, \"reached_bar\": false, \"error\": null, \"train_loss\": [2, 1], \"accuracy\": [], "
      "\"token_accuracy\": []}",
      o, PositionMethod::Rope);
  REQUIRE(partial);
  CHECK(!partial->evaluated);  // stopped before its evaluation
}
