// Model from Params: frequencies, angles, the learned table and its lookup, the seeded Q/K/V, and
// the data each panel plots (score curves, decay bound, heatmap grids, shape trace, checks).
// [SECTION] helpers  [SECTION] per-panel builders  [SECTION] beyond the lesson  [SECTION] update_model
#include "app/model.hpp"

#include <algorithm>
#include <cmath>

#include "core/sinusoidal.hpp"

namespace rv {
namespace {

// [SECTION] helpers

Eigen::VectorXd seeded_normal(std::uint64_t seed, int n) {
  NormalRng rng(seed);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = rng.normal();
  return v;
}

// [SECTION] per-panel builders

// The true bounds on |score(r)| for this q, k, pairing at every offset the curves have (O(d/2) each,
// the cost of one more curve). Also called by build_curves, so it runs once per new curve.
void build_decay(const Params& p, Model& m) {
  if (m.bound_version == m.curve_version && m.bound.size() == m.curve_a.size()) return;
  rope_score_bound_curve(m.q, m.k, m.inv_freq, p.pairing, -p.offsets, p.offsets, m.bound, m.roformer_bound);
  m.bound_version = m.curve_version;
}

// score(anchor + r, anchor) at two anchors, their bounds, and their spread.
void build_curves(const Params& p, Model& m) {
  m.anchor_a = double(p.key_position);
  m.anchor_b = double(p.key_position) + anchor_shift;
  const long long r = p.offsets;
  m.curve_a.reserve(size_t(2 * r + 1));
  m.curve_b.reserve(size_t(2 * r + 1));
  rope_score_curve(m.q, m.k, m.inv_freq, p.pairing, m.anchor_a, -r, r, m.curve_a);
  rope_score_curve(m.q, m.k, m.inv_freq, p.pairing, m.anchor_b, -r, r, m.curve_b);
  m.relative_spread = rope_relative_spread(m.q, m.k, m.inv_freq, p.pairing, {m.anchor_a, m.anchor_b}, -r, r);
  m.curve_version = ++m.versions;
  build_decay(p, m);
}

// P downsampled to at most heatmap_side_max per side: each texel keeps the block's entry of
// largest magnitude, with its sign, so a single outlier stays visible.
void build_table_image(Model& m) {
  const auto& P = m.table.P;  // row-major [max_position, d]: no copy
  const int rows = int(P.rows()), cols = int(P.cols());
  m.table_row_step = std::max(1, (rows + heatmap_side_max - 1) / heatmap_side_max);
  m.table_col_step = std::max(1, (cols + heatmap_side_max - 1) / heatmap_side_max);
  Grid& g = m.table_img;
  g.rows = (rows + m.table_row_step - 1) / m.table_row_step;
  g.cols = (cols + m.table_col_step - 1) / m.table_col_step;
  g.values.assign(size_t(g.rows) * g.cols, 0.0f);
  double absmax = 0.0;
  for (int r = 0; r < rows; ++r) {
    float* out = &g.values[size_t(r / m.table_row_step) * g.cols];
    for (int c = 0; c < cols; ++c) {
      const double v = P(r, c);
      float& cell = out[c / m.table_col_step];
      if (std::abs(v) > std::abs(double(cell))) cell = float(v);
      absmax = std::max(absmax, std::abs(v));
    }
  }
  m.table_absmax = absmax;
  g.version = ++m.versions;
}

// The token at position m and its embedding row E[token] (seeded like P; E is never built whole,
// since V x d can be very large).
void build_token(const Params& p, Model& m) {
  NormalRng pick(p.seed * 1000003ULL + std::uint64_t(p.position));
  m.token = std::min<long long>(p.vocab - 1, (long long)(pick.uniform() * p.vocab));
  NormalRng rng(p.seed * 7919ULL + std::uint64_t(m.token) * 2654435761ULL + 17);
  m.e_row.resize(p.d_model());
  for (int j = 0; j < p.d_model(); ++j) m.e_row[j] = 0.02 * rng.normal();
}

// cos(x * theta_i) for x on field_columns positions in [0, field_x_end], one row per pair.
void build_field(Model& m, double x_end) {
  const int pairs = int(m.inv_freq.size());
  Eigen::VectorXd xs(field_columns);
  for (int c = 0; c < field_columns; ++c) xs[c] = x_end * c / (field_columns - 1);
  const Eigen::MatrixXd angles = rope_angle_table(xs, m.inv_freq);  // [columns, pairs]
  Grid& g = m.field;
  g.rows = pairs;
  g.cols = field_columns;
  g.values.resize(size_t(pairs) * field_columns);
  for (int i = 0; i < pairs; ++i)
    for (int c = 0; c < field_columns; ++c) g.values[size_t(i) * field_columns + c] = float(std::cos(angles(c, i)));
  m.field_x_end = x_end;
  g.version = ++m.versions;
}

Dims dims_of(const Params& p) {
  Dims d;
  d.B = p.batch;
  d.T = p.seq_len;
  d.h = p.heads;
  d.d_head = p.d_head;
  d.V = p.vocab;
  d.max_position = p.max_position;
  return d;
}

void build_checks(const Params& p, Model& m) {
  VerifyConfig cfg;
  cfg.dims = dims_of(p);
  cfg.base = p.base;
  cfg.seed = p.seed;
  // lesson_checks rotates a whole [B, T, h, d_head] tensor: keep that bounded.
  m.checks_lesson_dims = (long long)p.batch * p.seq_len * p.heads * p.d_head > (1 << 20);
  if (m.checks_lesson_dims) {
    cfg.dims.B = 2;
    cfg.dims.T = 5;
    cfg.dims.h = 4;
  }
  m.checks = lesson_checks(cfg);
}

void build_probe(const Params& p, Model& m, Probe& probe, long long position) {
  probe.position = position;
  Expected<Eigen::RowVectorXd> r = learned_lookup(m.table, position);
  probe.learned_ok = r.ok();
  probe.learned =
      r.ok() ? "P[" + std::to_string(position) + "]: row of width " + std::to_string(p.d_model()) : r.error().full();
  probe.angle0 = double(position) * m.inv_freq[0];
  probe.angle_last = double(position) * m.inv_freq[m.inv_freq.size() - 1];
}

// [SECTION] beyond the lesson: context extension, precision, sinusoidal

void build_scaling(const Params& p, Model& m) {
  m.scaling = scaling_of(p);
  Expected<ScaledFreq> r = rope_scaled_inv_freq(p.d_head, p.base, m.scaling);
  if (r.ok()) {
    m.scaled_inv_freq = r.value().inv_freq;
    m.attention_factor = r.value().attention_factor;
    m.scaling_error.clear();
  } else {
    m.scaled_inv_freq.resize(0);
    m.attention_factor = 1.0;
    m.scaling_error = r.error().full();
  }
  m.yarn_range = p.scaling == ScalingType::Yarn ? yarn_correction_range(p.d_head, p.base, m.scaling)
                                                : std::pair<double, double>{0, 0};
  m.scaling_version = ++m.versions;
}

void build_precision(const Params& p, Model& m) {
  for (int r = 0; r < 2; ++r)
    for (int f = 0; f < 3; ++f)
      m.precision[r][f] =
          rope_precision(p.d_head, p.base, double(p.position), precision_formats[f], precision_recipes[r]);
  m.precision_version = ++m.versions;
}

// PE at integer positions spread over [0, x_end] (every position when there are few), width d_head.
void build_sinusoidal(const Params& p, Model& m, double x_end) {
  const int rows = int(std::min<double>(sinus_rows_max, x_end + 1));
  m.sinus_positions.resize(size_t(rows));
  for (int r = 0; r < rows; ++r) m.sinus_positions[size_t(r)] = std::round(x_end * r / std::max(1, rows - 1));
  const RowMatrixXd pe = sinusoidal(p.d_head, m.sinus_positions, p.base);  // [rows, d_head]
  Grid& g = m.sinus;
  g.rows = rows;
  g.cols = p.d_head;
  g.values.resize(size_t(rows) * p.d_head);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < p.d_head; ++c) g.values[size_t(r) * p.d_head + c] = float(pe(r, c));
  m.sinus_x_end = x_end;
  g.version = ++m.versions;
}

}  // namespace

