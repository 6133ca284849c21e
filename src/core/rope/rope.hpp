// RoPE on single vectors: frequencies, angles, pair rotation in both pairing conventions, scores and norms.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/constants.hpp"
#include "core/base/error.hpp"
#include "core/rope/rotate_pair.hpp"

namespace rv {

// Which coordinates form rotation pair i (0 <= i < d_head/2).
enum class Pairing {
  Interleaved,  // (x[2i], x[2i+1]): Meta's Llama, view_as_complex
  HalfSplit,    // (x[i], x[i + d/2]): GPT-NeoX / Hugging Face rotate_half
};

const char* pairing_name(Pairing p);                          // "interleaved" / "half_split"
std::optional<Pairing> parse_pairing(std::string_view name);  // also accepts "half-split", "neox"

// BadRequest if d_head is odd, zero or negative, or base <= 1 / non-finite.
std::optional<Error> check_rope_dims(int d_head, double base);

// theta_i = 1 / base^(2i/d_head), i = 0..d_head/2-1                        # [d_head/2]
Eigen::VectorXd rope_inv_freq(int d_head, double base);
// lambda_i = 2 pi / theta_i: the positions pair i takes to turn once (and theta_i of a wavelength, its own inverse)
inline double rope_wavelength(double theta) { return kTwoPi / theta; }
// angle_i = position * theta_i (double, not reduced mod 2pi)                # [d_head/2]
Eigen::VectorXd rope_angles(double position, const Eigen::VectorXd& inv_freq);
// freqs[t, i] = positions[t] * theta_i, i.e. torch.outer(positions, inv_freq)  # [T, d_head/2]
Eigen::MatrixXd rope_angle_table(const Eigen::VectorXd& positions, const Eigen::VectorXd& inv_freq);

// Indices (a, b) of pair i in a d_head vector under the given pairing.
inline std::pair<int, int> pair_indices(int i, int d_head, Pairing p) {
  return p == Pairing::Interleaved ? std::pair<int, int>{2 * i, 2 * i + 1} : std::pair<int, int>{i, i + d_head / 2};
}
// Pair i of v as (a, b).
Eigen::Vector2d rope_pair(const Eigen::VectorXd& v, int i, Pairing p);

// (a, b) -> (a cos - b sin, a sin + b cos) with angle position*theta_i, per pair (rotate_pair)  # [d_head]
Eigen::VectorXd apply_rope(const Eigen::VectorXd& x, double position, const Eigen::VectorXd& inv_freq, Pairing p);
// Row t of X rotated at positions[t]                                         # [T, d_head] -> [T, d_head]
Eigen::MatrixXd apply_rope_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& positions,
                                const Eigen::VectorXd& inv_freq, Pairing p);

// perm[j] = interleaved index of the element at half-split index j: perm[i] = 2i, perm[i + d/2] = 2i + 1.
std::vector<int> half_split_from_interleaved_perm(int d_head);
// Re-order x's coordinates from one pairing layout to the other (identity if from == to).
Eigen::VectorXd permute_pairing(const Eigen::VectorXd& x, Pairing from, Pairing to);

// <RoPE(q, m), RoPE(k, n)>, both rotated at their absolute positions.
double rope_score(const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m, double n,
                  const Eigen::VectorXd& inv_freq, Pairing p);
// out[j] = <RoPE(q, anchor + r), RoPE(k, anchor)>, r = offset_lo + j, j < offset_hi - offset_lo + 1.
// Incremental (rotation recurrence, re-anchored every 128 offsets); no allocation if out has capacity.
void rope_score_curve(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq, Pairing p,
                      double anchor, long long offset_lo, long long offset_hi, std::vector<double>& out);
// max over offsets r in [lo, hi] of (max - min over anchors of score(anchor + r, anchor)); 0 in exact math.
double rope_relative_spread(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq,
                            Pairing p, const std::vector<double>& anchors, long long offset_lo, long long offset_hi);

// max over rows t of | ||RoPE(X[t], positions[t])|| - ||X[t]|| |   (X rows are vectors [T, d_head])
double rope_norm_max_diff(const Eigen::MatrixXd& X, const Eigen::VectorXd& positions, const Eigen::VectorXd& inv_freq,
                          Pairing p);
// Same with every row at one position.
double rope_norm_max_diff(const Eigen::MatrixXd& X, double position, const Eigen::VectorXd& inv_freq, Pairing p);

// RoFormer 3.4.3: bound(r) = (1/(d/2)) * sum_{j=1..d/2} |S_j|, S_j = sum_{k<j} exp(i r theta_k).
std::vector<double> rope_decay_bound(int d, double base, const std::vector<double>& distances);
double rope_decay_bound(const Eigen::VectorXd& inv_freq, double distance);

// True bounds on |score(r)| for this q, k, where score(r) = <RoPE(q, n + r), RoPE(k, n)> = Re sum_i h_i e^{i r
// theta_i}, h_i = (q_a + i q_b) conj(k_a + i k_b) for pair i = (a, b), h_{d/2} = 0, S_j = sum_{k<j} e^{i r theta_k}.
//   abel     = sum_{i<d/2} |h_i - h_{i+1}| |S_{i+1}|          (Abel summation; the tighter one)
//   roformer = max_i |h_i - h_{i+1}| * sum_{j=1..d/2} |S_j|    (RoFormer 3.4.3; looser)
// Both depend on |r| only. (rope_decay_bound above is RoFormer's q, k-free relative factor.)
struct ScoreBound {
  double abel = 0.0, roformer = 0.0;
};
// h_i per pair                                                               # [d_head/2]
Eigen::VectorXcd rope_pair_products(const Eigen::VectorXd& q, const Eigen::VectorXd& k, Pairing p);
ScoreBound rope_score_bound(const Eigen::VectorXcd& h, const Eigen::VectorXd& inv_freq, double r);
// abel[j], roformer[j] at r = offset_lo + j for j < offset_hi - offset_lo + 1: every offset, O(d/2) each
// (rotation recurrence re-anchored every 128 offsets, as rope_score_curve; r < 0 mirrored from |r| when in range).
void rope_score_bound_curve(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq,
                            Pairing p, long long offset_lo, long long offset_hi, std::vector<double>& abel,
                            std::vector<double>& roformer);

}  // namespace rv
