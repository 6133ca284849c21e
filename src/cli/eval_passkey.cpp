// The passkey op over core's bench (cli/eval_passkey.hpp).
#include "cli/eval_passkey.hpp"

#include "cli/eval_forward.hpp"
#include "cli/eval_weights.hpp"
#include "core/base/constants.hpp"
#include "core/infer/passkey.hpp"

namespace rv::cli {

std::optional<Error> op_passkey(FieldReader& r, JsonWriter& w) {
  Expected<ModelCheckpoint> loaded = model_checkpoint(r);
  if (!loaded) return loaded.error();
  return passkey_document(r, loaded.value(), w);
}

namespace {

// passkey's own fields and the pass options into p; special: "add_special_tokens".
std::optional<Error> read_passkey(FieldReader& r, PasskeyRequest& p, bool& special) {
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

std::optional<Error> check_passkey_request(FieldReader& r) {
  PasskeyRequest p;
  bool special = false;
  return read_passkey(r, p, special);
}

std::optional<Error> passkey_document(FieldReader& r, ModelCheckpoint& m, JsonWriter& w) {
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
  w.begin_object().key("lengths").list(out->lengths).key("depths").list(out->depths);
  for (const char* key : {"accuracy", "key_logprob"}) {
    w.key(key).begin_array();
    for (std::size_t i = 0; i < out->lengths.size(); ++i)
      w.list(key[0] == 'a' ? out->accuracy[i] : out->key_logprob[i]);
    w.end_array();
  }
  w.end_object();
  return std::nullopt;
}

}  // namespace rv::cli
