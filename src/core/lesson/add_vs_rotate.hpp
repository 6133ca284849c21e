// Lesson 3.3 seen, not read: a position vector added to q (Vaswani's sinusoidal PE) against q rotated by RoPE, with
// the norms and the dot products with a key that each gives.
#pragma once

#include <Eigen/Core>

#include "core/rope/rope.hpp"

namespace rv {

struct AddVsRotate {
  double norm_q = 0, norm_added = 0, norm_rotated = 0;    // ‖q‖, ‖q + PE(m)‖, ‖RoPE(q, m)‖
  double dot_plain = 0;                                   // ⟨q, k⟩: no position at all
  double dot_added = 0, dot_rotated = 0;                  // ⟨q + PE(m), k + PE(n)⟩, ⟨RoPE(q, m), RoPE(k, n)⟩
  double dot_added_shifted = 0, dot_rotated_shifted = 0;  // the same with both positions moved by `shift`
  double shift = 0;
  Eigen::Vector2d q_pair, added_pair, rotated_pair;  // pair `pair` of q, q + PE(m), RoPE(q, m)
};

// q, k: [d_head]; PE(t) = sinusoidal(d_head, {t}, base) (the additive encoding at the same width); RoPE with inv_freq
// and pairing p; the drawn pair is `pair`.
AddVsRotate add_vs_rotate(const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m, double n, double shift,
                          const Eigen::VectorXd& inv_freq, Pairing p, double base, int pair = 0);

}  // namespace rv
