// The forward pass's bench options (core/infer/forward.hpp): top1 is the argmax of the logits' row, and head_from
// leaves the rows before it out without changing the ones after; the passkey's keys, prompt and bisection.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/infer/forward.hpp"
#include "core/infer/passkey.hpp"
#include "core/infer/run_study.hpp"
#include "core/models/json_config.hpp"

namespace {

const std::string kModel = RV_SOURCE_DIR "/web/models/llama-bytes";

rv::HfConfig model_config() {
  std::ifstream in(kModel + "/config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  rv::Expected<rv::HfConfig> c = rv::parse_hf_config(ss.str());
  REQUIRE(c);
  return *c;
}

std::vector<long long> bytes(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()),
          reinterpret_cast<const unsigned char*>(text.data()) + text.size()};
}

}  // namespace

TEST_CASE("forward: top1 is each row's argmax, and head_from leaves the rows before it out, the rest unchanged") {
  rv::Expected<rv::Checkpoint> c = rv::Checkpoint::open_path(kModel + "/model.safetensors");
  REQUIRE(c);
  const rv::HfConfig config = model_config();
  rv::ForwardOptions o;
  o.tokens = bytes("apt-get install python3 and then apt-get remove it");
  o.logits = o.top1 = true;
  rv::Expected<rv::ForwardResult> full = rv::forward(c.value(), config, o);
  REQUIRE(full);
  int hits = 0;
  for (std::size_t t = 0; t + 1 < o.tokens.size(); ++t) {
    Eigen::Index best = 0;
    full->logits.row(Eigen::Index(t)).maxCoeff(&best);
    CHECK(bool(full->top1[t]) == (best == Eigen::Index(o.tokens[t + 1])));
    hits += full->top1[t];
  }
  CHECK(hits > 5);  // a trained model predicts some bytes of this text
  o.logits = false;
  o.head_from = 20;
  rv::Expected<rv::ForwardResult> tail = rv::forward(c.value(), config, o);
  REQUIRE(tail);
  for (std::size_t t = 0; t + 1 < o.tokens.size(); ++t) {
    if (t < 20) {
      CHECK(std::isnan(tail->nll[t]));
    } else {
      CHECK(tail->nll[t] == full->nll[t]);
      CHECK(tail->top1[t] == full->top1[t]);
    }
  }
}

TEST_CASE("passkey: the keys are splitmix64's, the prompt is the five lines, a byte-level trial fills its length") {
  // splitmix64 from seed 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F
  const std::vector<long long> keys = rv::passkey_keys(0, 3);
  CHECK(keys == std::vector<long long>{10000 + (long long)(0xE220A8397B1DCDAFull % 90000),
                                       10000 + (long long)(0x6E789E6AA1B965F4ull % 90000),
                                       10000 + (long long)(0x06C45D188009454Full % 90000)});
  const std::string p = rv::passkey_prompt(12345, 100, 0.25);
  CHECK(p.rfind("There is an important info hidden inside a lot of irrelevant text.", 0) == 0);
  CHECK(p.find("\nThe grass is green. The s\nThe pass key is 12345. Remember it. 12345 is the pass key.\n") !=
        std::string::npos);  // 25 characters of filler before the key, cut mid-sentence
  CHECK(p.size() >= 40);
  CHECK(p.substr(p.size() - 37) == "What is the pass key? The pass key is");
  CHECK(rv::passkey_answer(12345) == " 12345");
}

