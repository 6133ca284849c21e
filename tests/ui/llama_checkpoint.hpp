// A small generated llama-shaped checkpoint (layer 0's embedding, input norm and q/k projections) and its config, for
// the core and UI tests of layer 0's real q . k: every value seeded, written with core's write_safetensors.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/random.hpp"
#include "core/weights/safetensors.hpp"

namespace rv::test {

struct LlamaShape {
  int vocab = 40, hidden = 32, heads = 4, kv_heads = 2, head_dim = 8;
  double base = 10000.0;
  double partial_rotary = 1.0;  // partial_rotary_factor (< 1: some dims pass through unrotated)
  std::uint64_t seed = 7;
};

inline std::vector<double> seeded_values(std::uint64_t seed, long long n, double scale, double shift = 0.0) {
  NormalRng rng(seed);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = shift + scale * rng.normal();
  return v;
}

// model.safetensors' bytes (F32) for the shape.
inline std::vector<std::uint8_t> llama_checkpoint(const LlamaShape& s) {
  const long long q_rows = (long long)s.heads * s.head_dim, k_rows = (long long)s.kv_heads * s.head_dim;
  std::vector<TensorToWrite> t = {
      {"model.embed_tokens.weight", {s.vocab, s.hidden}, seeded_values(s.seed, (long long)s.vocab * s.hidden, 1.0)},
      {"model.layers.0.input_layernorm.weight", {s.hidden}, seeded_values(s.seed + 1, s.hidden, 0.1, 1.0)},
      {"model.layers.0.self_attn.q_proj.weight", {q_rows, s.hidden}, seeded_values(s.seed + 2, q_rows * s.hidden, 0.5)},
      {"model.layers.0.self_attn.k_proj.weight", {k_rows, s.hidden}, seeded_values(s.seed + 3, k_rows * s.hidden, 0.5)},
      {"lm_head.weight", {s.vocab, s.hidden}, seeded_values(s.seed + 4, (long long)s.vocab * s.hidden, 1.0)},
  };
  return write_safetensors(t, "F32", {{"format", "pt"}}).value();
}

// Its config.json.
inline std::string llama_config(const LlamaShape& s) {
  std::string c = "{\"model_type\": \"llama\", \"hidden_size\": " + std::to_string(s.hidden) +
                  ", \"num_attention_heads\": " + std::to_string(s.heads) +
                  ", \"num_key_value_heads\": " + std::to_string(s.kv_heads) +
                  ", \"head_dim\": " + std::to_string(s.head_dim) + ", \"vocab_size\": " + std::to_string(s.vocab) +
                  ", \"rope_theta\": " + std::to_string(s.base) + ", \"max_position_embeddings\": 2048" +
                  ", \"rms_norm_eps\": 1e-05";
  if (s.partial_rotary != 1.0) c += ", \"partial_rotary_factor\": " + std::to_string(s.partial_rotary);
  return c + "}";
}

// A byte-level BPE tokenizer.json (GPT-2's shape) whose vocabulary fills every id of the shape: "the" (1), " the" (2,
// 'Ġthe') and " cat" (3, 'Ġcat') by merges of the letters 4..9, every other id "tok<i>". A letter it lacks is dropped
// (no unk_token), so "dog" is no token.
inline std::string llama_tokenizer(const LlamaShape& s) {
  const char* named[] = {"tok0", "the", "\u0120the", "\u0120cat", "t", "h", "e", "\u0120", "c", "a", "th", "ca", "cat"};
  std::string v;
  for (int i = 0; i < s.vocab; ++i) {
    const std::string word = i < int(sizeof named / sizeof *named) ? named[i] : "tok" + std::to_string(i);
    v += (v.empty() ? "" : ", ") + std::string("\"") + word + "\": " + std::to_string(i);
  }
  return "{\"version\": \"1.0\", \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
         "\"trim_offsets\": true, \"use_regex\": true}, \"decoder\": {\"type\": \"ByteLevel\"}, \"model\": "
         "{\"type\": \"BPE\", \"vocab\": {" +
         v + "}, \"merges\": [\"t h\", \"th e\", \"\\u0120 the\", \"c a\", \"ca t\", \"\\u0120 cat\"]}}";
}

}  // namespace rv::test
