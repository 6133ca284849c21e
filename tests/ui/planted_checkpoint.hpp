// Generated llama-shaped checkpoints for the rope_usage tests and benchmarks: seeded projections with one planted pair
// (its rows in every head scaled), in any dtype core writes, with the config.json that describes them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/weights/safetensors.hpp"

namespace rv::test {

struct PlantedShape {
  int layers = 3, hidden = 32, heads = 4, kv_heads = 2, head_dim = 8;
  int planted_pair = 3;        // half_split pair whose q and k rows (i and i + head_dim/2 of every head) are scaled
  double planted_gain = 10.0;  // by this
  long long max_position = 2048;
  double base = 10000.0;
  long long extra_rows = 0;    // an embed_tokens [extra_rows, hidden] of zeros: a large tensor the walk never reads
  std::string skip;            // a tensor name left out ("model.layers.1.self_attn.k_proj.weight"), or ""
  bool qk_norm = false;        // q_norm / k_norm weights of zeros per layer (Gemma 3's, which multiply by 1 + w)
};

// Deterministic values in about [-0.05, 0.05] (a 64-bit LCG), so every test sees the same weights.
inline std::vector<double> planted_values(std::size_t n, std::uint64_t seed) {
  std::vector<double> v(n);
  std::uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (double& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = (double(s >> 11) / double(1ULL << 53) - 0.5) * 0.1;
  }
  return v;
}

inline std::vector<TensorToWrite> planted_tensors(const PlantedShape& m) {
  std::vector<TensorToWrite> out;
  const auto plant = [&](std::vector<double>& w, int heads) {
    const int half = m.head_dim / 2;
    for (int h = 0; h < heads; ++h)
      for (int dim : {m.planted_pair, m.planted_pair + half})
        for (int c = 0; c < m.hidden; ++c) w[std::size_t(h * m.head_dim + dim) * m.hidden + c] *= m.planted_gain;
  };
  for (int l = 0; l < m.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    std::vector<double> q = planted_values(std::size_t(m.heads) * m.head_dim * m.hidden, 3 * l + 1);
    std::vector<double> k = planted_values(std::size_t(m.kv_heads) * m.head_dim * m.hidden, 3 * l + 2);
    plant(q, m.heads);
    plant(k, m.kv_heads);
    out.push_back({p + "self_attn.q_proj.weight", {m.heads * m.head_dim, m.hidden}, std::move(q)});
    out.push_back({p + "self_attn.k_proj.weight", {m.kv_heads * m.head_dim, m.hidden}, std::move(k)});
    out.push_back({p + "input_layernorm.weight", {m.hidden}, std::vector<double>(std::size_t(m.hidden), 1.0)});
    if (m.qk_norm)
      for (const char* norm : {"self_attn.q_norm.weight", "self_attn.k_norm.weight"})
        out.push_back({p + norm, {m.head_dim}, std::vector<double>(std::size_t(m.head_dim), 0.0)});
  }
  if (m.extra_rows)
    out.push_back({"model.embed_tokens.weight", {m.extra_rows, m.hidden},
                   std::vector<double>(std::size_t(m.extra_rows) * m.hidden, 0.0)});
  if (!m.skip.empty())
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].name == m.skip) out.erase(out.begin() + long(i));
  return out;
}

inline std::vector<std::uint8_t> planted_checkpoint(const PlantedShape& m, const std::string& dtype = "F32") {
  return write_safetensors(planted_tensors(m), dtype, {}).value();
}

inline std::string planted_config(const PlantedShape& m, const std::string& model_type = "llama") {
  return "{\"model_type\": \"" + model_type + "\", \"hidden_size\": " + std::to_string(m.hidden) +
         ", \"num_attention_heads\": " + std::to_string(m.heads) + ", \"num_key_value_heads\": " +
         std::to_string(m.kv_heads) + ", \"head_dim\": " + std::to_string(m.head_dim) +
         ", \"num_hidden_layers\": " + std::to_string(m.layers) + ", \"max_position_embeddings\": " +
         std::to_string(m.max_position) + ", \"rope_theta\": " + std::to_string(m.base) + "}";
}

}  // namespace rv::test
