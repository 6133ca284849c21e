// window.ropeviz.forward and passkey, the worker's side (docs/window-ropeviz.md): the loaded checkpoint's files and
// texts arrive in named buffers, are opened with core's reader, and each request is answered by the CLI's own code.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/eval.hpp"
#include "cli/eval_weights.hpp"
#include "core/base/json_writer.hpp"
#include "core/models/json_config.hpp"
#include "core/tokenize/tokenizer.hpp"
#include "core/weights/byte_source.hpp"

namespace {

// What the page handed over, by name: "file:NAME" (a checkpoint file, whole), "config", "index", "tokenizer",
// "request".
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

std::optional<std::string> take_text(const std::string& name) {
  auto it = buffers().find(name);
  if (it == buffers().end()) return std::nullopt;
  std::string text(it->second.begin(), it->second.end());
  buffers().erase(it);
  return text;
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

}  // extern "C"
