// The Run it feature's runs: plan, a pass per frame or the page's workers' results (app/run/run_session.hpp).
#include "app/run/run_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "app/run/run_bench.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "core/base/format.hpp"
#include "core/weights/family.hpp"

namespace rv {
namespace {

// Whether the config scales its rope (a rope_scaling other than "default").
bool scaled(const HfConfig& c) {
  return c.rope_scaling && c.rope_scaling->rope_type.value_or(c.rope_scaling->type.value_or("default")) != "default";
}

// Each pass's threads: the machine's on the desktop (the numbers do not depend on the count); the page has one.
int run_threads() {
  return std::clamp(int(std::thread::hardware_concurrency()), 1, 16);
}

// RunSession::measured: each curve's loss in and past the trained context, with no scaling's beside it.
void measure_ropes(RunSession& s) {
  for (std::string& m : s.measured) m.clear();
  if (s.trained <= 64 || s.plan.length <= s.trained) return;
  const auto in = [&](const RunCurve& c) { return loss_between(c.mean(), 64, s.trained - 1); };
  const auto past = [&](const RunCurve& c) { return loss_between(c.mean(), s.trained, s.plan.length - 1); };
  const RunCurve* none = nullptr;
  for (const RunCurve& c : s.study.curves)
    if (c.windows && c.rope == RunRope::None) none = &c;
  const std::string spans = " at positions 64-" + std::to_string(s.trained - 1) + " / " + std::to_string(s.trained) +
                            "-" + std::to_string(s.plan.length - 1);
  for (const RunCurve& c : s.study.curves) {
    if (!c.windows) continue;
    std::string& m = s.measured[int(c.rope)];
    m = "Measured by Run it on " + s.model_label + " (trained at " + format_count(s.trained) + "), loss in nats per " +
        "token" + spans + ": " + run_rope_legend(c.rope, s.plan.factor) + " " + format_sig(in(c), 3) + " / " +
        format_sig(past(c), 3);
    if (none && &c != none) m += "; no scaling " + format_sig(in(*none), 3) + " / " + format_sig(past(*none), 3);
    m += ".";
  }
}

// The panel's pieces, again from the study.
void refresh(RunSession& s) {
  s.smoothed.clear();
  for (const RunCurve& c : s.study.curves) s.smoothed.push_back(smooth(c.mean(), kRunSmoothHalf));
  s.status = run_status(s);
  s.sentence = run_sentence(s);
  s.bench_sentence = bench_sentence(s);
  s.bench_lo = 0.0, s.bench_hi = -1e300;
  for (const RunGrid& g : s.study.grids)
    for (const auto& row : g.key_logprob)
      for (const double v : row)
        if (!std::isnan(v)) s.bench_lo = std::min(s.bench_lo, v), s.bench_hi = std::max(s.bench_hi, v);
  if (s.bench_hi < s.bench_lo) s.bench_hi = 0.0;
  measure_ropes(s);
  s.legends.clear();
  for (const RunRope r : s.plan.ropes) s.legends.push_back(run_rope_legend(r, s.plan.factor));
  const auto mean_pairs = [](const std::vector<std::vector<std::vector<double>>>& x) {
    std::vector<double> out;
    std::size_t n = 0;
    for (const auto& layer : x)
      for (const auto& head : layer) {
        out.resize(std::max(out.size(), head.size()), 0.0);
        for (std::size_t i = 0; i < head.size(); ++i) out[i] += head[i];
        ++n;
      }
    for (double& v : out) v /= double(std::max<std::size_t>(n, 1));
    return out;
  };
  s.q_act = mean_pairs(s.study.q_pair_norms);
  s.k_act = mean_pairs(s.study.k_pair_norms);
  s.model_curve = -1;
  s.model_in = s.model_past = std::nan("");
  for (std::size_t i = 0; i < s.study.curves.size(); ++i) {
    const RunCurve& c = s.study.curves[i];
    if (c.windows && (c.rope == RunRope::Config || (c.rope == RunRope::None && s.model_curve < 0)))
      s.model_curve = int(i);
  }
  if (s.model_curve < 0 || s.context <= 64) return;
  const std::vector<double> mean = s.study.curves[std::size_t(s.model_curve)].mean();
  s.model_in = loss_between(mean, 64, s.context - 1);
  if (s.plan.length > s.context) s.model_past = loss_between(mean, s.context, s.plan.length - 1);
}

void finish(App& app, RunSession& s, const std::string& error) {
  s.running = false;
  s.error = error;
  refresh(s);
  app.ui.notes.push_back(s.model_label + ": " + (error.empty() ? run_status(s) : error));
}

}  // namespace

RunSession& run_session(App& app) {
  if (!app.run) app.run = std::make_shared<RunSession>();
  return *app.run;
}

const RunSession* find_run_session(const App& app) {
  return app.run.get();
}

Expected<RunPlanned> plan_run(const RunSettings& settings, const HfConfig& config, Checkpoint& c,
                              const std::string& label, std::vector<long long> ids, TextEncoder encode) {
  const ModelFamily* family = model_family(config.model_type.value_or(""));
  if (!family || !family->runs)
    return bad_request("the forward pass does not run model_type \"" + config.model_type.value_or("") + "\" (it runs " +
                       model_family_types(true) + ")");
  RunPlanned out;
  out.learned = family->positions[0] != '\0';
  out.context = config.max_position_embeddings.value_or(0);
  out.trained = std::max(1LL, trained_context(config));
  RunPlan& plan = out.plan;
  plan.text = std::move(ids);
  plan.length = settings.length;
  plan.windows = settings.windows;
  plan.factor = settings.factor;
  plan.trained = out.trained;
  if (const HfRopeScaling* longrope = config_longrope(config)) plan.longrope = *longrope;
  plan.loss = plan.attention = settings.loss;
  if (settings.bench) {
    plan.passkey.lengths = bench_lengths(settings);
    plan.passkey.depths = bench_depths(settings);
    plan.passkey.trials = settings.bench_trials;
    plan.passkey.encode = plan.passkey.encode_answer = std::move(encode);
  }
  if (out.learned) {
    plan.ropes = {RunRope::Config};
  } else {
    for (int r = 0; r < kRunRopeCount; ++r) {
      // the config's own is the unscaled rope when it has no rope_scaling: one curve, not two
      const bool same = RunRope(r) == RunRope::Config && !scaled(config) && settings.rope[0];
      if (settings.rope[r] && !same) plan.ropes.push_back(RunRope(r));
    }
    if (plan.ropes.empty()) plan.ropes = {RunRope::Config};
  }
  if (!settings.loss && !settings.bench && !settings.shift)
    return bad_request("nothing to run: tick the loss curves, the shift test or the passkey bench");
  if (settings.shift && out.context > 0) plan.shifts = {0, out.context / 2, out.context, 2 * out.context};
  plan.threads = run_threads();
  plan.pair_norms = !out.learned && settings.loss;
  const Expected<ForwardShape> shape = forward_shape(c, config);
  if (!shape) return bad_request(label + ": " + shape.error().message);
  for (const long long id : plan.text)
    if (id < 0 || id >= shape->vocab)
      return bad_request(label + ": the text holds token id " + std::to_string(id) +
                         ", past the model's vocabulary "
                         "of " +
                         format_count(shape->vocab) + " (ids 0.." + format_count(shape->vocab - 1) + ")");
  Expected<std::vector<RunJob>> jobs = run_jobs(plan);
  if (!jobs) return jobs.error();
  out.jobs = std::move(*jobs);
  return out;
}

std::vector<double> run_settings_numbers(const RunSettings& s) {
  std::vector<double> out = {double(s.length),        double(s.windows),      s.factor,
                             double(s.shift),         double(s.loss),         double(s.bench),
                             double(s.bench_lengths), double(s.bench_depths), double(s.bench_trials)};
  for (const bool r : s.rope) out.push_back(double(r));
  return out;
}

std::optional<RunSettings> run_settings_from(const std::vector<double>& n) {
  if (n.size() != 9 + std::size_t(kRunRopeCount)) return std::nullopt;
  for (const double x : n)
    if (!std::isfinite(x) || std::fabs(x) > 1e9) return std::nullopt;
  RunSettings s;
  s.length = (long long)n[0];
  s.windows = int(n[1]);
  s.factor = n[2];
  s.shift = n[3] != 0, s.loss = n[4] != 0, s.bench = n[5] != 0;
  s.bench_lengths = int(n[6]), s.bench_depths = int(n[7]), s.bench_trials = int(n[8]);
  for (int r = 0; r < kRunRopeCount; ++r) s.rope[r] = n[9 + std::size_t(r)] != 0;
  return s;
}

Expected<RunPlanned> plan_loaded(App& app) {
  const LoadedWeights* w = app.params.weights.get();
  if (!w) return bad_request("no checkpoint loaded: load one of the demo models, a file, or a Hub repo first");
  if (!w->config) return bad_request(w->label + " came without its config.json: the pass needs the model's shape");
  const RunTokens& tokens = run_tokens(app);
  if (!tokens.error.empty()) return bad_request(tokens.error);
  const LoadedTokenizer* t = w->tokenizer.get();
  return plan_run(
      run_session(app).settings, *w->config, *w->checkpoint, w->label, tokens.ids,
      run_encoder(t ? std::shared_ptr<const tokenize::Tokenizer>(w->tokenizer, &t->tokenizer) : nullptr, w->vocab));
}

bool run_start(App& app) {
  RunSession& s = run_session(app);
  s.running = s.stopped = false;
  s.error.clear();
  Expected<RunPlanned> planned = plan_loaded(app);
  if (!planned) {
    s.error = planned.error().message;
    return false;
  }
  const LoadedWeights* w = app.params.weights.get();
  s.model_label = w->label;
  s.serial = w->serial;
  s.learned = planned->learned;
  s.context = planned->context;
  s.trained = planned->trained;
  s.plan = std::move(planned->plan);
  s.jobs = std::move(planned->jobs);
  s.study = RunStudy(s.plan, int(s.jobs.size()));
  s.next = 0;
  s.seconds = 0;
  s.running = true;
  s.planned = s.settings;
  ++s.generation;
  s.dispatched = false;
  s.started = std::chrono::steady_clock::now();
  refresh(s);
  return true;
}

void run_tick(App& app) {
  RunSession* s = app.run.get();
  if (!s || !s->running) return;
  const LoadedWeights* w = app.params.weights.get();
  if (!w || w->serial != s->serial) return finish(app, *s, "the checkpoint changed: the run stopped");
  if (s->remote) return;  // the page's workers run the passes (run_deliver)
  const RunJob& job = s->jobs[s->next];
  const auto started = std::chrono::steady_clock::now();
  Expected<RunAnswer> r = run_job(*w->checkpoint, *w->config, job);
  s->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  s->study.add(job, r);
  ++s->next;
  if (s->next == s->jobs.size())
    finish(app, *s, "");
  else
    refresh(*s);
}

void run_deliver(App& app, std::uint64_t generation, std::size_t index, const Expected<RunAnswer>& r) {
  RunSession* s = app.run.get();
  if (!s || !s->running || generation != s->generation || index >= s->jobs.size()) return;
  s->study.add(s->jobs[index], r);
  ++s->next;
  s->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s->started).count();
  if (s->next == s->jobs.size())
    finish(app, *s, "");
  else
    refresh(*s);
}

