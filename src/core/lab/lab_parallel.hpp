// The lab's runs (one per method and seed) on N threads: `ropeviz-cli lab --jobs N` and the desktop app (the
// docs/lab.md). Native builds only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/lab/lab_collect.hpp"
#include "core/lab/lab_engine.hpp"

namespace rv {

// Each thread takes the next (method, seed) of lab_run_list, trains a LabRun of lab_run_options to its end (checking
// the stop flag between steps), hands it over and takes the next. The owner's thread polls (step()): the runs that
// have finished come in, and every kPartialEvery the running ones' losses so far. The document equals the one-thread
// LabRun's for the same options, apart from "seconds" (here the wall time) and "tokens_per_s" (per thread).
class LabParallel final : public LabEngine {
 public:
  static constexpr std::chrono::milliseconds kPartialEvery{250};
  // Starts min(jobs, runs) threads (at least one) at once.
  LabParallel(LabOptions o, int jobs);
  ~LabParallel() override;  // stops the threads and waits for them
  LabParallel(const LabParallel&) = delete;
  LabParallel& operator=(const LabParallel&) = delete;

  void step() override;
  bool done() const override { return collect_.done(); }
  const LabResult& result() const override { return collect_.result(); }
  double progress() const override { return collect_.progress(); }
  const std::vector<LabTrained>& trained() const override { return collect_.trained(); }
  bool background() const override { return true; }
  // Stops every thread after its current step and waits for them: the runs finished stay, with the others' so far.
  void stop() override;
  double seconds() const override { return collect_.seconds(); }
  int jobs() const { return int(slots_.size()); }

 private:
  struct Slot {
    std::thread thread;
    std::atomic<long long> run{-1};  // the run it trains (an index of lab_run_list), -1 none
    std::atomic<double> progress{0.0};
    std::atomic<bool> want_partial{false};
  };
  struct Arrival {
    std::size_t run = 0;
    bool finished = false;  // else what it has so far
    LabGathered got;
    std::optional<LabTrained> trained;
  };
  void work(Slot& slot);
  void arrive(Arrival a);
  void take();  // the arrivals into collect_
  void join();

  const LabOptions options_;  // read by the threads (collect_'s result is the owner's)
  const std::vector<std::pair<PositionMethod, std::uint64_t>> runs_;
  LabCollect collect_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<Arrival> arrivals_;  // under mutex_
  std::atomic<int> arrived_{0};    // arrivals_ not taken yet (read without the lock)
  std::chrono::steady_clock::time_point last_partial_ = std::chrono::steady_clock::now();
  bool joined_ = false, stopped_ = false;
};

}  // namespace rv
