// Adding a position vector against rotating by the position: norms and dot products (lesson 3.3).
#include "core/lesson/add_vs_rotate.hpp"

#include "core/encodings/sinusoidal.hpp"

namespace rv {

AddVsRotate add_vs_rotate(const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m, double n, double shift,
                          const Eigen::VectorXd& inv_freq, Pairing p, double base, int pair) {
  const int d = int(q.size());
  const RowMatrixXd pe = sinusoidal(d, {m, n, m + shift, n + shift}, base);  // [4, d_head]
  const Eigen::VectorXd added = q + pe.row(0).transpose();
  const Eigen::VectorXd rotated = apply_rope(q, m, inv_freq, p);
  AddVsRotate r;
  r.norm_q = q.norm();
  r.norm_added = added.norm();
  r.norm_rotated = rotated.norm();
  r.dot_plain = q.dot(k);
  r.dot_added = added.dot(k + pe.row(1).transpose());
  r.dot_rotated = rope_score(q, k, m, n, inv_freq, p);
  r.dot_added_shifted = (q + pe.row(2).transpose()).dot(k + pe.row(3).transpose());
  r.dot_rotated_shifted = rope_score(q, k, m + shift, n + shift, inv_freq, p);
  r.shift = shift;
  r.q_pair = rope_pair(q, pair, p);
  r.added_pair = rope_pair(added, pair, p);
  r.rotated_pair = rope_pair(rotated, pair, p);
  return r;
}

}  // namespace rv
