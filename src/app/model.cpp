// Model from Params: frequencies, angles, the learned table and its lookup, the seeded Q/K/V.
#include "app/model.hpp"

namespace rv {
namespace {

Eigen::VectorXd seeded_normal(std::uint64_t seed, int n) {
  NormalRng rng(seed);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = rng.normal();
  return v;
}

}  // namespace

void update_model(const Params& p, Model& m) {
  const std::optional<Params>& old = m.computed_from;
  if (old && *old == p) return;
  const bool freq_changed = !old || old->d_head != p.d_head || old->base != p.base;
  const bool table_changed = !old || old->max_position != p.max_position || old->d_model() != p.d_model() ||
                             old->seed != p.seed;
  const bool vectors_changed = !old || old->d_head != p.d_head || old->seed != p.seed;

  if (freq_changed) m.inv_freq = rope_inv_freq(p.d_head, p.base);                  // [d_head/2]
  m.angles = rope_angles(double(p.position), m.inv_freq);                          // [d_head/2]
  if (table_changed) m.table = learned_table(p.max_position, p.d_model(), p.seed);  // [max_position, d]
  if (vectors_changed) {
    m.q = seeded_normal(p.seed * 3 + 1, p.d_head);  // [d_head]
    m.k = seeded_normal(p.seed * 3 + 2, p.d_head);
    m.v = seeded_normal(p.seed * 3 + 3, p.d_head);
  }

  Expected<Eigen::RowVectorXd> looked_up = learned_lookup(m.table, p.position);
  if (looked_up.ok()) {
    m.row = looked_up.value();
    m.lookup_error.reset();
  } else {
    m.row.reset();
    m.lookup_error = looked_up.error();
  }

  m.q_rot = apply_rope(m.q, double(p.position), m.inv_freq, p.pairing);
  m.k_rot = apply_rope(m.k, double(p.key_position), m.inv_freq, p.pairing);
  m.score = m.q_rot.dot(m.k_rot);
  m.norm_max_diff = std::max(std::abs(m.q_rot.norm() - m.q.norm()), std::abs(m.k_rot.norm() - m.k.norm()));
  m.computed_from = p;
}

}  // namespace rv
