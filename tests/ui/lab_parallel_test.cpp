// The Lab panel with its runs on threads (the desktop app's engine): frames only poll, the run finishes and equals
// core's run_lab of each (method, seed) alone, the panel and the views inside a model draw from it, and Stop keeps
// what trained, and frames that only poll allocate nothing.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "alloc_counter.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/text/report.hpp"
#include "core/lab/lab_parallel.hpp"
#include "core/lab/lab_runs.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

void on_threads(Headless& ui, int jobs) {
  ui.app.lab.engine = [jobs](const rv::LabOptions& o, const std::vector<std::string>&) {
    return std::make_unique<rv::LabParallel>(o, jobs);
  };
}

using rv::test::without_times;

// The document of these options from each (method, seed) trained alone by core's run_lab, gathered.
std::string from_single_runs(const rv::LabOptions& o) {
  std::vector<rv::LabGathered> runs;
  for (const auto& [m, seed] : rv::lab_run_list(o)) {
    const rv::LabResult one = rv::run_lab(rv::lab_run_options(o, m, seed));
    runs.push_back({m, one.methods[0].first(), one.seconds, one.train_seconds, one.tokens_trained});
  }
  return without_times(rv::lab_json(rv::lab_gather(o, runs)));
}

}  // namespace

TEST_CASE("lab on threads: Run finishes on two threads, equals core's run_lab of each run, and the panel shows it") {
  Headless ui;
  on_threads(ui, 2);
  ui.set_state("tab=lab&task=reverse&train_len=3&steps=30&methods=learned,rope,alibi&lab_seed=5&seeds=2");
  ui.frames(2);
  ui.click("lab_run");
  REQUIRE(ui.app.lab.running);
  CHECK(ui.app.lab.run->background());
  CHECK(!rv::app_animating(ui.app));  // no frame is due for it: the loops poll (app_polling)
  CHECK(rv::app_polling(ui.app));
  CHECK(rv::lab_status(ui.app).find("runs ") == 0);
  ui.frames_while_lab_runs();  // a frame every 2 ms while the threads train
  REQUIRE(!ui.app.lab.running);
  CHECK(!ui.app.lab.stopped);
  CHECK(!rv::app_polling(ui.app));
  CHECK(without_times(ui.app.lab.result_json) == from_single_runs(rv::lab_options(ui.app.params)));
  CHECK(rv::state_json(ui.app).find(ui.app.lab.result_json) != std::string::npos);
  REQUIRE(ui.app.lab.run->trained().size() == 3);  // each method's first seed, looked inside below
  CHECK(ui.app.lab.run->trained()[1].method == rv::PositionMethod::Rope);
  ui.frames(2);
  ui.click("lab_attention");
  ui.frames(3);
  CHECK(!ui.app.lab.inspect.maps.empty());
  ui.click("lab_kv");
  ui.frames(3);
  CHECK(ui.app.lab.inspect.kv.has_value());
}

TEST_CASE("lab on threads: Stop keeps the runs finished and the others' losses so far, and nothing trains after it") {
  Headless ui;
  on_threads(ui, 2);
  ui.set_state("tab=lab&train_len=4&steps=3000&methods=rope,none&seeds=2");
  ui.frames(2);
  ui.click("lab_run");
  REQUIRE(ui.app.lab.running);
  for (int i = 0; i < 5000 && ui.app.lab.run->progress() < 0.02; ++i) {
    ui.frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ui.frames(1);
  ui.click("lab_stop");
  CHECK(!ui.app.lab.running);
  CHECK(ui.app.lab.stopped);
  const rv::LabResult& r = ui.app.lab.run->result();
  REQUIRE(!r.methods.empty());
  std::size_t losses = 0;
  for (const rv::LabSeedRun& run : r.methods[0].runs) losses += run.train_loss.size();
  CHECK(losses > 0);
  CHECK(ui.app.lab.result_json.find("\"rope\"") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ui.frames(3);
  std::size_t after = 0;
  for (const rv::LabSeedRun& run : ui.app.lab.run->result().methods[0].runs) after += run.train_loss.size();
  CHECK(after == losses);
  CHECK(rv::lab_status(ui.app).find("stopped") == 0);
}

TEST_CASE("lab on threads: steady frames while the threads train allocate nothing (the poll builds nothing)") {
  Headless ui;
  on_threads(ui, 1);
  ui.set_state("tab=lab&train_len=3&steps=100000&methods=sinusoidal&seeds=1");
  ui.frames(2);
  ui.click("lab_run");
  REQUIRE(ui.app.lab.running);
  ui.app.params.tab_top = ui.app.params.tab_bottom = 0;  // the lab's panel hidden: its status line is not drawn
  ui.frames(4);
  int quiet = 0;
  for (int burst = 0; burst < 20; ++burst) {
    const std::size_t losses =
        ui.app.lab.run->result().methods.empty() ? 0 : ui.app.lab.run->result().methods[0].first().train_loss.size();
    const long long before = rv::test::allocations_on_this_thread();
    ui.frames(5);
    const auto& methods = ui.app.lab.run->result().methods;
    if ((methods.empty() ? 0 : methods[0].first().train_loss.size()) != losses) continue;  // a partial came in
    CHECK(rv::test::allocations_on_this_thread() == before);
    ++quiet;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(quiet > 10);
  rv::lab_stop(ui.app);
}
