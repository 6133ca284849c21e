// What a lab run says and how to run it again: the per-method summary (exact match inside, near and far past the
// training length), the flags that rerun it, and window.ropeviz.lab's options object read as those flags.
#include "core/base/format.hpp"
#include "core/lab/lab.hpp"

#include <algorithm>
#include <cmath>


namespace rv {

namespace {
// Mean of accuracy over eval lengths [from, to] (1-based) that have a number; null when none has.
std::optional<double> mean_over(const std::vector<std::optional<double>>& accuracy, int from, int to) {
  double sum = 0;
  int count = 0;
  for (int n = from; n <= to && n <= static_cast<int>(accuracy.size()); ++n)
    if (const auto& a = accuracy[static_cast<std::size_t>(n - 1)]) {
      sum += *a;
      ++count;
    }
  if (count == 0) return std::nullopt;
  return sum / count;
}
}  // namespace

namespace {
// Inside, near and far of one curve (final_loss left to the caller).
LabSummary summary_of(const std::vector<std::optional<double>>& accuracy, int train_len) {
  LabSummary s;
  s.inside = mean_over(accuracy, 1, train_len);
  s.near = mean_over(accuracy, train_len + 1, 2 * train_len);
  s.far = mean_over(accuracy, 2 * train_len + 1, 4 * train_len);
  return s;
}
}  // namespace

LabSummary lab_summary(const LabSeedRun& r, int train_len, bool scaled) {
  LabSummary s = summary_of(scaled ? r.accuracy_scaled : r.accuracy, train_len);
  if (!r.train_loss.empty()) s.final_loss = r.train_loss.back();
  return s;
}

LabSummary lab_summary(const LabMethodResult& m, int train_len, bool scaled) {
  LabSummary s = summary_of(scaled ? m.accuracy_scaled : m.accuracy, train_len);
  s.final_loss = lab_summary_bands(m, train_len, scaled).final_loss.mean;
  return s;
}

namespace {
void widen(LabBand& b, const std::optional<double>& v) {
  if (!v) return;
  b.lo = b.lo ? std::min(*b.lo, *v) : *v;
  b.hi = b.hi ? std::max(*b.hi, *v) : *v;
  b.mean = b.mean.value_or(0) + *v;  // a sum until lab_summary_bands divides it
  ++b.runs;
}
void finish(LabBand& b) {
  if (b.runs > 0) *b.mean /= b.runs;
}
}  // namespace

LabSummaryBands lab_summary_bands(const LabMethodResult& m, int train_len, bool scaled) {
  LabSummaryBands out;
  bool first = true;
  for (const LabSeedRun& r : m.runs) {
    if (!r.train_loss.empty()) widen(out.final_loss, r.train_loss.back());
    if (!r.evaluated) continue;
    const LabSummary s = lab_summary(r, train_len, scaled);
    widen(out.inside, s.inside);
    widen(out.near, s.near);
    widen(out.far, s.far);
    out.steps_lo = first ? r.steps_run : std::min(out.steps_lo, r.steps_run);
    out.steps_hi = first ? r.steps_run : std::max(out.steps_hi, r.steps_run);
    first = false;
  }
  for (LabBand* b : {&out.inside, &out.near, &out.far, &out.final_loss}) finish(*b);
  return out;
}

bool lab_curve_band(const LabMethodResult& m, std::vector<std::optional<double>> LabSeedRun::*curve, int n, double& lo,
                    double& hi) {
  bool any = false;
  for (const LabSeedRun& r : m.runs) {
    if (!r.evaluated || n < 1 || n > int((r.*curve).size()) || !(r.*curve)[std::size_t(n - 1)]) continue;
    const double v = *(r.*curve)[std::size_t(n - 1)];
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  return any;
}

std::string lab_past_verdict(const LabResult& r) {
  const int L = r.options.train_len;
  struct Entry {
    const char* name;
    LabBand near;
  };
  std::vector<Entry> entries;
  for (const LabMethodResult& m : r.methods) {
    const LabBand b = lab_summary_bands(m, L).near;
    if (b.runs > 0) entries.push_back({position_method_name(m.method), b});
  }
  if (entries.size() < 2) return "";
  const Entry* best = &entries.front();
  int seeds = entries.front().near.runs;
  for (const Entry& e : entries) {
    if (*e.near.mean > *best->near.mean) best = &e;
    seeds = std::min(seeds, e.near.runs);
  }
  char mean[24], lo[24], hi[24];
  std::string out = "Just past training (sizes " + std::to_string(L + 1) + "–" + std::to_string(2 * L) + "), " +
                    best->name + " holds up best: " + format_percent(*best->near.mean, mean, sizeof mean);
  if (seeds < 2)
    return out + " exact match, from one run per method: one seed cannot tell a difference from noise (run more "
                 "seeds).";
  out += std::string(" (") + format_percent(*best->near.lo, lo, sizeof lo) + "–" +
         format_percent(*best->near.hi, hi, sizeof hi) + " over " + std::to_string(best->near.runs) + " seeds)";
  std::string apart, overlap;
  for (const Entry& e : entries) {
    if (&e == best) continue;
    std::string& list = *best->near.lo > *e.near.hi ? apart : overlap;
    list += std::string(list.empty() ? "" : ", ") + e.name;
  }
  if (overlap.empty()) return out + "; its band separates from every other method's (its worst seed above their best).";
  if (apart.empty())
    return out + "; its band overlaps every other method's: these seeds cannot tell them apart.";
  return out + "; its band separates from " + apart + " (its worst seed above their best), not from " + overlap +
         ": these seeds cannot tell those apart.";
}

bool lab_comparable(const LabOptions& a, const LabOptions& b) {
  if (a.positions == b.positions) return false;
  LabOptions same = a;
  same.positions = b.positions;
  same.position_range = b.position_range;
  return lab_option_flags(same) == lab_option_flags(b);
}

std::vector<std::string> lab_option_flags(const LabOptions& o) {
  std::string methods;
  for (PositionMethod m : o.methods) methods += std::string(methods.empty() ? "" : ",") + position_method_name(m);
  std::vector<std::string> flags = {
      "--task",       lab_task_name(o.task),        "--methods",     methods,
      "--train-len",  std::to_string(o.train_len),  "--steps",       std::to_string(o.steps),
      "--seed",       std::to_string(o.seed),       "--seeds",       std::to_string(o.seeds),
      "--d-model",     std::to_string(o.d_model),
      "--heads",      std::to_string(o.heads),      "--layers",      std::to_string(o.layers),
      "--d-ff",       std::to_string(o.d_ff),       "--batch",       std::to_string(o.batch),
      "--lr",         format_number(o.lr),          "--warmup",      std::to_string(o.warmup),
      "--eval-count", std::to_string(o.eval_count), "--check-every", std::to_string(o.check_every),
      "--table-len",  std::to_string(o.table_len)};
  if (o.positions != LabPositions::Sequential) {
    flags.push_back("--positions");
    flags.push_back(lab_positions_name(o.positions));
    flags.push_back("--position-range");
    flags.push_back(std::to_string(o.position_range));
  }
  if (o.rope_scaling != ScalingType::None) {
    flags.push_back("--rope-scaling");
    flags.push_back(lab_scaling_name(o.rope_scaling));
  }
  if (o.rope_scaling != ScalingType::None || o.rope_factor != LabOptions{}.rope_factor) {
    flags.push_back("--rope-factor");
    flags.push_back(format_number(o.rope_factor));
  }
  return flags;
}

}  // namespace rv
