// KV-cache decoding for the tiny decoder (docs/lab.md): one token per step, greedy
// generation, attention maps.
#pragma once

#include <optional>
#include <vector>

#include "core/base/error.hpp"
#include "core/decoder/decoder.hpp"

namespace rv {

// [SECTION] The cache
// One layer's keys and values of every token decoded so far; row j is the j-th token decoded (at the cache's
// position_of(j)), head n is columns n*d_head .. (n+1)*d_head - 1 (as q, k, v in docs/lab.md).
//   k: a @ wk of that token, and for rope already rotated at its own position p_j (RoPE is applied to the key once,
//      before caching; a later query never rotates it again). For alibi and t5 the key carries no position: their
//      position enters only as the score bias of p_i - p_j, added when a query attends.
//   v: a @ wv, never rotated.
template <class S>
struct LayerKV {
  RowMat<S> k, v;  // [positions, d_model] each
};

template <class S>
struct DecoderCache {
  std::vector<LayerKV<S>> layer;  // [layers]; empty until the first step
  std::vector<long long> position;  // [rows]: each cached row's position (empty in a cache made by hand: row j at j)
  // Rows decoded so far: the next token's position unless a step says otherwise.
  long long positions() const { return layer.empty() ? 0 : static_cast<long long>(layer[0].k.rows()); }
  long long position_of(long long j) const { return position.empty() ? j : position[static_cast<std::size_t>(j)]; }
};

// [SECTION] One step
template <class S>
struct DecodeStep {
  long long position = 0;  // where this step's token was decoded
  long long token = 0;
  RowVec<S> logits;  // [vocab]: decoder_forward's last logits row for the tokens decoded so far at their positions
  std::vector<std::vector<RowVec<S>>> attention;  // [layers][heads] of [rows + 1]: softmax weights over the cached
                                                  // rows, this one's last
  std::vector<RowVec<S>> key_before_rope;         // [layers] of [d_model]: a @ wk of this token, before rotation
                                                  // (rope); the cache's new key row is it rotated at `position`
};

// Appends `token` at `position` (default cache.positions(), the rows decoded so far) to every layer's keys and
// values and returns its logits and attention rows; the cache remembers the position, so alibi's and t5's biases
// are by p_i - p_j. Errors as decoder_forward: config/weights -> BadRequest; a cache of another shape (layers,
// d_model, k and v rows, its positions) -> BadRequest; a negative position -> BadRequest; token id outside
// [0, vocab) -> IndexError; learned and position >= max_position -> decoder_forward's IndexError for that position.
// On error the cache is unchanged.
template <class S>
Expected<DecodeStep<S>> decoder_decode_step(const DecoderConfig& c, const DecoderWeightsT<S>& w, DecoderCache<S>& cache,
                                            long long token, std::optional<long long> position = std::nullopt);

// [SECTION] Greedy generation
template <class S>
struct Generation {
  std::vector<long long> tokens;  // the prompt, then the generated tokens
  long long prompt_length = 0;
  std::vector<DecodeStep<S>> steps;  // one per decoded position: every prompt token, and every generated token but
                                     // the last (its logits would only predict a token past the ones asked for)
  DecoderCache<S> cache;             // keys (rope: rotated) and values of every decoded position
  std::optional<Error> error;        // learned: the IndexError that stopped generation at the end of the table
};

// Decodes the prompt with a cache, then new_tokens times appends the argmax of the last logits (the first index on
// a tie) and decodes it. The prompt sits at `positions` (one per prompt token; default 0..), the generated tokens
// continue at the last position + 1, + 2, ... Errors: config/weights -> BadRequest; empty prompt or new_tokens < 0
// -> BadRequest; positions as decoder_forward's for one row; a prompt token outside [0, vocab) or a prompt position
// past a learned table -> decoder_forward's IndexError. Running off a learned table while generating is not an
// error of the call: generation stops there, `error` says why, and `tokens` holds what was generated.
template <class S>
Expected<Generation<S>> decoder_generate(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                         const std::vector<long long>& prompt, int new_tokens,
                                         const std::vector<long long>* positions = nullptr);

// [SECTION] Attention maps
template <class S>
using AttentionMaps = std::vector<std::vector<RowMat<S>>>;  // [layers][heads] of [T, T]

// Attention probabilities of one sequence: row i of map [j][n] is layer j, head n's softmax weights of query i over
// keys 0..i, zero above the diagonal, the tokens at `positions` (default 0..T-1). Computed by decoding the tokens
// one by one with a cache (row i is step i's attention row), so it shows what a cached decode attends to; it equals
// decoder_forward's probabilities (tests/core/test_decoder_cache.cpp). Errors as decoder_forward for one row of
// tokens (empty -> BadRequest).
template <class S>
Expected<AttentionMaps<S>> decoder_attention(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                             const std::vector<long long>& tokens,
                                             const std::vector<long long>* positions = nullptr);

// [SECTION] The lesson's claim, measured: "Does RoPE need KV-cache changes? No"
struct KvCheckStep {
  long long position = 0, token = 0;  // the token decoded at this position
  bool generated = false;             // it was generated (else it was part of the prompt)
  double logit_diff = 0;   // max |cached logits - decoder_forward's row for the whole prefix| / max |full row|
  double key_diff = 0;     // rope: max over layers and heads of |cached key - RoPE(a @ wk, position)| / |a @ wk|
  double rotated_twice = 0;  // rope: the same against a key rotated again at the query's position (what a cache that
                             // stored rotated keys would be off by if it rotated them once more); 0 elsewhere
};
struct KvCheck {
  std::vector<long long> tokens;  // prompt, then generated
  long long prompt_length = 0;
  std::vector<KvCheckStep> steps;  // one per decoded position
  std::optional<Error> error;      // as Generation::error (a learned table ran out while generating)
  double worst_logit_diff = 0, worst_key_diff = 0;
};
// Greedy generation with the cache, each step checked against a full recompute of its prefix (decoder_forward) and,
// for rope, each cached key against rope.hpp's rotation of the unrotated key at its own position.
// Errors as decoder_generate.
template <class S>
Expected<KvCheck> kv_cache_check(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                 const std::vector<long long>& prompt, int new_tokens);

}  // namespace rv
