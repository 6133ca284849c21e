// libFuzzer target: one `ropeviz-cli eval` request line; the response is always one JSON object, ok iff no "error".
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/eval.hpp"
#include "core/base/json_value.hpp"
#include "fuzz_check.hpp"

namespace {

// `analyze` may legally search limit * d_head/2 <= 2.6e9 cosines (seconds natively, minutes under ASan), and
// `forward` run 65,536 tokens: such lines are correct but too slow to fuzz, so lines asking for more than 2e7 of the
// one's work or 64 tokens of the other's are skipped.
bool too_slow_to_fuzz(const std::string& line) {
  using Kind = rv::JsonValue::Kind;
  const auto parsed = rv::parse_json(line);
  if (!parsed || parsed->kind != Kind::Object) return false;
  const rv::JsonValue& j = *parsed;
  const rv::JsonValue* op = j.find("op");
  const std::string name = op && op->kind == Kind::String ? op->string : std::string();
  if (name != "analyze" && name != "forward") return false;
  const auto number = [&](const char* key, double fallback) {
    const rv::JsonValue* v = j.find(key);
    return v && v->kind == Kind::Number ? v->number : fallback;
  };
  if (name == "forward") {  // a pass over a few tokens: the checks, not the arithmetic
    const rv::JsonValue* tokens = j.find("tokens");
    const rv::JsonValue* text = j.find("text");
    return (tokens && tokens->kind == Kind::Array && tokens->array.size() > 64) ||
           (text && text->kind == Kind::String && text->string.size() > 64);
  }
  return number("limit", 1e7) * number("d_head", 0) / 2 > 2e7;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  if (too_slow_to_fuzz(line)) return 0;
  bool ok = false;
  const std::string response = rv::cli::eval_line(line, ok);  // must not throw: an escaping exception aborts
  bool ok_again = !ok;
  RV_FUZZ_CHECK(rv::cli::eval_line(line, ok_again) == response && ok_again == ok);  // no hidden state
  RV_FUZZ_CHECK(!response.empty() && response.find('\n') == std::string::npos);     // one line per request
  using Kind = rv::JsonValue::Kind;
  const auto parsed = rv::parse_json(response);
  RV_FUZZ_CHECK(parsed && parsed->kind == Kind::Object);
  const rv::JsonValue* e = parsed->find("error");
  RV_FUZZ_CHECK(ok == !e);
  if (!ok) {
    RV_FUZZ_CHECK(parsed->object.size() == 1 && e->kind == Kind::Object && e->object.size() == 2);
    const rv::JsonValue* type = e->find("type");
    const rv::JsonValue* message = e->find("message");
    RV_FUZZ_CHECK(type && type->kind == Kind::String && !type->string.empty());
    RV_FUZZ_CHECK(message && message->kind == Kind::String && !message->string.empty());
  }
  return 0;
}
