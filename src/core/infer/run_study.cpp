// The Run it study's plan, its jobs and their gathering (core/infer/run_study.hpp).
#include "core/infer/run_study.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "core/base/format.hpp"

namespace rv {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kRopeNames[] = {"none", "config", "linear", "dynamic", "yarn", "llama3", "longrope", "drop"};
constexpr const char* kRopeLabels[] = {"no scaling", "its config", "linear",   "dynamic NTK",
                                       "YaRN",       "Llama 3",    "LongRoPE", "RoPE dropped"};
static_assert(std::size(kRopeNames) == kRunRopeCount && std::size(kRopeLabels) == kRunRopeCount);

// A pass under `rope`, without tokens.
ForwardOptions rope_pass(const RunPlan& plan, RunRope rope) {
  ForwardOptions o;
  o.threads = plan.threads;
  switch (rope) {
    case RunRope::None:
      o.rope = RopeAtInference::None;
      break;
    case RunRope::Config:
      o.rope = RopeAtInference::Config;
      break;
    case RunRope::Drop:
      o.rope = RopeAtInference::Drop;
      break;
    default:
      o.rope = RopeAtInference::Replace;
      o.rope_scaling = run_rope_scaling(rope, plan.factor, plan.trained, plan.longrope ? &*plan.longrope : nullptr);
  }
  return o;
}

ForwardOptions loss_pass(const RunPlan& plan, RunRope rope, long long first) {
  ForwardOptions o = rope_pass(plan, rope);
  o.tokens.assign(plan.text.begin() + first, plan.text.begin() + first + plan.length);
  return o;
}

// The passkey cells of each rope, after the passes: BadRequest as passkey() refuses the grid.
std::optional<Error> add_passkey_jobs(const RunPlan& plan, std::vector<RunJob>& jobs) {
  if (plan.passkey.lengths.empty()) return std::nullopt;
  if (auto e = check_passkey(plan.passkey)) return e;
  if (!plan.passkey.encode || !plan.passkey.encode_answer) return bad_request("the passkey grid has no text encoder");
  const std::size_t cells = plan.passkey.lengths.size() * plan.passkey.depths.size();
  for (std::size_t r = 0; r < plan.ropes.size(); ++r) {
    auto grid = std::make_shared<PasskeyRequest>(plan.passkey);
    grid->pass = rope_pass(plan, plan.ropes[r]);
    grid->progress = nullptr;
    for (std::size_t cell = 0; cell < cells; ++cell) jobs.push_back({RunJobKind::Passkey, int(r), int(cell), {}, grid});
  }
  return std::nullopt;
}

}  // namespace

const char* run_rope_name(RunRope r) {
  return kRopeNames[int(r)];
}
const char* run_rope_label(RunRope r) {
  return kRopeLabels[int(r)];
}

HfRopeScaling run_rope_scaling(RunRope r, double factor, long long trained, const HfRopeScaling* longrope) {
  HfRopeScaling s;
  s.rope_type = run_rope_name(r);
  s.factor = factor;
  if (r == RunRope::Yarn || r == RunRope::Llama3 || r == RunRope::LongRope)
    s.original_max_position_embeddings = double(trained);
  if (r == RunRope::Llama3) {
    s.low_freq_factor = 1.0;
    s.high_freq_factor = 4.0;
  }
  if (r == RunRope::LongRope && longrope) {
    s.short_factor = longrope->short_factor;
    s.long_factor = longrope->long_factor;
  }
  return s;
}

const HfRopeScaling* config_longrope(const HfConfig& config) {
  if (!config.rope_scaling) return nullptr;
  const HfRopeScaling& s = *config.rope_scaling;
  const std::string type = s.rope_type.value_or(s.type.value_or(""));
  return (type == "longrope" || type == "su") && s.short_factor && s.long_factor ? &s : nullptr;
}

