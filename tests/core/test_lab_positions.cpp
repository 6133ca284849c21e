// The lab's randomized positions (Ruoss et al. 2023): the sample, the training batches, both tests, the learned table
// of R rows, the options and the document.
#include <doctest/doctest.h>

#include <set>
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

LabOptions random_small(std::vector<PositionMethod> methods, int steps) {
  LabOptions o = test::small(std::move(methods), steps);
  o.positions = LabPositions::Random;
  return o;
}
}  // namespace

TEST_CASE("lab positions: a sorted sample of distinct positions, uniform over the range") {
  NormalRng rng(3);
  std::vector<long long> p(7);
  std::vector<int> hits(40, 0);
  for (int draw = 0; draw < 4000; ++draw) {
    lab_sample_positions(rng, 7, 40, p.data());
    for (int k = 0; k < 7; ++k) {
      REQUIRE(p[k] >= 0);
      REQUIRE(p[k] < 40);
      if (k > 0) REQUIRE(p[k] > p[k - 1]);  // sorted and distinct
      ++hits[std::size_t(p[k])];
    }
  }
  for (int r = 0; r < 40; ++r) {  // each position 4000 * 7 / 40 = 700 times; 5 standard deviations is about 120
    INFO("position ", r, ": ", hits[std::size_t(r)]);
    CHECK(std::abs(hits[std::size_t(r)] - 700) < 120);
  }
  lab_sample_positions(rng, 5, 5, p.data());  // the whole range
  for (int k = 0; k < 5; ++k) CHECK(p[k] == k);
  NormalRng a(9), b(9);
  std::vector<long long> x(4), y(4);
  lab_sample_positions(a, 4, 1000, x.data());
  lab_sample_positions(b, 4, 1000, y.data());
  CHECK(x == y);
}

TEST_CASE("lab positions: random training batches are the sequential ones' tokens at sorted positions in [0, R)") {
  const LabOptions o = random_small({PositionMethod::Rope}, 3);
  LabOptions seq = o;
  seq.positions = LabPositions::Sequential;
  CHECK(lab_position_range(o) == 4 * 24);  // copy at train_len 3: the longest test input is 24 tokens
  CHECK(lab_position_range(seq) == 0);
  SequenceBatch a, b, c;
  lab_train_batch(o, 5, a);
  lab_train_batch(seq, 5, b);
  lab_train_batch(o, 6, c);
  CHECK(a.tokens == b.tokens);  // the same sequences
  CHECK(a.targets == b.targets);
  CHECK(b.position.empty());
  REQUIRE(a.position.size() == a.tokens.size());
  for (int s = 0; s < a.sequences(); ++s)
    for (int t = 0; t < a.length[std::size_t(s)]; ++t) {
      const long long p = a.position[std::size_t(a.start[std::size_t(s)] + t)];
      CHECK(p >= 0);
      CHECK(p < 96);
      if (t > 0) CHECK(p > a.position[std::size_t(a.start[std::size_t(s)] + t - 1)]);
    }
  CHECK(a.position != c.position);  // another step, other positions
}

TEST_CASE("lab positions: tested as trained and at 0..T-1; NoPE reads none, so both tests agree exactly") {
  LabOptions o = random_small({PositionMethod::None, PositionMethod::Rope, PositionMethod::Learned}, 8);
  o.seeds = 2;
  const LabResult r = run_lab(o);
  for (const LabMethodResult& m : r.methods) {
    INFO(position_method_name(m.method));
    REQUIRE(m.accuracy_sequential.size() == 12);
    for (const LabSeedRun& run : m.runs) CHECK(run.accuracy_sequential.size() == 12);
    CHECK(!m.error);  // the learned table has R = 96 rows: every test input fits
  }
  CHECK(r.methods[0].accuracy == r.methods[0].accuracy_sequential);
  CHECK(r.methods[0].token_accuracy == r.methods[0].token_accuracy_sequential);
  const std::string doc = lab_json(r);
  CHECK(contains(doc, "\"max_position\": 96, \"trained_positions\": 96, \"positions\": \"random\", "
                      "\"position_range\": 96"));
  CHECK(contains(doc, "\"accuracy_sequential\": ["));
  const Expected<JsonValue> parsed = parse_json(doc);
  REQUIRE(parsed);
  CHECK(parsed->find("methods")->find("learned")->find("table_row_change")->array.size() == 96);
  // a run's JSON carries both tests, and the gathered runs give the same document
  std::vector<LabGathered> runs;
  for (const auto& unit : lab_run_list(o)) {
    const PositionMethod m = unit.first;
    const LabResult one = run_lab(lab_run_options(o, m, unit.second));
    const Expected<LabSeedRun> back = parse_lab_run(lab_run_json(one.methods[0].first()), o, m);
    REQUIRE(back);
    CHECK(back->evaluated);
    runs.push_back({m, *back});
  }
  auto strip = [](std::string s) {
    const std::size_t from = s.find("\"seconds\""), to = s.find("\"methods\"");
    return s.erase(from, to - from);
  };
  CHECK(strip(lab_json(lab_gather(o, runs))) == strip(doc));
  LabOptions seq = o;  // sequential documents say so, and have no second test
  seq.positions = LabPositions::Sequential;
  seq.methods = {PositionMethod::Rope};
  const std::string sdoc = lab_json(run_lab(seq));
  CHECK(contains(sdoc, "\"positions\": \"sequential\", \"position_range\": 0"));
  CHECK(!contains(sdoc, "accuracy_sequential"));
}

TEST_CASE("lab positions: rope and learned read their positions, so the two tests differ once they have learned") {
  LabOptions o = test::learnable({PositionMethod::Rope, PositionMethod::Learned}, 200);
  o.positions = LabPositions::Random;
  for (const LabMethodResult& m : run_lab(o).methods) {
    INFO(position_method_name(m.method));
    CHECK(m.token_accuracy != m.token_accuracy_sequential);
  }
}

TEST_CASE("lab positions: the options, their errors, and the flags that repeat them") {
  CHECK(lab_position_range(*parse_lab_options({"--positions", "random", "--train-len", "64"})) == 2048);  // 4 x 512
  const auto o = parse_lab_options({"--positions", "random", "--position-range", "500", "--train-len", "4"});
  REQUIRE(o);
  CHECK(o->positions == LabPositions::Random);
  CHECK(lab_position_range(*o) == 500);
  CHECK(lab_table_len(*o) == 500);
  const auto back = parse_lab_options(lab_option_flags(*o));
  REQUIRE(back);
  CHECK(back->positions == LabPositions::Random);
  CHECK(back->position_range == 500);
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--positions", "shuffled"}, "--positions"},
      {{"--position-range", "100"}, "--position-range is for --positions random"},
      {{"--positions", "random", "--position-range", "23"}, "shorter than the longest test input (24"},
      {{"--positions", "random", "--position-range", "8193"}, "--position-range"},
      {{"--positions", "random", "--table-len", "96"}, "--table-len is for sequential positions"},
  };
  for (const auto& c : bad) {
    const auto r = parse_lab_options(c.first);
    INFO(c.first[0], " ", c.first[1]);
    REQUIRE(!r);
    CHECK(contains(r.error().message, c.second));
  }
}