TEST_CASE("run study: each curve is the mean of its windows' passes, the shift test is RoPE's relativity") {
  rv::Expected<rv::Checkpoint> c = rv::Checkpoint::open_path(kModel + "/model.safetensors");
  REQUIRE(c);
  const rv::HfConfig config = model_config();
  CHECK(rv::trained_context(config) == 512);
  rv::RunPlan plan;
  plan.text = bytes(
      "The quick brown fox jumps over the lazy dog; apt-get install python3, then run it again. "
      "Every window reads a different part of this text, and the curve is their mean.");
  plan.length = 64;
  plan.windows = 3;
  plan.ropes = {rv::RunRope::None, rv::RunRope::Yarn, rv::RunRope::Drop};
  plan.shifts = {0, 700};
  plan.shift_length = 48;
  rv::Expected<std::vector<rv::RunJob>> jobs = rv::run_jobs(plan);
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 3 * 3 + 2 + 1);
  rv::RunStudy study(plan, int(jobs->size()));
  for (auto it = jobs->rbegin(); it != jobs->rend(); ++it) study.add(*it, rv::run_job(c.value(), config, *it));
  CHECK(study.finished());
  CHECK(study.grids.empty());  // no passkey grid planned
  // The last window ends at the text's end; the curve under no scaling is the mean of three passes.
  const rv::RunJob& last = (*jobs)[2];
  CHECK(last.pass.tokens.back() == plan.text.back());
  double mean_at_10 = 0;
  for (int w = 0; w < 3; ++w) {
    rv::Expected<rv::ForwardResult> r = rv::forward(c.value(), config, (*jobs)[std::size_t(w)].pass);
    REQUIRE(r);
    mean_at_10 += r->nll[10] / 3;
  }
  CHECK(study.curves[0].mean()[10] == doctest::Approx(mean_at_10).epsilon(1e-12));
  CHECK(study.curves[1].windows == 3);
  CHECK(study.curves[2].mean()[10] != study.curves[0].mean()[10]);  // no rotation is another model
  // RoPE is relative: 700 positions later the same bytes lose the same, to rounding.
  REQUIRE(study.shifts[1].done);
  CHECK(study.shifts[1].error.empty());
  CHECK(std::abs(study.shifts[1].loss - study.shifts[0].loss) < 1e-4);
  CHECK(study.sink.size() == 6);
  CHECK(study.by_distance[0][0].size() == 64);
  // A text shorter than a window, and a factor of 1, are refused with the numbers.
  plan.length = 4096;
  CHECK(rv::run_jobs(plan).error().message.find("fewer than a window of 4096") != std::string::npos);
  plan.length = 64;
  plan.factor = 1;
  CHECK(rv::run_jobs(plan).error().message.find("(1, 64]") != std::string::npos);
  // LongRoPE's factors come from a config that has them; this one has none.
  plan.factor = 4;
  plan.ropes = {rv::RunRope::LongRope};
  CHECK(rv::run_jobs(plan).error().message.find("this config has none") != std::string::npos);
  CHECK(rv::config_longrope(config) == nullptr);
}

TEST_CASE("run study: the passkey cells, run apart and in any order, are the passkey op's grid to the bit") {
  rv::Expected<rv::Checkpoint> c = rv::Checkpoint::open_path(kModel + "/model.safetensors");
  REQUIRE(c);
  const rv::HfConfig config = model_config();
  const rv::TextEncoder encode = [](std::string_view text) -> rv::Expected<std::vector<long long>> {
    return bytes(text);
  };
  rv::RunPlan plan;
  plan.loss = plan.attention = false;  // the bench alone reads no text
  plan.length = 320;
  plan.ropes = {rv::RunRope::None, rv::RunRope::Yarn};
  plan.passkey.lengths = {200, 300};  // 200 is shorter than the prompt's fixed part: that cell's error stays with it
  plan.passkey.depths = {0.0, 1.0};
  plan.passkey.trials = 2;
  plan.passkey.seed = 7;
  plan.passkey.encode = plan.passkey.encode_answer = encode;
  rv::Expected<std::vector<rv::RunJob>> jobs = rv::run_jobs(plan);
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 2 * 2 * 2);
  rv::RunStudy study(plan, int(jobs->size()));
  REQUIRE(study.grids.size() == 2);
  CHECK(study.curves.empty());
  for (auto it = jobs->rbegin(); it != jobs->rend(); ++it) {
    const rv::Expected<rv::RunAnswer> a = rv::run_job(c.value(), config, *it);
    if (a) {  // each answer crosses to the page as numbers and back
      const rv::Expected<rv::RunAnswer> back = rv::unflatten_run_answer(*it, rv::flatten_run_answer(*a));
      REQUIRE(back);
      study.add(*it, back);
    } else {
      study.add(*it, a);
    }
  }
  CHECK(study.finished());
  CHECK(study.grids[0].errors[0][0].find("shorter than the prompt without filler") != std::string::npos);
  CHECK(std::isnan(study.grids[0].accuracy[0][1]));
  rv::PasskeyRequest whole = plan.passkey;
  // cell (1, j) of the same grid alone, with its keys from the same stream (after the 200 cells' keys)
  for (std::size_t r = 0; r < 2; ++r) {
    whole.pass = (*jobs)[r * 4].passkey->pass;
    for (std::size_t j = 0; j < 2; ++j) {
      const rv::Expected<rv::PasskeyCell> cell = rv::passkey_cell(c.value(), config, whole, 1, j);
      REQUIRE(cell);
      CHECK(study.grids[r].accuracy[1][j] == cell->accuracy);
      CHECK(study.grids[r].key_logprob[1][j] == cell->key_logprob);
      CHECK(study.grids[r].errors[1][j].empty());
    }
  }
  rv::PasskeyRequest fits = whole;  // the op's grid where every cell fits: the cells' numbers are its numbers
  fits.lengths = {300, 310};
  fits.pass = (*jobs)[0].passkey->pass;
  const rv::Expected<rv::PasskeyResult> grid = rv::passkey(c.value(), config, fits);
  REQUIRE(grid);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const rv::Expected<rv::PasskeyCell> cell = rv::passkey_cell(c.value(), config, fits, i, j);
      REQUIRE(cell);
      CHECK(grid->accuracy[i][j] == cell->accuracy);
      CHECK(grid->key_logprob[i][j] == cell->key_logprob);
    }
  CHECK(rv::passkey_cell(c.value(), config, fits, 2, 0).error().message.find("no cell (2, 0)") != std::string::npos);
  rv::RunPlan no_encoder = plan;
  no_encoder.passkey.encode = nullptr;
  CHECK(rv::run_jobs(no_encoder).error().message.find("no text encoder") != std::string::npos);
}

