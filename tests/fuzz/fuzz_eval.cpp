// libFuzzer target: one `ropeviz-cli eval` request line; the response is always one JSON object, ok iff no "error".
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/eval.hpp"
#include "fuzz_check.hpp"

namespace {

// `analyze` may legally search limit * d_head/2 <= 2.6e9 cosines (seconds natively, minutes under ASan), and
// `forward` run 65,536 tokens: such lines are correct but too slow to fuzz, so lines asking for more than 2e7 of the
// one's work or 64 tokens of the other's are skipped.
bool too_slow_to_fuzz(const std::string& line) {
  const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  if (j.value("op", nlohmann::json()) != "analyze" && j.value("op", nlohmann::json()) != "forward") return false;
  const auto number = [&](const char* key, double fallback) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
  };
  if (j.value("op", nlohmann::json()) == "forward") {  // a pass over a few tokens: the checks, not the arithmetic
    const auto tokens = j.find("tokens"), text = j.find("text");
    return (tokens != j.end() && tokens->is_array() && tokens->size() > 64) ||
           (text != j.end() && text->is_string() && text->get<std::string>().size() > 64);
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
  const auto j = nlohmann::ordered_json::parse(response, nullptr, /*allow_exceptions=*/false);
  RV_FUZZ_CHECK(j.is_object());
  RV_FUZZ_CHECK(ok == !j.contains("error"));
  if (!ok) {
    const auto& e = j["error"];
    RV_FUZZ_CHECK(j.size() == 1 && e.is_object() && e.size() == 2);
    RV_FUZZ_CHECK(e.contains("type") && e["type"].is_string() && !e["type"].get<std::string>().empty());
    RV_FUZZ_CHECK(e.contains("message") && e["message"].is_string() && !e["message"].get<std::string>().empty());
  }
  return 0;
}
