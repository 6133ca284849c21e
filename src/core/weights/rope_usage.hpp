// Which RoPE frequencies a trained model uses, from its weights alone (docs/real-weights.md): for every layer, head
// and rotated pair i, how strongly the query and key projections (after the layer's input norm) feed the pair.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

struct RopeUsage {
  std::string model_type;
  std::vector<int> layers;
  int heads = 0, kv_heads = 0, head_dim = 0, rotary_dims = 0;
  Pairing pairing = Pairing::HalfSplit;
  Eigen::VectorXd wavelength;                  // [r/2]: 2 pi / inv_freq, the model's frequencies
  Eigen::VectorXd wavelength_local;            // [r/2]: Gemma 3's sliding layers' (rope_local); empty for others
  double base = 0, base_local = 0;             // the two ropes' bases (base_local 0 without a local rope)
  std::vector<bool> local;                     // [layer]: the layer slides, and rotates at wavelength_local
  std::vector<std::vector<Eigen::VectorXd>> q;  // [layer][head] -> [r/2]
  std::vector<std::vector<Eigen::VectorXd>> k;  // [layer][kv head] -> [r/2]
  Eigen::VectorXd q_mean, k_mean;               // [r/2]: means over layers and heads
};

// g[l][h][i] = sqrt(sum over the pair's two rows r and the input columns c of (W[r, c] gamma[c] n[r])^2): W the
// projection as stored ([out, in]), gamma the layer's input-norm weight (1 + weight for gemma, gemma2, gemma3), n the
// q_norm / k_norm weight by dim within the head (qwen3; gemma3: 1 + weight), else 1. `layers` empty: every layer the
// checkpoint holds. kv heads come from the key projection's rows; a config's num_key_value_heads must agree.
Expected<RopeUsage> rope_usage(Checkpoint& c, const HfConfig& config, const std::vector<int>& layers);

}  // namespace rv
