// What a lab run says and how to run it again: the per-method summary (exact match inside, near and far past the
// training length), the flags that rerun it, and window.ropeviz.lab's options object read as those flags.
#include "core/base/format.hpp"
#include "core/lab/lab.hpp"

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

LabSummary lab_summary(const LabMethodResult& m, int train_len, bool scaled) {
  LabSummary s;
  const std::vector<std::optional<double>>& accuracy = scaled ? m.accuracy_scaled : m.accuracy;
  s.inside = mean_over(accuracy, 1, train_len);
  s.near = mean_over(accuracy, train_len + 1, 2 * train_len);
  s.far = mean_over(accuracy, 2 * train_len + 1, 4 * train_len);
  if (!m.train_loss.empty()) s.final_loss = m.train_loss.back();
  return s;
}

std::vector<std::string> lab_option_flags(const LabOptions& o) {
  std::string methods;
  for (PositionMethod m : o.methods) methods += std::string(methods.empty() ? "" : ",") + position_method_name(m);
  std::vector<std::string> flags = {
      "--task",       lab_task_name(o.task),        "--methods",     methods,
      "--train-len",  std::to_string(o.train_len),  "--steps",       std::to_string(o.steps),
      "--seed",       std::to_string(o.seed),       "--d-model",     std::to_string(o.d_model),
      "--heads",      std::to_string(o.heads),      "--layers",      std::to_string(o.layers),
      "--d-ff",       std::to_string(o.d_ff),       "--batch",       std::to_string(o.batch),
      "--lr",         format_number(o.lr),          "--warmup",      std::to_string(o.warmup),
      "--eval-count", std::to_string(o.eval_count), "--check-every", std::to_string(o.check_every),
      "--table-len",  std::to_string(o.table_len)};
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
