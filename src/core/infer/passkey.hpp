// The passkey bench (docs/passkey.md): a 5-digit key hidden at each depth of a filler text of each length, scored
// teacher-forced through the forward pass under the request's rope. Retrieval of an exact string, not understanding.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/infer/forward.hpp"

namespace rv {

// Text to token ids: a tokenizer's encoding, or a byte-level model's UTF-8 bytes.
using TextEncoder = std::function<Expected<std::vector<long long>>(std::string_view text)>;

struct PasskeyRequest {
  std::vector<long long> lengths;  // the most tokens a prompt and its answer take, each
  std::vector<double> depths;      // in [0, 1]: where the key sits in the filler
  int trials = 1;                  // keys per cell
  std::uint64_t seed = 0;
  TextEncoder encode;         // the prompt's (with its special tokens, where asked)
  TextEncoder encode_answer;  // the answer's, alone
  ForwardOptions pass;        // rope, rope_scaling, threads (tokens and positions are the bench's)
  // Called after each trial with (done, total); false stops the bench (BadRequest "stopped").
  std::function<bool(int done, int total)> progress;
};

// One cell of the grid: its trials' share of right keys and their mean key log-probability.
struct PasskeyCell {
  double accuracy = 0.0, key_logprob = 0.0;
};

struct PasskeyResult {
  std::vector<long long> lengths;
  std::vector<double> depths;
  std::vector<std::vector<double>> accuracy;     // [length][depth]: the fraction of trials whose key is the argmax
  std::vector<std::vector<double>> key_logprob;  // [length][depth]: the mean log-probability of the key's tokens
};

// One cell's prompt (the five lines) for key K with c filler characters at depth d, and the answer " K".
std::string passkey_prompt(long long key, long long filler_chars, double depth);
std::string passkey_answer(long long key);
// The keys in cell order (lengths, then depths, then trials): 10000 + next_u64() mod 90000 from NormalRng(seed).
std::vector<long long> passkey_keys(std::uint64_t seed, std::size_t count);

// The limits a request is refused past: 16 lengths, 16 depths, 64 trials.
constexpr int kPasskeyMaxAxis = 16, kPasskeyMaxTrials = 64;

// BadRequest for a grid outside the limits (axes' sizes, lengths, depths, trials), else nothing.
std::optional<Error> check_passkey(const PasskeyRequest& r);
// BadRequest for a request outside the limits, a length its prompt's fixed parts already pass; the forward pass's
// errors as they come.
Expected<PasskeyResult> passkey(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r);
// Cell (lengths[i], depths[j]) of the same grid alone, with the grid's keys: the numbers passkey() gives there (Run
// it's workers run the cells apart). BadRequest for i or j past the axes, or as passkey() refuses.
Expected<PasskeyCell> passkey_cell(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r, std::size_t i,
                                   std::size_t j);

}  // namespace rv