void run_fail(App& app, std::uint64_t generation, const std::string& message) {
  RunSession* s = app.run.get();
  if (s && s->running && generation == s->generation) finish(app, *s, message);
}

void run_stop(App& app) {
  RunSession* s = app.run.get();
  if (!s || !s->running) return;
  s->running = false;
  s->stopped = true;
  refresh(*s);
}

const std::string& run_measured(const App& app, RunRope rope) {
  static const std::string none;
  const RunSession* s = find_run_session(app);
  const LoadedWeights* w = app.params.weights.get();
  return s && w && w->serial == s->serial ? s->measured[int(rope)] : none;
}

std::string run_rope_legend(RunRope r, double factor) {
  const bool scaled = r != RunRope::None && r != RunRope::Config && r != RunRope::Drop;
  return run_rope_label(r) + (scaled ? " x" + format_sig(factor, 3) : std::string());
}

std::string run_sentence(const RunSession& s) {
  const RunCurve* base = nullptr;  // the unscaled curve (or the config's, when it is the only one)
  for (const RunCurve& c : s.study.curves)
    if (c.windows && (c.rope == RunRope::None || (c.rope == RunRope::Config && !base))) base = &c;
  if (!base || s.trained <= 64 || s.plan.length <= s.trained) return "";
  const std::string in_range = "64-" + std::to_string(s.trained - 1),
                    past_range = std::to_string(s.trained) + "-" + std::to_string(s.plan.length - 1);
  const auto in = [&](const RunCurve& c) { return loss_between(c.mean(), 64, s.trained - 1); };
  const auto past = [&](const RunCurve& c) { return loss_between(c.mean(), s.trained, s.plan.length - 1); };
  std::string out = "Measured on " + s.model_label + " (" + run_rope_label(base->rope) + "): loss " +
                    format_sig(in(*base), 3) + " nats per token at positions " + in_range + ", " +
                    format_sig(past(*base), 3) + " at " + past_range + " (" + format_sig(past(*base) / in(*base), 2) +
                    " times).";
  std::string others;
  for (const RunCurve& c : s.study.curves)
    if (c.windows && &c != base)
      others += std::string(others.empty() ? "" : "; ") + run_rope_legend(c.rope, s.plan.factor) + " " +
                format_sig(in(c), 3) + " / " + format_sig(past(c), 3);
  if (!others.empty()) out += " At " + in_range + " / " + past_range + ": " + others + ".";
  return out;
}

