// A lab's runs trained elsewhere, gathered into its result (core/lab/lab_collect.hpp).
#include "core/lab/lab_collect.hpp"

#include <algorithm>

namespace rv {

LabCollect::LabCollect(LabOptions o)
    : options_(std::move(o)),
      runs_(lab_run_list(options_)),
      got_(runs_.size()),
      finished_run_(runs_.size(), 0),
      progress_(runs_.size(), 0.0),
      first_(options_.methods.size()) {
  result_.options = options_;
}

void LabCollect::finish(std::size_t i, LabGathered g, std::optional<LabTrained> t) {
  if (i >= runs_.size() || finished_run_[i]) return;
  finished_run_[i] = 1;
  ++finished_;
  progress_[i] = 1.0;
  got_[i] = std::move(g);
  if (t && runs_[i].second == options_.seed) {
    const auto m = std::find(options_.methods.begin(), options_.methods.end(), runs_[i].first);
    first_[std::size_t(m - options_.methods.begin())] = std::move(*t);
  }
  take_trained(false);
}

void LabCollect::partial(std::size_t i, LabSeedRun r) {
  if (i >= runs_.size() || finished_run_[i]) return;
  LabGathered g;
  g.method = runs_[i].first;
  g.run = std::move(r);
  got_[i] = std::move(g);
}

void LabCollect::set_progress(std::size_t i, double p) {
  if (i < runs_.size() && !finished_run_[i]) progress_[i] = std::max(progress_[i], std::min(p, 1.0));
}

void LabCollect::rebuild() {
  std::vector<LabGathered> runs;
  for (const std::optional<LabGathered>& g : got_)
    if (g) runs.push_back(*g);
  result_ = lab_gather(options_, std::move(runs));
  result_.seconds = seconds();
  if (done()) settle();
}

void LabCollect::settle() {
  if (settled_ < 0) settled_ = seconds();
  result_.seconds = settled_;
  take_trained(true);
}

void LabCollect::take_trained(bool all) {
  for (; next_method_ < first_.size(); ++next_method_) {
    if (first_[next_method_]) {
      trained_.push_back(std::move(*first_[next_method_]));
      first_[next_method_].reset();
    } else if (!all) {
      break;
    }
  }
}

double LabCollect::progress() const {
  if (runs_.empty()) return 1.0;
  double sum = 0;
  for (double p : progress_) sum += p;
  return std::min(1.0, sum / double(runs_.size()));
}

double LabCollect::seconds() const {
  if (settled_ >= 0) return settled_;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace rv