RopeScaling scaling_of(const Params& p) {
  RopeScaling s;
  s.type = p.scaling;
  s.factor = p.factor;
  s.original_max_position_embeddings = p.original_max;
  s.max_position_embeddings = p.original_max;
  s.low_freq_factor = p.low_freq;
  s.high_freq_factor = p.high_freq;
  s.beta_fast = p.beta_fast;
  s.beta_slow = p.beta_slow;
  s.seq_len = double(p.position) + 1.0;
  return s;
}

double field_extent(long long position, int max_position) {
  const double need = std::max({64.0, 1.25 * double(max_position), 1.1 * double(position)});
  double step = std::pow(10.0, std::floor(std::log10(need)));
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * step >= need) return f * step;
  return 10.0 * step;
}

// [SECTION] update_model

void update_model(const Params& p, Model& m) {
  const std::optional<Params> old = m.computed_from;
  if (old && *old == p) return;
  const bool freq_changed = !old || old->d_head != p.d_head || old->base != p.base;
  const bool table_changed =
      !old || old->max_position != p.max_position || old->d_model() != p.d_model() || old->seed != p.seed;
  const bool vectors_changed = !old || old->d_head != p.d_head || old->seed != p.seed;
  const bool curves_changed = freq_changed || vectors_changed || old->pairing != p.pairing ||
                              old->key_position != p.key_position || old->offsets != p.offsets;
  const bool decay_changed = freq_changed || old->offsets != p.offsets;
  const bool dims_changed = table_changed || freq_changed || old->batch != p.batch || old->seq_len != p.seq_len ||
                            old->heads != p.heads || old->vocab != p.vocab;
  const bool token_changed = table_changed || old->position != p.position || old->vocab != p.vocab;
  const bool scaling_changed =
      freq_changed || old->scaling != p.scaling || old->factor != p.factor || old->original_max != p.original_max ||
      old->low_freq != p.low_freq || old->high_freq != p.high_freq || old->beta_fast != p.beta_fast ||
      old->beta_slow != p.beta_slow || (p.scaling == ScalingType::Dynamic && old->position != p.position);
  const bool precision_changed = freq_changed || old->position != p.position;

  if (freq_changed) m.inv_freq = rope_inv_freq(p.d_head, p.base);  // [d_head/2]
  m.angles = rope_angles(double(p.position), m.inv_freq);          // [d_head/2]
  if (table_changed) {
    m.table = learned_table(p.max_position, p.d_model(), p.seed);  // [max_position, d]
    build_table_image(m);
  }
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
  m.lookup_message = m.lookup_error ? m.lookup_error->full() : std::string();

  m.q_rot = apply_rope(m.q, double(p.position), m.inv_freq, p.pairing);
  m.k_rot = apply_rope(m.k, double(p.key_position), m.inv_freq, p.pairing);
  m.score = m.q_rot.dot(m.k_rot);
  m.norm_max_diff = std::max(std::abs(m.q_rot.norm() - m.q.norm()), std::abs(m.k_rot.norm() - m.k.norm()));

  if (curves_changed) build_curves(p, m);
  if (decay_changed) build_decay(p, m);
  if (token_changed) build_token(p, m);
  const double x_end = field_extent(p.position, p.max_position);
  if (freq_changed || x_end != m.field_x_end) build_field(m, x_end);
  if (freq_changed || x_end != m.sinus_x_end) build_sinusoidal(p, m, x_end);
  if (scaling_changed) build_scaling(p, m);
  if (precision_changed) {
    build_precision(p, m);
    m.sinus_at_m = sinusoidal(p.d_head, {double(p.position)}, p.base).row(0);  // [d_head]
  }
  if (dims_changed) {
    m.shapes = shape_trace(dims_of(p));
    m.counts = param_counts(dims_of(p));
    build_checks(p, m);
  }
  if (table_changed || freq_changed || !old || old->position != p.position) {
    build_probe(p, m, m.probes[0], 5);
    build_probe(p, m, m.probes[1], 100);
    build_probe(p, m, m.probes[2], p.position);
  }
  m.computed_from = p;
}

}  // namespace rv
