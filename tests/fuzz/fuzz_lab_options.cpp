// libFuzzer target: the lab's option parser (ropeviz-cli lab's flags). Accepted options are within their limits,
// give a decoder config the decoder accepts for every chosen method, and read back to themselves from their
// canonical flags; a rejection is a BadRequest that names a flag.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/lab/lab.hpp"
#include "fuzz_check.hpp"

namespace {

// The input split on spaces, newlines and NULs, as a shell would hand the words over.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char ch : text) {
    if (ch == ' ' || ch == '\n' || ch == '\0') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

std::vector<std::string> canonical_flags(const rv::LabOptions& o) {
  std::string methods;
  for (rv::PositionMethod m : o.methods)
    methods += (methods.empty() ? "" : ",") + std::string(rv::position_method_name(m));
  return {"--task",         rv::lab_task_name(o.task),
          "--methods",      methods,
          "--train-len",    std::to_string(o.train_len),
          "--steps",        std::to_string(o.steps),
          "--seed",         std::to_string(o.seed),
          "--d-model",      std::to_string(o.d_model),
          "--heads",        std::to_string(o.heads),
          "--layers",       std::to_string(o.layers),
          "--d-ff",         std::to_string(o.d_ff),
          "--batch",        std::to_string(o.batch),
          "--lr",           rv::format_number(o.lr),
          "--warmup",       std::to_string(o.warmup),
          "--eval-count",   std::to_string(o.eval_count),
          "--check-every",  std::to_string(o.check_every),
          "--rope-scaling", rv::lab_scaling_name(o.rope_scaling),
          "--rope-factor",  rv::format_number(o.rope_factor)};
}

bool same(const rv::LabOptions& a, const rv::LabOptions& b) {
  return a.task == b.task && a.methods == b.methods && a.train_len == b.train_len && a.steps == b.steps &&
         a.seed == b.seed && a.d_model == b.d_model && a.heads == b.heads && a.layers == b.layers && a.d_ff == b.d_ff &&
         a.batch == b.batch && a.lr == b.lr && a.warmup == b.warmup && a.eval_count == b.eval_count &&
         a.check_every == b.check_every && a.rope_scaling == b.rope_scaling && a.rope_factor == b.rope_factor;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const rv::Expected<rv::LabOptions> o =
      rv::parse_lab_options(words(std::string_view(reinterpret_cast<const char*>(data), size)));
  if (!o) {
    RV_FUZZ_CHECK(o.error().type == "BadRequest");
    RV_FUZZ_CHECK(o.error().message.find("--") != std::string::npos);  // names the flag
    return 0;
  }
  RV_FUZZ_CHECK(o->train_len >= 1 && o->train_len <= 64);
  RV_FUZZ_CHECK(o->steps >= 1 && o->steps <= 100000);
  RV_FUZZ_CHECK(o->check_every >= 0 && o->check_every <= 100000);
  RV_FUZZ_CHECK(!o->methods.empty());
  for (rv::PositionMethod m : o->methods) RV_FUZZ_CHECK(!rv::check_decoder_config(rv::lab_decoder_config(*o, m)));
  const rv::Expected<rv::LabOptions> again = rv::parse_lab_options(canonical_flags(*o));
  RV_FUZZ_CHECK(again.ok() && same(*again, *o));
  const rv::Expected<rv::LabOptions> written = rv::parse_lab_options(rv::lab_option_flags(*o));  // the app's Re-run
  RV_FUZZ_CHECK(written.ok() && same(*written, *o));
  RV_FUZZ_CHECK(o->rope_factor > 1 && o->rope_factor <= 64);
  return 0;
}
