// The lab in Web Workers, both sides (platform/web/web_lab.hpp): the page's engine gathering the runs, and the
// functions a worker's instance trains one run with.
#include "platform/web/web_lab.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "app/lab/lab_session.hpp"
#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/lab/lab_collect.hpp"
#include "core/lab/lab_engine.hpp"
#include "platform/gl/window.hpp"

// The page starts `workers` workers (0: its default) training these runs ([method, seed] each) of the lab of these
// flags for engine `id`, and stops them (web/page.js).
EM_JS(void, rv_js_lab_workers, (double id, const char* flags, const char* runs, int workers),
      { Module["rvLabWorkers"](id, UTF8ToString(flags), JSON.parse(UTF8ToString(runs)), workers); });
EM_JS(void, rv_js_lab_workers_stop, (double id), { Module["rvLabWorkersStop"](id); });

namespace rv {

class WebLab final : public LabEngine {
 public:
  // flags: what o was read from, which each worker reads again.
  WebLab(WebLabs& labs, LabOptions o, const std::vector<std::string>& lab_flags, int workers)
      : labs_(labs), collect_(std::move(o)), id_(++labs.last_id) {
    labs_.current = this;
    JsonWriter flags, runs;
    flags.values(lab_flags);
    runs.begin_array();
    for (const auto& [method, seed] : collect_.runs())
      runs.begin_array().value(position_method_name(method)).value(double(seed)).end_array();
    runs.end_array();
    rv_js_lab_workers(double(id_), flags.str().c_str(), runs.str().c_str(), workers);
  }
  ~WebLab() override {
    rv_js_lab_workers_stop(double(id_));
    if (labs_.current == this) labs_.current = nullptr;
  }
  void step() override {}  // the runs come through the page's calls below
  bool done() const override { return collect_.done(); }
  const LabResult& result() const override { return collect_.result(); }
  double progress() const override { return collect_.progress(); }
  const std::vector<LabTrained>& trained() const override { return collect_.trained(); }
  bool background() const override { return true; }
  void stop() override {
    rv_js_lab_workers_stop(double(id_));
    stopped_ = true;
    collect_.settle();
  }
  double seconds() const override { return collect_.seconds(); }

  bool ours(double id) const { return !stopped_ && id == double(id_); }
  void progress(std::size_t i, double p) { collect_.set_progress(i, p); }
  // Run i's JSON (lab_run_json), finished or so far; an error message, or "".
  std::string arrive(std::size_t i, const char* json, bool finished, double seconds, double train_seconds,
                     double tokens, const std::vector<std::uint8_t>& weights) {
    if (i >= collect_.runs().size()) return "the page sent a run the lab does not have";
    const auto [method, seed] = collect_.runs()[i];
    Expected<LabSeedRun> run = parse_lab_run(json, collect_.options(), method);
    if (!run) return run.error().message;
    if (!finished) {
      collect_.partial(i, std::move(*run));
    } else {
      std::optional<LabTrained> t;
      if (seed == collect_.options().seed) {
        Expected<LabTrained> read =
            read_lab_safetensors(weights, lab_decoder_config(collect_.options(), method), run->steps_run);
        if (!read) return read.error().message;
        t = std::move(*read);
      }
      collect_.finish(i, {method, std::move(*run), seconds, train_seconds, (long long)tokens}, std::move(t));
    }
    collect_.rebuild();
    return "";
  }

 private:
  WebLabs& labs_;
  LabCollect collect_;
  std::uint64_t id_;
  bool stopped_ = false;
};

void install_web_lab(WebLabs& labs) {
  labs.app->lab.engine = [&labs](const LabOptions& o, const std::vector<std::string>& flags) {
    const int workers = labs.workers;
    labs.workers = 0;
    return std::make_unique<WebLab>(labs, o, flags, workers);
  };
}

namespace {
// A run came in: two frames show it, not an event's settling frames (with a software GPU a frame costs about 0.15 s
// of a core, which the workers share).
void show(Window& w) {
  w.frames_due = std::max(w.frames_due, 2);
  if (w.on_wake) w.on_wake();
}

WebLab* ours(WebLabs* labs, double id) {
  return labs->current && labs->current->ours(id) ? labs->current : nullptr;
}

// A worker failed (it could not start, or a run's message was refused): the lab stops, saying why.
void fail(WebLabs* labs, const std::string& message) {
  App& app = *labs->app;
  lab_stop(app);
  app.lab.error = "the lab's Web Workers: " + message;
  app.ui.notes.push_back(app.lab.error);
  wake(*labs->window);
}

// One run a worker trains: its LabRun and the texts and bytes handed to the page.
struct WorkerRun {
  LabRun run;
  std::string reply;
  std::vector<std::uint8_t> bytes;
};
}  // namespace

}  // namespace rv

