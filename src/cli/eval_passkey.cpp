// The passkey op over core's bench (cli/eval_passkey.hpp).
#include "cli/eval_passkey.hpp"

#include "cli/eval_forward.hpp"
#include "cli/eval_weights.hpp"
#include "core/base/constants.hpp"
#include "core/infer/passkey.hpp"

namespace rv::cli {

Expected<json> op_passkey(Request& r) {
  Expected<ModelCheckpoint> loaded = model_checkpoint(r);
  if (!loaded) return loaded.error();
  return passkey_document(r, loaded.value());
}

namespace {

// passkey's own fields and the pass options into p; special: "add_special_tokens".
std::optional<Error> read_passkey(Request& r, PasskeyRequest& p, bool& special) {
  p.lengths = r.integers("lengths", std::size_t(kPasskeyMaxAxis));
  p.depths = r.numbers("depths", std::nullopt, std::size_t(kPasskeyMaxAxis));
  const long long trials = r.integer("trials", 1);
  const long long seed = r.integer("seed", 0);
  special = r.boolean("add_special_tokens", false);
  if (r.error) return *r.error;
  if (seed < 0 || seed >= kExactWholeMax)
    return bad_request("\"seed\" must be in [0, 2^53 - 1], got " + std::to_string(seed));
  if (trials < 1 || trials > kPasskeyMaxTrials)
    return bad_request("\"trials\" must be in [1, " + std::to_string(kPasskeyMaxTrials) + "], got " +
                       std::to_string(trials));
  p.trials = int(trials);
  p.seed = std::uint64_t(seed);
  return read_pass_options(r, p.pass);
}

}  // namespace

std::optional<Error> check_passkey_request(Request& r) {
  PasskeyRequest p;
  bool special = false;
  return read_passkey(r, p, special);
}

Expected<json> passkey_document(Request& r, ModelCheckpoint& m) {
  PasskeyRequest p;
  bool special = false;
  if (auto e = read_passkey(r, p, special)) return *e;
  Expected<Encoder> encode = text_encoder(r, m);
  if (!encode) return encode.error();
  const Encoder& e = *encode;
  p.encode = [&e, special](std::string_view text) { return e(text, special); };
  p.encode_answer = [&e](std::string_view text) { return e(text, false); };
  Expected<PasskeyResult> out = passkey(m.checkpoint, m.config, p);
  if (!out) return out.error();
  json accuracy = json::array(), logprob = json::array();
  for (std::size_t i = 0; i < out->lengths.size(); ++i) {
    accuracy.push_back(out->accuracy[i]);
    logprob.push_back(out->key_logprob[i]);
  }
  return json{{"lengths", out->lengths}, {"depths", out->depths}, {"accuracy", accuracy}, {"key_logprob", logprob}};
}

}  // namespace rv::cli
