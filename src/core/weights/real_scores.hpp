// A trained model's real q . k against distance (docs/real-weights.md): layer 0's query from one token's embedding
// and its key from another's, through the layer's input norm, the projections (and q_norm / k_norm), then
// RoPE(q, r) . RoPE(k, 0) for r = 0..K.
#pragma once

#include <vector>

#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

struct RealScores {
  Eigen::VectorXd q, k;        // [head_dim], before rotation
  std::vector<double> score;   // [K + 1]: RoPE(q, r) . RoPE(k, 0), unrotated dims included, no 1/sqrt(head_dim)
};

// Layer 0's q of `token` and k of `key_token` for one head, before rotation, as the model lays them out: the first
// rotary_dims rotate with its pairing (half_split pairs (i, i + rotary_dims/2)), the rest pass through.
struct RealQK {
  Eigen::VectorXd q, k;  // [head_dim]
  int heads = 0, kv_head = 0, head_dim = 0, rotary_dims = 0;
  long long vocab = 0;   // rows of the token embedding
  Pairing pairing = Pairing::HalfSplit;
};

// head h of H, kv head h / (H / Hk); token and key_token index the token embedding (an IndexError outside it). Reads
// the two embedding rows and the head's projection rows only, never a whole matrix.
Expected<RealQK> real_qk(Checkpoint& c, const HfConfig& config, int head, long long token, long long key_token);
// ... and its scores for r = 0..offsets (offsets K >= 0).
Expected<RealScores> real_scores(Checkpoint& c, const HfConfig& config, int head, long long token,
                                 long long key_token, int offsets);

// x [head_dim] re-laid so that pair i of the whole head under `pairing` is the model's rotary pair i (i <
// rotary_dims/2) and the dims that pass through fill the pairs after them: with the model's inv_freq padded by zeros
// to head_dim/2, RoPE of the whole head then scores as the model does (interleaved needs no change).
Eigen::VectorXd whole_head_layout(const Eigen::VectorXd& x, int rotary_dims, Pairing pairing);

}  // namespace rv
