// RoPE on [B, T, h, d_head] tensors: float64 reference path, float32 fast path with double-accurate tables, Q/K/V.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/base/tensor.hpp"
#include "core/rope/rope.hpp"

namespace rv {

// freqs_cis as two float tables, cos/sin of positions[t] * theta_i computed in double and then rounded once.
struct RopeTableF32 {
  long long T = 0;
  int half = 0;            // d_head / 2
  std::vector<float> cos;  // [T, d_head/2]
  std::vector<float> sin;  // [T, d_head/2]
};
// Arbitrary positions: one sin/cos per entry. Equally spaced positions: rotation recurrence, re-anchored every 32 rows.
RopeTableF32 rope_table_f32(const std::vector<double>& positions, const Eigen::VectorXd& inv_freq);
RopeTableF32 rope_table_f32(double pos0, long long T, const Eigen::VectorXd& inv_freq);  // positions pos0 + t
// Same, refilling `table` in place: no allocation once its buffers are large enough (per-frame use).
void fill_rope_table_f32(RopeTableF32& table, double pos0, long long T, const Eigen::VectorXd& inv_freq);

// In-place rotation of x [B, T, h, d_head] (contiguous, row-major) with the table's row t for every (b, t, head).
void apply_rope_f32(float* x, long long B, long long T, long long h, int d_head, const RopeTableF32& table, Pairing p);
// Out-of-place variant: out == in is in place; otherwise the two buffers must not overlap.
void apply_rope_f32(const float* in, float* out, long long B, long long T, long long h, int d_head,
                    const RopeTableF32& table, Pairing p);

// float64 reference: x [B, T, h, d_head] rotated in place at positions[t] (angles and sin/cos in double).
void apply_rope_tensor(Tensor4d& x, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p);
void apply_rope_tensor(Tensor4f& x, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p);

// The attention block's view: Q and K rotated, V passed through untouched (all [B, T, h, d_head]).
struct Qkv {
  Tensor4d q, k, v;
};
Qkv apply_rope_qkv(Qkv in, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p);

}  // namespace rv
