// libFuzzer target: one `ropeviz-cli eval` request line; the response is always one JSON object, ok iff no "error".
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/eval.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
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
