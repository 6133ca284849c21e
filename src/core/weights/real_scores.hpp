// A trained model's real q . k against distance (README "Real weights"): layer 0's query from one token's embedding
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

// head h of H, kv head h / (H / Hk); token and key_token index the token embedding; offsets K >= 0.
Expected<RealScores> real_scores(Checkpoint& c, const HfConfig& config, int head, long long token,
                                 long long key_token, int offsets);

}  // namespace rv
