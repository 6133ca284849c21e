// A lab's runs trained elsewhere (threads, Web Workers), gathered as they come into the result a LabRun gives.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/lab/lab.hpp"
#include "core/lab/lab_runs.hpp"

namespace rv {

// Run i is lab_run_list(o)[i]; each comes once finished (or, while it trains, as what it has so far). The result is
// lab_gather of them (the document a one-thread LabRun writes, apart from "seconds", here the wall time since the
// lab began, and "tokens_per_s", the runs' tokens over their summed training time: per thread).
class LabCollect {
 public:
  explicit LabCollect(LabOptions o);
  const LabOptions& options() const { return options_; }
  const std::vector<std::pair<PositionMethod, std::uint64_t>>& runs() const { return runs_; }
  // Run i finished: its run, times and tokens, and for a method's first seed its final model (trained()).
  void finish(std::size_t i, LabGathered g, std::optional<LabTrained> t = std::nullopt);
  // What run i, still training, has so far (its losses): shown until it finishes; ignored once it has.
  void partial(std::size_t i, LabSeedRun r);
  // Run i's own progress 0..1 (LabRun::progress of that one run); it never goes back. Allocates nothing.
  void set_progress(std::size_t i, double p);
  // result() from the runs come so far (after finish or partial: not per frame).
  void rebuild();
  // No more runs will come (stopped or done): the wall time stops, and trained() takes every first seed there is.
  void settle();
  const LabResult& result() const { return result_; }
  // The methods' first-seed models in the methods' order; while runs come, only the longest prefix of methods whose
  // first seed has finished (the list only grows, so an index into it keeps its model).
  const std::vector<LabTrained>& trained() const { return trained_; }
  double progress() const;  // the runs' progress summed (a finished run counts 1) over the runs
  bool done() const { return finished_ == runs_.size(); }
  std::size_t finished() const { return finished_; }
  double seconds() const;  // wall time since construction, until settle()

 private:
  void take_trained(bool all);
  LabOptions options_;
  std::vector<std::pair<PositionMethod, std::uint64_t>> runs_;
  std::vector<std::optional<LabGathered>> got_;  // per run: finished, or its partial
  std::vector<char> finished_run_;
  std::vector<double> progress_;
  std::vector<std::optional<LabTrained>> first_;  // per method of options_: its first seed's model, until taken
  std::vector<LabTrained> trained_;
  std::size_t next_method_ = 0;  // first_ before it is in trained_ (or was missing at settle())
  std::size_t finished_ = 0;
  LabResult result_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double settled_ = -1;  // the wall time at settle()
};

}  // namespace rv