extern "C" {

// [SECTION] The page's side: what its workers post (web/page.js), for engine `id` (others are dropped).

// Room for `bytes` of a run's JSON and weights (lab_safetensors), which the page writes before rv_web_lab_run.
EMSCRIPTEN_KEEPALIVE std::uint8_t* rv_web_lab_buffer(rv::WebLabs* labs, int bytes) {
  labs->bytes.assign(std::size_t(std::max(0, bytes)), 0);
  return labs->bytes.data();
}

// Run `index`'s progress 0..1 and the run as lab_run_json writes it, the buffer's first json_bytes: so far (progress
// < 1, the JSON now and then, and no frame for it: the page draws one a second while workers train) or finished
// (then its times, tokens and, for a method's first seed, its weights after the JSON).
EMSCRIPTEN_KEEPALIVE void rv_web_lab_run(rv::WebLabs* labs, double id, int index, int json_bytes, double progress,
                                         double seconds, double train_seconds, double tokens) {
  rv::WebLab* lab = rv::ours(labs, id);
  std::vector<std::uint8_t> bytes = std::move(labs->bytes);
  labs->bytes = std::vector<std::uint8_t>();
  if (!lab) return;
  const std::size_t split = std::min(bytes.size(), std::size_t(std::max(0, json_bytes)));
  const std::string json(bytes.begin(), bytes.begin() + std::ptrdiff_t(split));
  bytes.erase(bytes.begin(), bytes.begin() + std::ptrdiff_t(split));
  const std::size_t i = std::size_t(std::max(0, index));
  const bool finished = progress >= 1;
  if (!finished) lab->progress(i, progress);
  if (!finished && json.empty()) return;  // its progress alone
  const std::string error = lab->arrive(i, json.c_str(), finished, seconds, train_seconds, tokens, bytes);
  if (!error.empty()) return rv::fail(labs, error);
  if (finished) rv::show(*labs->window);
}

// A worker could not train (its wasm did not start, the browser refused a worker): the lab stops with the message.
EMSCRIPTEN_KEEPALIVE void rv_web_lab_failed(rv::WebLabs* labs, double id, const char* message) {
  if (rv::ours(labs, id)) rv::fail(labs, message);
}

// [SECTION] A worker's side: one run at a time in its own instance.

// The run of `method` from `seed` of the lab of these flags (a JSON list, as lab_start was given them), or 0 if they
// are refused.
EMSCRIPTEN_KEEPALIVE rv::WorkerRun* rv_lab_worker_start(const char* flags_json, const char* method, double seed) {
  const rv::Expected<rv::JsonValue> doc = rv::parse_json(flags_json);
  if (!doc || doc->kind != rv::JsonValue::Kind::Array) return nullptr;
  std::vector<std::string> flags;
  for (const rv::JsonValue& f : doc->array) flags.push_back(f.string);
  const rv::Expected<rv::LabOptions> o = rv::parse_lab_options(flags);
  const std::optional<rv::PositionMethod> m = rv::parse_position_method(method);
  if (!o || !m) return nullptr;
  return new rv::WorkerRun{rv::LabRun(rv::lab_run_options(*o, *m, std::uint64_t(seed))), {}, {}};
}

// Trains for about budget_ms (at least one unit of work); returns the run's progress, 1 once it is done.
EMSCRIPTEN_KEEPALIVE double rv_lab_worker_slice(rv::WorkerRun* w, double budget_ms) {
  const double start = emscripten_get_now();
  do w->run.step();
  while (!w->run.done() && emscripten_get_now() - start < budget_ms);
  return w->run.done() ? 1.0 : w->run.progress();
}

// The run as lab_run_json writes it, so far or finished.
EMSCRIPTEN_KEEPALIVE const char* rv_lab_worker_json(rv::WorkerRun* w) {
  w->reply = rv::lab_run_json(w->run.result().methods.front().runs.front());
  return w->reply.c_str();
}

// 0: its seconds inside step(), 1: of them training, 2: tokens trained, 3: the bytes rv_lab_worker_weights wrote.
EMSCRIPTEN_KEEPALIVE double rv_lab_worker_stat(rv::WorkerRun* w, int which) {
  const rv::LabResult& r = w->run.result();
  const double stats[] = {r.seconds, r.train_seconds, double(r.tokens_trained), double(w->bytes.size())};
  return which >= 0 && which < 4 ? stats[which] : 0.0;
}

// The finished run's model as safetensors (lab_safetensors), for a method's first seed; their address (0: none).
EMSCRIPTEN_KEEPALIVE const std::uint8_t* rv_lab_worker_weights(rv::WorkerRun* w) {
  w->bytes.clear();
  if (w->run.trained().empty()) return nullptr;
  rv::Expected<std::vector<std::uint8_t>> bytes = rv::lab_safetensors(w->run.trained().front());
  if (!bytes) return nullptr;
  w->bytes = std::move(*bytes);
  return w->bytes.data();
}

EMSCRIPTEN_KEEPALIVE void rv_lab_worker_free(rv::WorkerRun* w) {
  delete w;
}

}  // extern "C"