TEST_CASE("run study: smooth is a moving mean that skips NaN; loss_between reads positions") {
  const double nan = std::nan("");
  const std::vector<double> y = {1, 2, nan, 4, 5};
  const std::vector<double> s = rv::smooth(y, 1);
  CHECK(s[0] == doctest::Approx(1.5));
  CHECK(s[2] == doctest::Approx(3.0));
  CHECK(s[4] == doctest::Approx(4.5));
  CHECK(rv::loss_between(y, 1, 2) == doctest::Approx(1.5));
  CHECK(rv::loss_between(y, 3, 3) != rv::loss_between(y, 3, 3));  // NaN: nothing measured there
  CHECK(rv::loss_between(y, 4, 99) == doctest::Approx(4.5));
}

TEST_CASE("run study: a pass's numbers flattened for a Web Worker come back whole; a short buffer is refused") {
  rv::ForwardResult r;
  r.nll = {1.5, 2.25, 0.125};
  r.by_distance = {{{0.5, 0.25}, {0.75, 0.125}}, {{0.1, 0.2}, {0.3, 0.4}}};  // [L=2][H=2][T=2]
  r.sink = {{0.9, 0.8}, {0.7, 0.6}};
  r.q_pair_norms = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}};  // [L=2][H=2][P=3]
  r.k_pair_norms = {{{0.5, 1.5, 2.5}}, {{3.5, 4.5, 5.5}}};               // [L=2][Hk=1][P=3]
  const std::vector<double> flat = rv::flatten_run_answer(r);
  CHECK(flat.size() == 6 + 3 + 8 + 4 + 12 + 6);
  const rv::RunJob pass_job;  // a Loss job: a pass's numbers
  const rv::Expected<rv::RunAnswer> answer = rv::unflatten_run_answer(pass_job, flat);
  REQUIRE(answer);
  const rv::ForwardResult* back = std::get_if<rv::ForwardResult>(&*answer);
  REQUIRE(back);
  CHECK(back->nll == r.nll);
  CHECK(back->by_distance == r.by_distance);
  CHECK(back->sink == r.sink);
  CHECK(back->q_pair_norms == r.q_pair_norms);
  CHECK(back->k_pair_norms == r.k_pair_norms);
  CHECK(back->layers == 2);
  rv::ForwardResult loss_only;
  loss_only.nll = {3.0};
  const rv::Expected<rv::RunAnswer> one = rv::unflatten_run_answer(pass_job, rv::flatten_run_answer(loss_only));
  REQUIRE(one);
  CHECK(std::get<rv::ForwardResult>(*one).nll == loss_only.nll);
  CHECK(std::get<rv::ForwardResult>(*one).by_distance.empty());
  std::vector<double> cut = flat;
  cut.pop_back();
  const rv::Expected<rv::RunAnswer> bad = rv::unflatten_run_answer(pass_job, cut);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "a worker's result has 38 numbers, not 39");
  // A passkey cell is two numbers, and only two.
  rv::RunJob cell_job;
  cell_job.kind = rv::RunJobKind::Passkey;
  const rv::Expected<rv::RunAnswer> cell =
      rv::unflatten_run_answer(cell_job, rv::flatten_run_answer(rv::PasskeyCell{0.5, -1.25}));
  REQUIRE(cell);
  CHECK(std::get<rv::PasskeyCell>(*cell).accuracy == 0.5);
  CHECK(std::get<rv::PasskeyCell>(*cell).key_logprob == -1.25);
  CHECK(rv::unflatten_run_answer(cell_job, {0.5}).error().message == "a worker's passkey cell has 1 numbers, not 2");
}
