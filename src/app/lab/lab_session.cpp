// The lab inside the app: runs core's LabRun a slice per frame, or polls runs trained elsewhere
// (app/lab/lab_session.hpp).
#include "app/lab/lab_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/state/params.hpp"
#include "core/base/format.hpp"

namespace rv {

std::vector<std::string> lab_flags(const App& app) {
  return lab_flags(app.params, app.lab.rope_scaling, app.lab.rope_factor);
}

const char* lab_scaled_label(const LabOptions& o, char* buf, std::size_t size) {
  std::snprintf(buf, size, "rope + %s x%g", lab_scaling_name(o.rope_scaling), o.rope_factor);
  return buf;
}

bool lab_start(App& app, const std::vector<std::string>& flags) {
  LabSession& lab = app.lab;
  const Expected<LabOptions> o = parse_lab_options(flags);
  if (!o) {
    lab.error = o.error().message;
    return false;
  }
  if (lab.run && lab.run->done() && !lab.stopped) lab.previous = lab.run->result();  // for sequential vs random
  lab.rope_scaling = o->rope_scaling;  // the panel's settings (and so the link) follow a run started elsewhere
  lab.rope_factor = o->rope_factor;
  set_lab_params(app.params, *o);
  lab.run = lab.engine ? lab.engine(*o, flags) : std::make_unique<LabSerial>(*o);
  lab.running = !lab.run->done();
  lab.stopped = false;
  lab.error.clear();
  lab.result_json = lab.running ? "" : lab_json(lab.run->result());
  lab.last_loss = 0;
  ++lab.serial;
  return true;
}

void lab_tick(App& app, double budget_ms) {
  LabSession& lab = app.lab;
  lab.slice_ms = 0;
  if (!lab.running) return;
  const auto start = std::chrono::steady_clock::now();
  do {
    lab.run->step();  // trained elsewhere: takes what arrived, once
    lab.slice_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  } while (!lab.run->done() && !lab.run->background() && lab.slice_ms < budget_ms);
  const auto& methods = lab.run->result().methods;
  if (!methods.empty() && !methods.back().runs.back().train_loss.empty())
    lab.last_loss = methods.back().runs.back().train_loss.back();
  if (!lab.run->done()) return;
  lab.running = false;
  lab.result_json = lab_json(lab.run->result());
}

void lab_stop(App& app) {
  LabSession& lab = app.lab;
  if (!lab.running) return;
  lab.run->stop();  // threads or workers: what finished stays, with the others' runs so far
  lab.running = false;
  lab.stopped = true;
  lab.result_json = lab_json(lab.run->result());
}

double lab_seconds_left(const LabEngine& run) {
  const double done = run.progress();
  if (run.done() || done <= 0) return 0;
  return run.seconds() * (1 - done) / done;
}

namespace {
// A run trained elsewhere: "runs 5 of 18 done" (the evaluated ones; the others show their losses so far).
std::string runs_done(const LabResult& r) {
  long long done = 0;
  for (const LabMethodResult& m : r.methods)
    for (const LabSeedRun& run : m.runs) done += run.evaluated;
  const long long all = (long long)r.options.methods.size() * r.options.seeds;
  return "runs " + format_count(done) + " of " + format_count(all) + " done";
}
}  // namespace

std::string lab_status(const App& app) {
  const LabSession& lab = app.lab;
  if (!lab.run) return "not run yet";
  const LabResult& r = lab.run->result();
  const double tps = r.train_seconds > 0 ? double(r.tokens_trained) / r.train_seconds : 0;
  const std::string rate = format_count((long long)std::llround(tps)) + " tokens/s";
  if (!lab.running) {
    return std::string(lab.stopped ? "stopped" : "finished") + ": " + format_count((long long)r.methods.size()) +
           (r.methods.size() == 1 ? " method" : " methods") +
           (r.options.seeds > 1 ? " x " + std::to_string(r.options.seeds) + " seeds" : std::string()) + " in " +
           format_sig(r.seconds, 3) + " s · " + rate;
  }
  if (lab.run->background())
    return runs_done(r) + " · " + rate + " · " + format_sig(std::ceil(lab_seconds_left(*lab.run)), 3) + " s left";
  if (r.methods.empty()) return "starting";
  const LabSeedRun& m = r.methods.back().runs.back();
  std::string what = std::string(position_method_name(r.methods.back().method));
  if (r.options.seeds > 1)
    what += " seed " + std::to_string(m.seed) + " (" + std::to_string(r.methods.back().runs.size()) + " of " +
            std::to_string(r.options.seeds) + ")";
  what += ": ";
  if (m.accuracy.empty())
    what += "step " + format_count((long long)m.train_loss.size()) + " / " + format_count(r.options.steps) +
            " · loss " + format_sig(lab.last_loss, 3);
  else
    what += "evaluating length " +
            format_count((long long)(m.accuracy_scaled.empty() ? m.accuracy.size() : m.accuracy_scaled.size())) +
            " / " + format_count(4LL * r.options.train_len) +
            (m.accuracy_scaled.empty() ? "" : std::string(" with ") + lab_scaling_name(r.options.rope_scaling));
  return what + " · " + rate + " · " + format_sig(std::ceil(lab_seconds_left(*lab.run)), 3) + " s left";
}

}  // namespace rv
