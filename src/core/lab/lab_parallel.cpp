// The lab's runs on N threads (core/lab/lab_parallel.hpp).
#include "core/lab/lab_parallel.hpp"

#include <algorithm>

namespace rv {

namespace {
// The run a one-run LabRun trained so far (or to its end), with its times and tokens.
LabGathered gathered(const LabRun& run, PositionMethod m) {
  LabGathered g;
  g.method = m;
  g.run = run.result().methods.front().runs.front();
  g.seconds = run.result().seconds;
  g.train_seconds = run.result().train_seconds;
  g.tokens_trained = run.result().tokens_trained;
  return g;
}
}  // namespace

LabParallel::LabParallel(LabOptions o, int jobs)
    : options_(o), runs_(lab_run_list(options_)), collect_(std::move(o)) {
  const std::size_t n =
      std::clamp<std::size_t>(std::size_t(std::max(1, jobs)), 1, std::max<std::size_t>(1, runs_.size()));
  for (std::size_t k = 0; k < n; ++k) slots_.push_back(std::make_unique<Slot>());
  for (const std::unique_ptr<Slot>& s : slots_) s->thread = std::thread([this, slot = s.get()] { work(*slot); });
}

LabParallel::~LabParallel() {
  stop_ = true;
  join();
}

void LabParallel::work(Slot& slot) {
  for (;;) {
    const std::size_t i = next_.fetch_add(1);
    if (i >= runs_.size() || stop_) break;
    const auto [method, seed] = runs_[i];
    slot.progress = 0.0;
    slot.run = (long long)i;
    LabRun run(lab_run_options(options_, method, seed));
    while (!run.done() && !stop_) {
      run.step();
      slot.progress.store(run.progress(), std::memory_order_relaxed);
      if (slot.want_partial.exchange(false)) arrive({i, false, gathered(run, method), std::nullopt});
    }
    const bool finished = run.done();
    std::optional<LabTrained> trained;
    if (finished && seed == options_.seed && !run.trained().empty()) trained = run.trained().front();
    arrive({i, finished, gathered(run, method), std::move(trained)});
    if (!finished) break;
  }
  slot.run = -1;
}

void LabParallel::arrive(Arrival a) {
  std::lock_guard<std::mutex> lock(mutex_);
  arrivals_.push_back(std::move(a));
  ++arrived_;
}

void LabParallel::take() {
  if (arrived_.load() == 0) return;
  std::vector<Arrival> got;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    got.swap(arrivals_);
    arrived_ = 0;
  }
  for (Arrival& a : got) {
    if (a.finished)
      collect_.finish(a.run, std::move(a.got), std::move(a.trained));
    else
      collect_.partial(a.run, std::move(a.got.run));
  }
  collect_.rebuild();
}

void LabParallel::step() {
  if (stopped_) return;
  take();
  for (const std::unique_ptr<Slot>& s : slots_) {
    const long long r = s->run.load();
    if (r >= 0) collect_.set_progress(std::size_t(r), s->progress.load(std::memory_order_relaxed));
  }
  if (collect_.done()) {
    join();
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_partial_ < kPartialEvery) return;
  last_partial_ = now;
  for (const std::unique_ptr<Slot>& s : slots_) s->want_partial = true;
}

void LabParallel::stop() {
  if (stopped_ || collect_.done()) return;
  stopped_ = true;
  stop_ = true;
  join();
  take();  // what each run had when its thread stopped
  collect_.settle();
}

void LabParallel::join() {
  if (joined_) return;
  for (const std::unique_ptr<Slot>& s : slots_)
    if (s->thread.joinable()) s->thread.join();
  joined_ = true;
}

}  // namespace rv
