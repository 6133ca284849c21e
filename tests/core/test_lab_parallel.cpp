// The lab on threads (LabParallel): the document and trained models of the one-thread LabRun for any number of jobs,
// Stop keeps the finished runs and the others' losses so far, progress, and polling that allocates nothing.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/lab/lab_parallel.hpp"
#include "lab_test_options.hpp"

using namespace rv;

namespace {

std::string without_times(std::string s) {  // drop "seconds" and "tokens_per_s"
  const std::size_t from = s.find("\"seconds\""), to = s.find("\"methods\"");
  return s.erase(from, to - from);
}

void poll_until(LabParallel& lab, bool (*until)(const LabParallel&)) {
  for (int i = 0; i < 60000 && !until(lab); ++i) {
    lab.step();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

int evaluated_runs(const LabResult& r) {
  int n = 0;
  for (const LabMethodResult& m : r.methods)
    for (const LabSeedRun& run : m.runs) n += run.evaluated;
  return n;
}

bool same_weights(const LabTrained& a, const LabTrained& b) {
  const auto x = weight_refs(a.config, a.weights), y = weight_refs(b.config, b.weights);
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (x[k].name != y[k].name || x[k].size != y[k].size ||
        std::memcmp(x[k].data, y[k].data, sizeof(float) * std::size_t(x[k].size)) != 0)
      return false;
  return true;
}

}  // namespace

TEST_CASE("lab on threads: the document and the first seeds' models are the one-thread LabRun's, for 1, 2 and 3 jobs") {
  LabOptions o = test::small({PositionMethod::Learned, PositionMethod::Rope, PositionMethod::Alibi}, 6);
  o.seeds = 2;
  o.seed = 4;
  o.rope_scaling = ScalingType::Linear;  // rope's scaled curves come through too
  LabRun serial(o);
  while (!serial.done()) serial.step();
  const std::string expected = without_times(lab_json(serial.result()));
  for (int jobs : {1, 2, 3}) {
    INFO("jobs " << jobs);
    LabParallel lab(o, jobs);
    CHECK(lab.jobs() == jobs);
    CHECK(lab.background());
    poll_until(lab, [](const LabParallel& l) { return l.done(); });
    REQUIRE(lab.done());
    CHECK(without_times(lab_json(lab.result())) == expected);
    CHECK(lab.result().tokens_trained == serial.result().tokens_trained);
    CHECK(lab.progress() == 1.0);
    REQUIRE(lab.trained().size() == serial.trained().size());
    for (std::size_t k = 0; k < lab.trained().size(); ++k) {
      CHECK(lab.trained()[k].method == serial.trained()[k].method);
      CHECK(lab.trained()[k].steps_run == serial.trained()[k].steps_run);
      CHECK(same_weights(lab.trained()[k], serial.trained()[k]));
    }
  }
  CHECK(LabParallel(o, 64).jobs() == 6);  // no more threads than runs
}

TEST_CASE("lab on threads: at the default model sizes, every run is its one-seed lab exactly, for 1 and 2 jobs") {
  LabOptions o;  // the default model and batch (whose evaluation grows the workspace a run trains in)
  o.task = LabTask::Reverse;
  o.methods = {PositionMethod::Rope, PositionMethod::None};
  o.steps = 30;
  o.seed = 5;
  o.seeds = 2;
  std::vector<LabGathered> alone;
  for (const auto& [m, seed] : lab_run_list(o)) {
    const LabResult one = run_lab(lab_run_options(o, m, seed));
    alone.push_back({m, one.methods[0].first(), one.seconds, one.train_seconds, one.tokens_trained});
  }
  const std::string expected = without_times(lab_json(lab_gather(o, alone)));
  for (int jobs : {1, 2}) {
    INFO("jobs " << jobs);
    LabParallel lab(o, jobs);
    poll_until(lab, [](const LabParallel& l) { return l.done(); });
    REQUIRE(lab.done());
    CHECK(without_times(lab_json(lab.result())) == expected);
  }
}

TEST_CASE("lab on threads: Stop keeps the runs finished, exactly, and what the others trained so far") {
  LabOptions o = test::small({PositionMethod::Rope, PositionMethod::None}, 3000);
  o.seeds = 2;
  o.check_every = 0;  // every run trains all its steps
  const LabOptions first = lab_run_options(o, PositionMethod::Rope, o.seed);
  LabParallel lab(o, 1);  // one thread: run 0 finishes, run 1 is training
  poll_until(lab, [](const LabParallel& l) { return evaluated_runs(l.result()) >= 1; });
  lab.stop();
  CHECK(!lab.done());
  const LabResult& r = lab.result();
  REQUIRE(r.methods.size() == 1);  // none never started
  REQUIRE(r.methods[0].runs.size() == 2);
  const LabSeedRun& done = r.methods[0].runs[0];
  const LabSeedRun& partial = r.methods[0].runs[1];
  CHECK(done.evaluated);
  CHECK(done.train_loss == run_lab(first).methods[0].first().train_loss);  // exactly the run alone
  CHECK(!partial.evaluated);
  CHECK(partial.train_loss.size() < std::size_t(o.steps));
  REQUIRE(lab.trained().size() == 1);  // rope's first seed
  CHECK(lab.trained()[0].method == PositionMethod::Rope);
  const double seconds = lab.seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(lab.seconds() == seconds);  // the wall time stopped with the run
  lab.step();  // polling a stopped lab changes nothing
  CHECK(lab.result().methods[0].runs.size() == 2);
}

TEST_CASE("lab on threads: progress over every run, running runs' losses while they train, polls allocate nothing") {
  LabOptions o = test::small({PositionMethod::Sinusoidal}, 100000);
  o.check_every = 0;
  LabParallel lab(o, 2);
  CHECK(lab.jobs() == 1);  // one run
  poll_until(lab, [](const LabParallel& l) {
    return !l.result().methods.empty() && l.result().methods[0].first().train_loss.size() > 10;
  });
  REQUIRE(!lab.result().methods.empty());
  CHECK(!lab.result().methods[0].first().evaluated);
  CHECK(lab.progress() > 0.0);
  CHECK(lab.progress() < 1.0);
  int quiet = 0;  // bursts of polls with nothing arriving
  for (int burst = 0; burst < 20; ++burst) {
    const std::size_t losses = lab.result().methods[0].first().train_loss.size();
    const long long before = test::allocations_on_this_thread();
    for (int k = 0; k < 50; ++k) lab.step();
    if (lab.result().methods[0].first().train_loss.size() != losses) continue;  // a partial came in
    CHECK(test::allocations_on_this_thread() == before);
    ++quiet;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  CHECK(quiet > 10);
}  // the destructor stops the thread mid-run

TEST_CASE("lab checkpoint: a trained model's safetensors read back bit for bit; another shape is refused") {
  const LabOptions o = test::small({PositionMethod::Learned, PositionMethod::T5}, 4);
  LabRun run(o);
  while (!run.done()) run.step();
  for (const LabTrained& t : run.trained()) {
    const Expected<std::vector<std::uint8_t>> bytes = lab_safetensors(t);
    REQUIRE(bytes);
    const Expected<LabTrained> back = read_lab_safetensors(*bytes, t.config, t.steps_run);
    REQUIRE(back);
    CHECK(back->method == t.method);
    CHECK(back->steps_run == t.steps_run);
    CHECK(same_weights(*back, t));
  }
  const Expected<std::vector<std::uint8_t>> learned = lab_safetensors(run.trained()[0]);
  const Expected<LabTrained> wrong = read_lab_safetensors(*learned, run.trained()[1].config, 4);
  REQUIRE(!wrong);
  CHECK(wrong.error().message.find("rel_bias") != std::string::npos);
  CHECK(!read_lab_safetensors({1, 2, 3}, run.trained()[0].config, 4));
}
