// The page's forward worker (docs/window-ropeviz.md): the loaded checkpoint's files and texts arrive in named buffers
// and are opened with core's reader; window.ropeviz.forward and passkey are answered by the CLI's own code, Run it's
// passes by the same plan the page made.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/run/run_session.hpp"
#include "app/run/run_text.hpp"
#include "cli/eval.hpp"
#include "cli/eval_weights.hpp"
#include "core/base/json_writer.hpp"
#include "core/infer/run_study.hpp"
#include "core/models/json_config.hpp"
#include "core/tokenize/tokenizer.hpp"
#include "core/weights/byte_source.hpp"

namespace {

// What the page handed over, by name: "file:NAME" (a checkpoint file, whole), "config", "index", "tokenizer",
// "request", "settings" and "ids" (Run it's settings and token ids, float64).
std::map<std::string, std::vector<std::uint8_t>>& buffers() {
  static std::map<std::string, std::vector<std::uint8_t>> b;
  return b;
}
std::optional<rv::cli::ModelCheckpoint>& model() {
  static std::optional<rv::cli::ModelCheckpoint> m;
  return m;
}
std::string& answer() {
  static std::string a;
  return a;
}
std::vector<double>& numbers() {
  static std::vector<double> n;
  return n;
}

std::optional<std::string> take_text(const std::string& name) {
  auto it = buffers().find(name);
  if (it == buffers().end()) return std::nullopt;
  std::string text(it->second.begin(), it->second.end());
  buffers().erase(it);
  return text;
}

// A buffer of float64s (Run it's settings, its token ids) as numbers; empty when absent.
std::vector<double> take_numbers(const std::string& name) {
  const std::optional<std::string> raw = take_text(name);
  std::vector<double> out(raw ? raw->size() / sizeof(double) : 0);
  if (!out.empty()) std::memcpy(out.data(), raw->data(), out.size() * sizeof(double));
  return out;
}

// The CLI's error document.
const char* error_document(const rv::Error& e) {
  rv::JsonWriter j;
  j.begin_object().key("error").begin_object().key("type").value(e.type).key("message").value(e.message);
  j.end_object().end_object();
  answer() = j.str();
  return answer().c_str();
}

rv::Expected<rv::cli::ModelCheckpoint> open_model(const std::string& file) {
  const std::optional<std::string> config = take_text("config");
  if (!config)
    return rv::bad_request("the loaded checkpoint came without its config.json: the pass needs the model's shape");
  rv::Expected<rv::HfConfig> c = rv::parse_hf_config(*config);
  if (!c) return c.error();
  const rv::SourceOpener open = [](const std::string& name) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    auto it = buffers().find("file:" + name);
    if (it == buffers().end()) return rv::bad_request(name + " was not read by the page");
    return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(std::move(it->second)));
  };
  const std::optional<std::string> index = take_text("index");
  rv::Expected<rv::Checkpoint> checkpoint =
      index ? rv::Checkpoint::open_index(*index, open) : rv::Checkpoint::open_file(file, open);
  if (!checkpoint) return checkpoint.error();
  rv::cli::ModelCheckpoint m{std::move(*c), std::move(*checkpoint), nullptr};
  if (const std::optional<std::string> tokenizer = take_text("tokenizer")) {
    rv::Expected<rv::tokenize::Tokenizer> t = rv::tokenize::parse_tokenizer(*tokenizer);
    if (!t) return rv::bad_request("tokenizer.json: " + t.error().message);
    m.tokenizer = std::make_shared<const rv::tokenize::Tokenizer>(std::move(*t));
  }
  return m;
}

}  // namespace

extern "C" {

// A buffer of `bytes` for the page to fill under `name` (replacing one of the same name).
EMSCRIPTEN_KEEPALIVE std::uint8_t* rv_infer_worker_buffer(const char* name, int bytes) {
  std::vector<std::uint8_t>& b = buffers()[name];
  b.assign(std::size_t(bytes > 0 ? bytes : 0), 0);
  return b.data();
}

// Opens the checkpoint from the buffers (`file`: the single file's name, "" with an index): "" or the error document.
EMSCRIPTEN_KEEPALIVE const char* rv_infer_worker_open(const char* file) {
  model().reset();
  rv::Expected<rv::cli::ModelCheckpoint> m = open_model(file);
  buffers().clear();
  if (!m) return error_document(m.error());
  model().emplace(std::move(*m));
  return "";
}

// The "request" buffer's answer on the open checkpoint: the CLI's document or its error document.
EMSCRIPTEN_KEEPALIVE const char* rv_infer_worker_answer() {
  const std::string request = take_text("request").value_or("");
  if (!model()) return error_document(rv::bad_request("no checkpoint is open in this worker"));
  bool ok = false;
  answer() = rv::cli::eval_on_checkpoint(request, *model(), ok);
  return answer().c_str();
}

// Run it's job `index` of the study the "settings" buffer's numbers (run_settings_numbers, float64) plan on the "ids"
// buffer's tokens (app/run/run_session.hpp plan_run, as the page planned it) on the open checkpoint, its tokenizer
// encoding the bench's prompts: the count of its numbers (rv_infer_worker_numbers, flatten_run_answer), or -1 with
// its error as "type\nmessage" (rv_infer_worker_error).
EMSCRIPTEN_KEEPALIVE int rv_infer_worker_run_job(int index) {
  rv::Expected<rv::RunAnswer> r = rv::bad_request("no checkpoint is open in this worker");
  const std::vector<double> numbers_in = take_numbers("settings");
  const std::vector<double> raw_ids = take_numbers("ids");
  const std::optional<rv::RunSettings> settings = rv::run_settings_from(numbers_in);
  if (!settings) {
    r = rv::bad_request("the page handed over " + std::to_string(numbers_in.size()) + " settings, not Run it's");
  } else if (model()) {
    const std::vector<long long> ids(raw_ids.begin(), raw_ids.end());
    const rv::Expected<rv::ForwardShape> shape = rv::forward_shape(model()->checkpoint, model()->config);
    rv::Expected<rv::RunPlanned> planned =
        rv::plan_run(*settings, model()->config, model()->checkpoint, "the model", ids,
                     rv::run_encoder(model()->tokenizer, shape ? shape->vocab : 0));
    if (!planned)
      r = planned.error();
    else if (index < 0 || std::size_t(index) >= planned->jobs.size())
      r = rv::bad_request("no pass " + std::to_string(index) + " in a plan of " + std::to_string(planned->jobs.size()));
    else
      r = rv::run_job(model()->checkpoint, model()->config, planned->jobs[std::size_t(index)]);
  }
  if (!r) {
    answer() = r.error().type + "\n" + r.error().message;
    return -1;
  }
  numbers() = rv::flatten_run_answer(*r);
  return int(numbers().size());
}
EMSCRIPTEN_KEEPALIVE const double* rv_infer_worker_numbers() {
  return numbers().data();
}
EMSCRIPTEN_KEEPALIVE const char* rv_infer_worker_error() {
  return answer().c_str();
}

}  // extern "C"