std::string run_status(const RunSession& s) {
  const std::string time = format_sig(s.seconds, 3) + " s";
  if (s.running)
    return (s.study.grids.empty() ? "pass " : "job ") + std::to_string(s.next + 1) + " of " +
           std::to_string(s.jobs.size()) + " · " + time;
  if (s.jobs.empty()) return "not run yet";
  int cells = 0;
  for (const RunGrid& g : s.study.grids) cells += g.done;
  const int passes = int(s.next) - cells;
  std::string done =
      passes ? plural(passes, "pass", "passes") + " of " + std::to_string(s.plan.length) + " tokens" : "";
  if (cells) done += (passes ? " and " : "") + plural(cells, "passkey cell", "passkey cells");
  if (done.empty()) done = "no pass";
  return std::string(s.stopped ? "stopped after " : "done: ") + done + " in " + time;
}

void run_state(JsonWriter& j, const App& app) {
  j.key("run");
  const RunSession* s = find_run_session(app);
  if (!s || (s->jobs.empty() && s->error.empty() && s->text.text.empty() && s->tokens.summary.empty() &&
             s->tokens.error.empty())) {
    j.null();
    return;
  }
  const RunTokens& t = s->tokens;
  j.begin_object().key("text").begin_object().field("name", run_text_name(app));
  j.field("bytes", (long long)(s->text.text.empty() ? heldout_sample().size() : s->text.text.size()));
  j.field("tokens", (long long)t.ids.size()).field("error", t.error).key("first_ids").begin_array();
  for (std::size_t i = 0; i < std::min<std::size_t>(t.ids.size(), 16); ++i) j.value(t.ids[i]);
  j.end_array().end_object();
  j.field("model", s->model_label).field("status", run_status(*s)).field("running", s->running);
  j.field("error", s->error).field("done", (long long)s->next).field("passes", (long long)s->jobs.size());
  j.field("length", s->plan.length).field("windows", s->plan.windows).field("trained", s->trained);
  j.field("context", s->context).key("curves").begin_array();
  for (const RunCurve& c : s->study.curves) {
    const std::vector<double> m = c.mean();
    j.begin_object().field("rope", run_rope_name(c.rope)).field("windows", c.windows).field("error", c.error);
    j.field("in_range", loss_between(m, 64, s->trained - 1));
    j.field("past", loss_between(m, s->trained, s->plan.length - 1)).end_object();
  }
  j.end_array().key("shifts").begin_array();
  for (const RunShift& sh : s->study.shifts)
    j.begin_object().field("shift", sh.shift).field("loss", sh.loss).field("error", sh.error).end_object();
  j.end_array().field("sentence", run_sentence(*s)).field("bench_sentence", s->bench_sentence);
  bench_state(j, *s);
  j.end_object();
}

}  // namespace rv
