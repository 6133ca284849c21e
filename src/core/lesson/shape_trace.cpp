// Shapes at every step of the lesson's trace, from token ids to Q_rope/K_rope/V, and the parameter counts.
#include "core/lesson/shape_trace.hpp"

namespace rv {

std::vector<ShapeStep> shape_trace(const Dims& k) {
  using S = std::vector<long long>;
  const long long B = k.B, T = k.T, h = k.h, dh = k.d_head, d = k.d(), V = k.V, P = k.max_position;
  return {
      {"token_ids", S{B, T}, "integer ids in [0, V)"},
      {"E", S{V, d}, "token embedding table (learned, V*d parameters)"},
      {"E[token_ids]", S{B, T, d}, "row lookup per token"},
      {"P", S{P, d}, "learned absolute table (GPT-2 wpe); absent with RoPE"},
      {"P[positions]", S{T, d}, "positions 0..T-1; IndexError if T > max_position"},
      {"E[token_ids] + P[positions]", S{B, T, d}, "[B,T,d] + [T,d]: broadcast over batch"},
      {"Q", S{B, T, h, dh}, "x W_q viewed as h heads of width d_head"},
      {"K", S{B, T, h, dh}, "x W_k viewed as h heads"},
      {"V", S{B, T, h, dh}, "x W_v viewed as h heads"},
      {"view_as_complex(Q)", S{B, T, h, dh / 2}, "pairs (x[2i], x[2i+1]) as complex numbers"},
      {"freqs_cis", S{T, dh / 2}, "cos(m theta_i) + i sin(m theta_i), theta_i = base^(-2i/d_head)"},
      {"reshape_for_broadcast(freqs_cis)", S{1, T, 1, dh / 2}, "broadcast over batch and heads"},
      {"Q_rope", S{B, T, h, dh}, "view_as_real(Q_ * freqs_cis).flatten(3): shape unchanged"},
      {"K_rope", S{B, T, h, dh}, "same rotation as Q"},
      {"V (after RoPE)", S{B, T, h, dh}, "not rotated: values carry content, not position"},
  };
}

std::string shape_str(const std::vector<long long>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

ParamCounts param_counts(const Dims& k) {
  ParamCounts c;
  c.token_embedding = static_cast<long long>(k.V) * k.d();
  c.learned_position = static_cast<long long>(k.max_position) * k.d();
  c.rope = 0;
  return c;
}

}  // namespace rv
