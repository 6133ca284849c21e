// The forward pass's bench options (core/infer/forward.hpp): top1 is the argmax of the logits' row, and head_from
// leaves the rows before it out without changing the ones after; the passkey's keys, prompt and bisection.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/infer/forward.hpp"
#include "core/infer/passkey.hpp"
#include "core/models/json_config.hpp"

namespace {

const std::string kModel = RV_SOURCE_DIR "/web/models/llama-bytes";

rv::HfConfig model_config() {
  std::ifstream in(kModel + "/config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  rv::Expected<rv::HfConfig> c = rv::parse_hf_config(ss.str());
  REQUIRE(c);
  return *c;
}

std::vector<long long> bytes(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()),
          reinterpret_cast<const unsigned char*>(text.data()) + text.size()};
}

}  // namespace

TEST_CASE("forward: top1 is each row's argmax, and head_from leaves the rows before it out, the rest unchanged") {
  rv::Expected<rv::Checkpoint> c = rv::Checkpoint::open_path(kModel + "/model.safetensors");
  REQUIRE(c);
  const rv::HfConfig config = model_config();
  rv::ForwardOptions o;
  o.tokens = bytes("apt-get install python3 and then apt-get remove it");
  o.logits = o.top1 = true;
  rv::Expected<rv::ForwardResult> full = rv::forward(c.value(), config, o);
  REQUIRE(full);
  int hits = 0;
  for (std::size_t t = 0; t + 1 < o.tokens.size(); ++t) {
    Eigen::Index best = 0;
    full->logits.row(Eigen::Index(t)).maxCoeff(&best);
    CHECK(bool(full->top1[t]) == (best == Eigen::Index(o.tokens[t + 1])));
    hits += full->top1[t];
  }
  CHECK(hits > 5);  // a trained model predicts some bytes of this text
  o.logits = false;
  o.head_from = 20;
  rv::Expected<rv::ForwardResult> tail = rv::forward(c.value(), config, o);
  REQUIRE(tail);
  for (std::size_t t = 0; t + 1 < o.tokens.size(); ++t) {
    if (t < 20) {
      CHECK(std::isnan(tail->nll[t]));
    } else {
      CHECK(tail->nll[t] == full->nll[t]);
      CHECK(tail->top1[t] == full->top1[t]);
    }
  }
}

TEST_CASE("passkey: the keys are splitmix64's, the prompt is the five lines, a byte-level trial fills its length") {
  // splitmix64 from seed 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F
  const std::vector<long long> keys = rv::passkey_keys(0, 3);
  CHECK(keys == std::vector<long long>{10000 + (long long)(0xE220A8397B1DCDAFull % 90000),
                                       10000 + (long long)(0x6E789E6AA1B965F4ull % 90000),
                                       10000 + (long long)(0x06C45D188009454Full % 90000)});
  const std::string p = rv::passkey_prompt(12345, 100, 0.25);
  CHECK(p.rfind("There is an important info hidden inside a lot of irrelevant text.", 0) == 0);
  CHECK(p.find("\nThe grass is green. The s\nThe pass key is 12345. Remember it. 12345 is the pass key.\n") !=
        std::string::npos);  // 25 characters of filler before the key, cut mid-sentence
  CHECK(p.size() >= 40);
  CHECK(p.substr(p.size() - 37) == "What is the pass key? The pass key is");
  CHECK(rv::passkey_answer(12345) == " 12345");
}