Expected<std::vector<RunJob>> run_jobs(const RunPlan& plan) {
  if (plan.length < 2 || plan.length > kMaxForwardTokens)
    return bad_request("a window takes 2 to " + std::to_string(kMaxForwardTokens) + " tokens, got " +
                       std::to_string(plan.length));
  if (plan.windows < 1 || plan.windows > kRunMaxWindows)
    return bad_request("the study takes 1 to " + std::to_string(kRunMaxWindows) + " windows, got " +
                       std::to_string(plan.windows));
  if (plan.shifts.size() > std::size_t(kRunMaxShifts))
    return bad_request("the shift test takes at most " + std::to_string(kRunMaxShifts) + " shifts");
  if (!(plan.factor > 1.0 && plan.factor <= 64.0))
    return bad_request("a scaling factor must be in (1, 64], got " + format_sig(plan.factor, 6));
  const bool reads_text = plan.loss || plan.attention || !plan.shifts.empty();
  if (reads_text && (long long)plan.text.size() < plan.length)
    return bad_request("the text has " + std::to_string(plan.text.size()) + " tokens, fewer than a window of " +
                       std::to_string(plan.length));
  for (RunRope r : plan.ropes)
    if (r == RunRope::LongRope && !plan.longrope)
      return bad_request("LongRoPE's short and long factors are searched for each model, and this config has none");
  std::vector<RunJob> jobs;
  const long long room = (long long)plan.text.size() - plan.length;
  for (std::size_t r = 0; plan.loss && r < plan.ropes.size(); ++r)
    for (int w = 0; w < plan.windows; ++w) {
      const long long first = plan.windows == 1 ? 0 : room * w / (plan.windows - 1);
      jobs.push_back({RunJobKind::Loss, int(r), w, loss_pass(plan, plan.ropes[r], first), nullptr});
    }
  const long long shift_length = std::max(2LL, std::min(plan.shift_length, plan.length));
  for (std::size_t s = 0; s < plan.shifts.size(); ++s) {
    if (plan.shifts[s] < 0 || plan.shifts[s] > kRunMaxShift)
      return bad_request("a shift must be in [0, " + std::to_string(kRunMaxShift) + "], got " +
                         std::to_string(plan.shifts[s]));
    RunJob job{RunJobKind::Shift, int(s), 0, loss_pass(plan, RunRope::Config, 0), nullptr};
    job.pass.tokens.resize(std::size_t(shift_length));
    for (long long t = 0; t < shift_length; ++t) job.pass.positions.push_back(plan.shifts[s] + t);
    jobs.push_back(std::move(job));
  }
  if (plan.attention) {
    RunJob job{RunJobKind::Attention, 0, 0, loss_pass(plan, RunRope::Config, 0), nullptr};
    job.pass.attention_by_distance = job.pass.sink = true;
    job.pass.qk_pair_norms = plan.pair_norms;
    jobs.push_back(std::move(job));
  }
  if (auto e = add_passkey_jobs(plan, jobs)) return *e;
  return jobs;
}

std::vector<double> RunCurve::mean() const {
  std::vector<double> out(sum.size(), kNaN);
  if (windows > 0)
    for (std::size_t t = 0; t < sum.size(); ++t) out[t] = sum[t] / windows;
  return out;
}

RunStudy::RunStudy(const RunPlan& plan, int job_count)
    : lengths(plan.passkey.lengths), depths(plan.passkey.depths), jobs(job_count) {
  for (RunRope r : plan.ropes)
    if (plan.loss) curves.push_back({r, std::vector<double>(std::size_t(plan.length - 1), 0.0), 0, {}});
  for (long long s : plan.shifts) shifts.push_back({s, kNaN, {}, false});
  const std::vector<double> row(depths.size(), kNaN);
  if (!lengths.empty())
    for (RunRope r : plan.ropes)
      grids.push_back({r, std::vector<std::vector<double>>(lengths.size(), row),
                       std::vector<std::vector<double>>(lengths.size(), row),
                       std::vector<std::vector<std::string>>(lengths.size(), std::vector<std::string>(depths.size())),
                       0});
}

void RunStudy::add(const RunJob& job, const Expected<RunAnswer>& answer) {
  ++done;
  const std::string error = answer ? std::string() : answer.error().full();  // "IndexError: index 1024 is out ..."
  if (job.kind == RunJobKind::Passkey) {
    RunGrid& g = grids[std::size_t(job.index)];
    const std::size_t i = std::size_t(job.window) / depths.size(), j = std::size_t(job.window) % depths.size();
    ++g.done;
    g.errors[i][j] = error;
    if (const PasskeyCell* cell = answer ? std::get_if<PasskeyCell>(&*answer) : nullptr)
      g.accuracy[i][j] = cell->accuracy, g.key_logprob[i][j] = cell->key_logprob;
    return;
  }
  const ForwardResult* r = answer ? std::get_if<ForwardResult>(&*answer) : nullptr;
  switch (job.kind) {
    case RunJobKind::Loss: {
      RunCurve& c = curves[std::size_t(job.index)];
      if (!r) {  // an error (or, never, a cell's answer)
        c.error = error;
        return;
      }
      for (std::size_t t = 0; t < c.sum.size() && t < r->nll.size(); ++t) c.sum[t] += r->nll[t];
      ++c.windows;
      return;
    }
    case RunJobKind::Shift: {
      RunShift& s = shifts[std::size_t(job.index)];
      s.done = true;
      s.error = error;
      if (r) s.loss = loss_between(r->nll, 1, (long long)r->nll.size());
      return;
    }
    case RunJobKind::Passkey:
      return;
    case RunJobKind::Attention:
      attention_error = error;
      if (r) {
        by_distance = r->by_distance;
        sink = r->sink;
        q_pair_norms = r->q_pair_norms;
        k_pair_norms = r->k_pair_norms;
      }
      return;
  }
}

std::vector<double> flatten_run_answer(const RunAnswer& a) {
  if (const PasskeyCell* cell = std::get_if<PasskeyCell>(&a)) return {cell->accuracy, cell->key_logprob};
  const ForwardResult& r = std::get<ForwardResult>(a);
  const std::size_t T = r.by_distance.empty() || r.by_distance[0].empty() ? 0 : r.by_distance[0][0].size();
  const bool norms = !r.q_pair_norms.empty() && !r.q_pair_norms[0].empty() && !r.k_pair_norms.empty();
  const std::size_t Hk = norms ? r.k_pair_norms[0].size() : 0, P = norms ? r.q_pair_norms[0][0].size() : 0;
  std::vector<double> out = {double(std::max(r.by_distance.size(), r.q_pair_norms.size())),
                             double(T       ? r.by_distance[0].size()
                                    : norms ? r.q_pair_norms[0].size()
                                            : 0),
                             double(r.nll.size()),
                             double(T),
                             double(Hk),
                             double(P)};
  out.insert(out.end(), r.nll.begin(), r.nll.end());
  const auto put = [&out](const std::vector<std::vector<std::vector<double>>>& x) {
    for (const auto& layer : x)
      for (const auto& head : layer) out.insert(out.end(), head.begin(), head.end());
  };
  if (T) {
    put(r.by_distance);
    for (const auto& layer : r.sink) out.insert(out.end(), layer.begin(), layer.end());
  }
  if (P) put(r.q_pair_norms), put(r.k_pair_norms);
  return out;
}

Expected<RunAnswer> unflatten_run_answer(const RunJob& job, const std::vector<double>& n) {
  if (job.kind == RunJobKind::Passkey) {
    if (n.size() != 2)
      return bad_request("a worker's passkey cell has " + std::to_string(n.size()) + " numbers, not 2");
    return RunAnswer(PasskeyCell{n[0], n[1]});
  }
  const auto count = [&](std::size_t i) { return n.size() > i && n[i] >= 0 && n[i] < 1e9 ? std::size_t(n[i]) : 0; };
  const std::size_t L = count(0), H = count(1), N = count(2), T = count(3), Hk = count(4), P = count(5);
  const std::size_t expected = 6 + N + (T ? L * H * T + L * H : 0) + (P ? L * H * P + L * Hk * P : 0);
  if (n.size() < 6 || n.size() != expected)
    return bad_request("a worker's result has " + std::to_string(n.size()) + " numbers, not " +
                       std::to_string(expected));
  ForwardResult r;
  r.layers = int(L);
  r.heads = int(H);
  auto at = n.begin() + 6;
  r.nll.assign(at, at + std::ptrdiff_t(N));
  at += std::ptrdiff_t(N);
  const auto take = [&at](std::size_t layers, std::size_t heads, std::size_t len) {
    std::vector<std::vector<std::vector<double>>> x(layers, std::vector<std::vector<double>>(heads));
    for (auto& layer : x)
      for (auto& head : layer) head.assign(at, at + std::ptrdiff_t(len)), at += std::ptrdiff_t(len);
    return x;
  };
  if (T) {
    r.by_distance = take(L, H, T);
    r.sink.assign(L, {});
    for (auto& layer : r.sink) layer.assign(at, at + std::ptrdiff_t(H)), at += std::ptrdiff_t(H);
  }
  if (P) {
    r.q_pair_norms = take(L, H, P);
    r.k_pair_norms = take(L, Hk, P);
  }
  return RunAnswer(std::move(r));
}

Expected<RunAnswer> run_job(Checkpoint& c, const HfConfig& config, const RunJob& job) {
  if (job.kind == RunJobKind::Passkey) {
    const std::size_t depths = std::max<std::size_t>(1, job.passkey->depths.size());
    Expected<PasskeyCell> cell =
        passkey_cell(c, config, *job.passkey, std::size_t(job.window) / depths, std::size_t(job.window) % depths);
    if (!cell) return cell.error();
    return RunAnswer(*cell);
  }
  Expected<ForwardResult> r = forward(c, config, job.pass);
  if (!r) return r.error();
  return RunAnswer(std::move(*r));
}

std::vector<double> smooth(const std::vector<double>& y, int half) {
  std::vector<double> out(y.size(), kNaN);
  double sum = 0;
  long long n = 0;
  const long long size = (long long)y.size();
  const auto take = [&](long long i, int sign) {
    if (i >= 0 && i < size && !std::isnan(y[std::size_t(i)])) {
      sum += sign * y[std::size_t(i)];
      n += sign;
    }
  };
  for (long long i = 0; i < half && i < size; ++i) take(i, 1);
  for (long long t = 0; t < size; ++t) {  // [t - half, t + half] slides on
    take(t + half, 1);
    take(t - half - 1, -1);
    if (n > 0) out[std::size_t(t)] = sum / double(n);
  }
  return out;
}

double loss_between(const std::vector<double>& curve, long long lo, long long hi) {
  double sum = 0;
  long long n = 0;
  for (long long p = std::max(1LL, lo); p <= hi && p - 1 < (long long)curve.size(); ++p)
    if (!std::isnan(curve[std::size_t(p - 1)])) {
      sum += curve[std::size_t(p - 1)];
      ++n;
    }
  return n ? sum / double(n) : kNaN;
}

long long trained_context(const HfConfig& config) {
  if (config.rope_scaling && config.rope_scaling->original_max_position_embeddings)
    return (long long)*config.rope_scaling->original_max_position_embeddings;
  if (config.original_max_position_embeddings) return *config.original_max_position_embeddings;
  return config.max_position_embeddings.value_or(0);
}

}  // namespace rv
