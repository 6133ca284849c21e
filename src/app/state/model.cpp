// Model from Params: frequencies, angles, the learned table and its lookup, the seeded Q/K/V, and
// the data each panel plots (score curves, decay bound, heatmap grids, shape trace, checks).
// [SECTION] helpers  [SECTION] per-panel builders  [SECTION] beyond the lesson  [SECTION] update_model (the pieces)
#include "app/state/model.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>

#include "app/state/downsample.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"
#include "core/encodings/biases.hpp"
#include "core/encodings/sinusoidal.hpp"
#include "core/models/presets.hpp"

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

// Scores carry the model's attention factor twice: Hugging Face multiplies cos and sin by it, so RoPE(q) and RoPE(k)
// each grow by it (1 without a model, or for most rope types).
double score_scale(const Model& model) {
  return model.attention_factor_model * model.attention_factor_model;
}

// The true bounds on |score(r)| for this q, k, pairing at every offset the curves have (O(d/2) each,
// the cost of one more curve). They do not depend on the anchor, so moving n leaves them alone; every
// input they read is also a curve input, so a rebuild here always comes with a new curve_version.
void build_decay(const Params& p, Model& model) {
  rope_score_bound_curve(model.score_q, model.score_k, model.inv_freq, p.pairing, -p.offsets, p.offsets, model.bound,
                         model.roformer_bound);
  for (std::vector<double>* bound : {&model.bound, &model.roformer_bound})
    for (double& b : *bound) b *= score_scale(model);
  model.bound_max = model.bound.empty() ? 0.0 : *std::max_element(model.bound.begin(), model.bound.end());
  model.roformer_max =
      model.roformer_bound.empty() ? 0.0 : *std::max_element(model.roformer_bound.begin(), model.roformer_bound.end());
  // Cauchy-Schwarz: a rotation keeps norms, so |<RoPE(q, m), RoPE(k, n)>| <= |q| |k| at every offset.
  model.cauchy_schwarz = model.score_q.norm() * model.score_k.norm() * score_scale(model);
}

// The score curve's q and k (Params::qk) and what they are in words: the seeded random pair, q = k (the seeded q
// twice), all ones, or layer 0's real pair (core's real_qk, laid out over the whole head); random, with the reason
// kept, when layer 0 cannot be read.
void build_score_qk(const Params& p, Model& model) {
  const int d = p.d_head;
  model.qk_error.clear();
  model.qk_reading = false;
  model.qk_drawn = p.qk;
  std::string layer0;
  if (p.qk == ScoreQK::Layer0) {
    const Expected<RealQK> qk = layer0_qk(p);
    if (qk && qk->head_dim != d)
      model.qk_error = "layer 0's heads are " + std::to_string(qk->head_dim) + " wide, the view's d_head is " +
                       std::to_string(d) + " (choose the checkpoint's model)";
    else if (!qk)
      model.qk_reading = qk.error().type == kNeedBytes,
      model.qk_error = model.qk_reading                  ? std::string("reading layer 0's rows for these tokens")
                       : qk.error().type == "BadRequest" ? qk.error().message
                                                         : qk.error().full();  // PyTorch's IndexError, by its name
    if (!model.qk_error.empty()) {
      model.qk_drawn = ScoreQK::Random;
    } else {
      model.score_q = whole_head_layout(qk->q, qk->rotary_dims, qk->pairing);
      model.score_k = whole_head_layout(qk->k, qk->rotary_dims, qk->pairing);
      const LoadedWeights& w = *p.weights;
      const auto named = [&](long long t) {
        std::string out = "token " + std::to_string(t);
        if (const std::string* token = w.tokenizer ? token_string(*w.tokenizer, t) : nullptr)
          out += " ('" + *token + "')";
        return out;
      };
      layer0 = "q and k are layer 0 of " + w.label + " (head " + std::to_string(p.qk_head) + ", key head " +
               std::to_string(qk->kv_head) + "): the query from " + named(p.q_token) + ", the key from " +
               named(p.k_token) +
               ", through the embedding, the input norm and the projections; a trained model's "
               "real q · k against distance, one layer, one head, before any attention softmax";
    }
  }
  switch (model.qk_drawn) {
    case ScoreQK::Random:
      model.score_q = model.q;
      model.score_k = model.k;
      model.qk_words = "q and k are random N(0, 1) vectors of width " + std::to_string(d) + " (seed " +
                       std::to_string(p.seed) +
                       "), not a trained model's: for random vectors the score is noise around 0 "
                       "that does not shrink with distance, so no decay is to be expected";
      if (!model.qk_error.empty())
        model.qk_words = "qk=layer0 is not drawn (" + model.qk_error + "); " + model.qk_words;
      break;
    case ScoreQK::Same:
      model.score_q = model.q;
      model.score_k = model.q;
      model.qk_words = "q = k, one random N(0, 1) vector of width " + std::to_string(d) + " (seed " +
                       std::to_string(p.seed) +
                       "): score(r) = Σᵢ |pairᵢ|² cos(r θᵢ), |q|² at r = 0, the formula's "
                       "decay envelope as |r| grows";
      break;
    case ScoreQK::Ones:
      model.score_q = Eigen::VectorXd::Ones(d);
      model.score_k = model.score_q;
      model.qk_words =
          "q and k are all ones (RoFormer's long-term-decay figure, Su et al. 2021): score(r) = 2 Σᵢ "
          "cos(r θᵢ), d_head = " +
          std::to_string(d) + " at r = 0, the formula's decay envelope as |r| grows";
      break;
    case ScoreQK::Layer0:
      model.qk_words = layer0;
      break;
  }
  model.qk_version = ++model.versions;
}

// score(anchor + r, anchor) at two anchors, and their spread.
void build_curves(const Params& p, Model& model) {
  model.anchor_a = double(p.key_position);
  model.anchor_b = double(p.key_position) + kAnchorShift;
  const long long r = p.offsets;
  model.curve_a.reserve(size_t(2 * r + 1));
  model.curve_b.reserve(size_t(2 * r + 1));
  rope_score_curve(model.score_q, model.score_k, model.inv_freq, p.pairing, model.anchor_a, -r, r, model.curve_a);
  rope_score_curve(model.score_q, model.score_k, model.inv_freq, p.pairing, model.anchor_b, -r, r, model.curve_b);
  model.relative_spread = rope_relative_spread(model.score_q, model.score_k, model.inv_freq, p.pairing,
                                               {model.anchor_a, model.anchor_b}, -r, r);
  for (std::vector<double>* curve : {&model.curve_a, &model.curve_b})
    for (double& v : *curve) v *= score_scale(model);
  model.relative_spread *= score_scale(model);
  double sum_sq = 0.0;
  model.curve_absmax = 0.0;
  for (double v : model.curve_a) {
    model.curve_absmax = std::max(model.curve_absmax, std::abs(v));
    sum_sq += v * v;
  }
  model.curve_rms = model.curve_a.empty() ? 0.0 : std::sqrt(sum_sq / double(model.curve_a.size()));
  model.curve_version = ++model.versions;
}

// P downsampled to at most heatmap_side_max per side by signed block max-abs (a lone outlier stays visible).
// A table too large to build is drawn from heatmap_side_max of its rows, evenly spaced (table_sampled_rows).
void build_table_image(const Params& p, Model& model) {
  const int d = p.d_model();
  if (model.table_built) {
    const auto& P = model.table.P;  // row-major [max_position, d]: no copy
    model.table_img = downsample_signed_maxabs(P.data(), int(P.rows()), d, kHeatmapSideMax, kHeatmapSideMax);
    model.table_absmax = P.size() ? P.cwiseAbs().maxCoeff() : 0.0;
    model.table_sampled_rows = 0;
  } else {  // as many rows as a built table holds entries (at most a texture's height), each reduced as drawn
    const int rows =
        int(std::clamp<long long>(Limits::kTableEntriesMax / d, 1, std::min(p.max_position, kHeatmapSideMax)));
    const BlockSteps steps{1, block_steps(1, d, 1, kHeatmapSideMax).cols};
    Grid& g = model.table_img;
    g = Grid{};
    g.rows = rows;
    g.cols = (d + steps.cols - 1) / steps.cols;
    g.col_step = steps.cols;
    g.values.resize(std::size_t(rows) * g.cols);
    model.table_absmax = 0.0;
    for (int r = 0; r < rows; ++r) {
      const Eigen::RowVectorXd row = learned_row(p.seed, table_sample_row(p.max_position, rows, r), d);  // [d]
      model.table_absmax = std::max(model.table_absmax, row.cwiseAbs().maxCoeff());
      for_each_block_maxabs([&](int, int c) { return row[c]; }, 1, d, steps,
                            [&](int, int c, double v) { g.values[std::size_t(r) * g.cols + c] = float(v); });
    }
    model.table_sampled_rows = rows;
  }
  model.table_img.version = ++model.versions;
}

// P [max_position, d], built whole when it holds at most Limits::table_entries_max entries, and its image.
// Loaded weights' table instead, when it has the frame's shape (install_weights sets it; always, but checked).
void build_table(const Params& p, Model& model) {
  const WeightsTable* loaded = loaded_table(p);
  model.table_built = loaded || (long long)p.max_position * p.d_model() <= Limits::kTableEntriesMax;
  model.table = loaded              ? LearnedTable{loaded->P}
                : model.table_built ? learned_table(p.max_position, p.d_model(), p.seed)
                                    : LearnedTable{};
  build_table_image(p, model);
}

// The seeded head vectors q, k, v  # [d_head]
void build_vectors(const Params& p, Model& model) {
  model.q = seeded_normal(p.seed * 3 + 1, p.d_head);
  model.k = seeded_normal(p.seed * 3 + 2, p.d_head);
  model.v = seeded_normal(p.seed * 3 + 3, p.d_head);
}

// The frame's RoPE frequencies: base^(-2i/d_head), or the chosen model's as core derives them from its config.json
// (rope_scaling at sequence length m + 1), with 0 for the pairs a partial-rotary model leaves alone.
void build_freq(const Params& p, Model& model) {
  model.base_inv_freq = rope_inv_freq(p.d_head, p.base);  // [d_head/2]
  model.inv_freq = model.base_inv_freq;
  model.rotary_pairs = p.d_head / 2;
  model.attention_factor_model = 1.0;
  model.real.reset();
  model.model_error.clear();
  if (!p.model.empty()) {
    const ModelSource source = model_source(p);
    const Expected<HfConfig>& c = source.config;
    const Expected<ModelInfo> info = c ? derive_model(*c, double(p.position) + 1.0) : Expected<ModelInfo>(c.error());
    if (info) {
      model.real = RealModel{source.name, source.source, *c, *info, model_width(*c, *info)};
      if (info->rope && 2 * info->rope->inv_freq.size() <= p.d_head) {
        model.rotary_pairs = int(info->rope->inv_freq.size());
        model.inv_freq.setZero();
        model.inv_freq.head(model.rotary_pairs) = info->rope->inv_freq;
        model.attention_factor_model = info->rope->attention_factor;
      }
    } else {
      model.model_error = info.error().full();
    }
  }
  model.freq_reads_position =
      model.real && model.real->info.rope &&
      (model.real->info.rope->rope_type == "dynamic" || model.real->info.rope->rope_type == "longrope");
  model.freq_version = ++model.versions;
}

// The token at position m and its embedding row E[token] (seeded like P; E is never built whole,
// since V x d can be very large).
void build_token(const Params& p, Model& model) {
  NormalRng pick(p.seed * 1000003ULL + std::uint64_t(p.position));
  model.token = std::min<long long>(p.vocab - 1, (long long)(pick.uniform() * p.vocab));
  NormalRng rng(p.seed * 7919ULL + std::uint64_t(model.token) * 2654435761ULL + 17);
  model.e_row.resize(p.d_model());
  for (int j = 0; j < p.d_model(); ++j) model.e_row[j] = 0.02 * rng.normal();
}

// The angle field's and the sinusoidal heatmap's windows (position_window): derived inputs, so a drag inside a
// window rebuilds nothing. Each reaches its own slowest pair.
double slowest_rotating(const Model& model) {
  return model.inv_freq.head(model.rotary_pairs).minCoeff();
}
PositionWindow field_window(const Params& p, const Model& model) {
  return position_window(p.position, p.max_position, kFieldColumns, slowest_rotating(model));
}
// The sinusoidal heatmap's window reaches its own slowest pair: Vaswani's encoding at width d_model, base 10,000.
PositionWindow sinus_window(const Params& p, const Model&) {
  const int rows = int(std::min<double>(kSinusRowsMax, field_extent(p.position, p.max_position) + 1));
  return position_window(p.position, p.max_position, rows, sinusoidal_theta(p.d_model(), p.d_model() / 2 - 1));
}
// What a window's pieces key on: where it starts and ends and its step.
std::tuple<double, double, double> span(const PositionWindow& w) {
  return {w.x0, w.x_end, w.step};
}

// cos(x * theta_i) for x on the window's field_columns positions, one row per pair; rows of pairs
// the window's step cannot resolve hold 0 and are flagged.
void build_field(const Params& p, Model& model) {
  const PositionWindow w = field_window(p, model);
  const int pairs = int(model.inv_freq.size());
  Eigen::VectorXd xs(w.count);
  for (int c = 0; c < w.count; ++c) xs[c] = w.at(c);
  const Eigen::MatrixXd angles = rope_angle_table(xs, model.inv_freq);  // [columns, pairs]
  model.field_aliased = aliased_pairs(model.inv_freq, w.step);
  Grid& g = model.field;
  g.rows = pairs;
  g.cols = w.count;
  g.values.resize(size_t(pairs) * size_t(w.count));
  for (int i = 0; i < pairs; ++i)
    for (int c = 0; c < w.count; ++c)
      g.values[size_t(i) * w.count + c] = model.field_aliased[size_t(i)] ? 0.0f : float(std::cos(angles(c, i)));
  model.field_x0 = w.x0;
  model.field_x_end = w.x_end;
  model.field_step = w.step;
  const long long aliased = std::count(model.field_aliased.begin(), model.field_aliased.end(), true);
  model.field_words = sampling_words(w.x0, w.x_end, w.step, "column") + "; " +
                      (aliased ? plural(aliased, "pair", "pairs") + " hatched: aliased at this zoom (θᵢ·Δx > π)"
                               : std::string("every pair resolved (θᵢ·Δx ≤ π)"));
  g.version = ++model.versions;
}

Dims dims_of(const Params& p) {
  return {p.batch, p.seq_len, p.heads, p.d_head, p.vocab, p.max_position};  // B, T, h, d_head, V, max_position
}

void build_checks(const Params& p, Model& model) {
  VerifyConfig cfg;
  cfg.dims = dims_of(p);
  cfg.base = p.base;
  cfg.seed = p.seed;
  // lesson_checks rotates a whole [B, T, h, d_head] tensor: keep that bounded.
  model.checks_lesson_dims = (long long)p.batch * p.seq_len * p.heads * p.d_head > (1 << 20);
  if (model.checks_lesson_dims) {
    cfg.dims.B = 2;
    cfg.dims.T = 5;
    cfg.dims.h = 4;
  }
  model.checks = lesson_checks(cfg);
}

// The shape trace, parameter counts and the lesson's checks for B, T, h, d_head, V, max_position.
void build_shapes(const Params& p, Model& model) {
  model.shapes = shape_trace(dims_of(p));
  model.counts = param_counts(dims_of(p));
  build_checks(p, model);
}

void build_probe(const Params& p, Model& model, Probe& probe, long long position) {
  probe.position = position;
  Expected<Eigen::RowVectorXd> r = table_lookup(p, model, position);
  probe.learned_ok = r.ok();
  probe.learned_expected = position >= 0 && position < p.max_position;
  probe.learned = r.ok() ? "P[" + std::to_string(position) + "]: row of width d = " + std::to_string(p.d_model()) +
                               " (" + table_name(p) + " [" + std::to_string(p.max_position) + ", " +
                               std::to_string(p.d_model()) + "])"
                         : r.error().full();
  probe.angle0 = double(position) * model.inv_freq[0];
  probe.angle_last = double(position) * model.inv_freq[model.inv_freq.size() - 1];
}

// [SECTION] beyond the lesson: context extension, precision, sinusoidal

void build_scaling(const Params& p, Model& model) {
  model.scaling = scaling_of(p);
  Expected<ScaledFreq> r = rope_scaled_inv_freq(p.d_head, p.base, model.scaling);
  if (r.ok()) {
    model.scaled_inv_freq = r.value().inv_freq;
    model.attention_factor = r.value().attention_factor;
    model.scaling_error.clear();
  } else {
    model.scaled_inv_freq.resize(0);
    model.attention_factor = 1.0;
    model.scaling_error = r.error().full();
  }
  model.yarn_range = p.scaling == ScalingType::Yarn ? yarn_correction_range(p.d_head, p.base, model.scaling)
                                                    : std::pair<double, double>{0, 0};
  model.scaling_version = ++model.versions;
}

void build_precision(const Params& p, double position, PrecisionReport (&out)[2][3]) {
  for (int r = 0; r < 2; ++r)
    for (int f = 0; f < 3; ++f)
      out[r][f] = rope_precision(p.d_head, p.base, position, kPrecisionFormats[f], kPrecisionRecipes[r]);
}
// The reports at m (with PE(m), for the sinusoidal panel) and at max_position (a model's context length).
void build_precision_at_m(const Params& p, Model& model) {
  build_precision(p, double(p.position), model.precision);
  model.precision_version = ++model.versions;
}
// The first dims of PE[m] at width d_model (the sinusoidal panel's read-out), from core's sinusoidal_columns.
void build_sinus_at_m(const Params& p, Model& model) {
  const int d = p.d_model();
  std::vector<int> dims(std::size_t(std::min(d, kSinusAtMDims)));
  for (std::size_t j = 0; j < dims.size(); ++j) dims[j] = int(j);
  model.sinus_at_m = sinusoidal_columns(d, {double(p.position)}, dims).row(0);  // [min(d, kSinusAtMDims)]
}
void build_precision_context(const Params& p, Model& model) {
  build_precision(p, double(p.max_position), model.precision_context);
}

// Vaswani's PE (width d_model = h x d_head, base 10,000) at the window's positions rounded to integers (every
// position when there are few), from core's sinusoidal_columns: every dim when d_model / 2 <= kSinusPairsMax, else
// kSinusPairsMax pairs evenly spaced from the first to the last, each its sin and cos. Dims of pairs the row spacing
// cannot resolve hold 0 and are flagged.
void build_sinusoidal(const Params& p, Model& model) {
  const PositionWindow w = sinus_window(p, model);
  const int rows = w.count, d = p.d_model(), pairs = d / 2, drawn = std::min(pairs, kSinusPairsMax);
  model.sinus_positions.resize(size_t(rows));
  model.sinus_step = 1.0;
  for (int r = 0; r < rows; ++r) {
    model.sinus_positions[size_t(r)] = std::round(w.at(r));
    if (r > 0)
      model.sinus_step =
          std::max(model.sinus_step, model.sinus_positions[size_t(r)] - model.sinus_positions[size_t(r) - 1]);
  }
  model.sinus_dims.resize(size_t(2 * drawn));
  model.sinus_theta.resize(drawn);
  for (int k = 0; k < drawn; ++k) {
    const int i = drawn == pairs ? k : int(std::llround(double(k) * (pairs - 1) / std::max(1, drawn - 1)));
    model.sinus_dims[size_t(2 * k)] = 2 * i;
    model.sinus_dims[size_t(2 * k + 1)] = 2 * i + 1;
    model.sinus_theta[k] = sinusoidal_theta(d, i);
  }
  model.sinus_aliased = aliased_pairs(model.sinus_theta, model.sinus_step);
  const RowMatrixXd pe = sinusoidal_columns(d, model.sinus_positions, model.sinus_dims);  // [rows, 2 * drawn]
  Grid& g = model.sinus;
  g.rows = rows;
  g.cols = 2 * drawn;
  g.values.resize(size_t(rows) * g.cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < g.cols; ++c)
      g.values[size_t(r) * g.cols + c] = model.sinus_aliased[size_t(c / 2)] ? 0.0f : float(pe(r, c));
  model.sinus_x0 = model.sinus_positions.front();
  model.sinus_x_end = model.sinus_positions.back();
  const long long aliased = 2 * std::count(model.sinus_aliased.begin(), model.sinus_aliased.end(), true);
  model.sinus_words = "rows: " + sampling_words(model.sinus_x0, model.sinus_x_end, w.step, "row") + "; columns: " +
                      (drawn == pairs ? plural(d, "dim", "dims")
                                      : format_count(g.cols) + " of " + format_count(d) + " dims (" +
                                            format_count(drawn) + " pairs evenly spaced, each its sin and cos)");
  if (aliased) model.sinus_words += " (" + std::to_string(aliased) + " hatched: aliased at this zoom, θᵢ·Δpos > π)";
  g.version = ++model.versions;
}

}  // namespace

Expected<Eigen::RowVectorXd> table_lookup(const Params& p, const Model& model, long long position) {
  if (model.table_built) return learned_lookup(model.table, position);
  return learned_lookup_seeded(p.max_position, p.d_model(), p.seed, position);
}

double table_value(const Params& p, const Model& model, int t, int j) {
  return model.table_built ? model.table.P(t, j) : learned_row(p.seed, t, p.d_model())[j];
}

int table_sample_row(int max_position, int rows, int r) {
  return int((long long)r * max_position / rows);
}

void probe_positions(const Params& p, long long (&out)[Model::kProbeCount]) {
  VerifyConfig cfg;
  cfg.dims.max_position = p.max_position;
  const OffsetProbes probe = offset_probes(cfg);
  out[0] = probe.in_range;
  out[1] = probe.edge;
  out[2] = probe.past;
  out[3] = p.position;
}

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

PositionWindow position_window(long long position, int max_position, int count, double theta_slowest) {
  PositionWindow w;
  w.count = std::max(2, count);
  const double extent = field_extent(position, max_position);
  const double step = extent / (w.count - 1);
  if (step <= kOverviewStepMax && theta_slowest * step <= 0.5 * kTwoPi) {
    w.x_end = extent;
    w.step = step;
    return w;
  }
  const double quantum = std::max(1, w.count / 4);
  w.x0 = std::max(0.0, std::floor((double(position) - w.count / 2) / quantum) * quantum);
  w.x_end = w.x0 + (w.count - 1);
  w.step = 1.0;
  return w;
}

std::vector<bool> aliased_pairs(const Eigen::VectorXd& inv_freq, double step) {
  std::vector<bool> aliased(size_t(inv_freq.size()));
  for (int i = 0; i < inv_freq.size(); ++i) aliased[size_t(i)] = inv_freq[i] * step > 0.5 * kTwoPi;
  return aliased;
}

namespace {

// P[m] or the IndexError, as the learned table answers position m.
void build_lookup(const Params& p, Model& model) {
  Expected<Eigen::RowVectorXd> looked_up = table_lookup(p, model, p.position);
  if (looked_up.ok()) {
    model.row = looked_up.value();
    model.lookup_error.reset();
  } else {
    model.row.reset();
    model.lookup_error = looked_up.error();
  }
  model.lookup_message = model.lookup_error ? model.lookup_error->full() : std::string();
  model.elsewhere = model.lookup_error ? framework_lookups(p.position, p.max_position) : std::vector<FrameworkLookup>();
}

// The angles at m, RoPE(q, m), RoPE(k, n), their score and how well the norm is kept.
void build_rotation(const Params& p, Model& model) {
  model.angles = rope_angles(double(p.position), model.inv_freq);  // [d_head/2]
  model.q_rot = apply_rope(model.q, double(p.position), model.inv_freq, p.pairing);
  model.k_rot = apply_rope(model.k, double(p.key_position), model.inv_freq, p.pairing);
  model.score = score_scale(model) * model.q_rot.dot(model.k_rot);
  model.norm_max_diff =
      std::max(std::abs(model.q_rot.norm() - model.q.norm()), std::abs(model.k_rot.norm() - model.k.norm()));
  model.why = add_vs_rotate(model.q, model.k, double(p.position), double(p.key_position), kAnchorShift, model.inv_freq,
                            p.pairing, p.base);
}

// The lesson's exercises, then those of the frequencies RoPE uses here and the table's size.
void build_exercises(const Params& p, Model& model) {
  const std::string freqs = model.real && model.real->info.rope
                                ? model.real->name + "'s frequencies (its rope_scaling applied)"
                                : "d_head = " + std::to_string(p.d_head) + ", base = " + format_number(p.base);
  model.exercises = lesson_exercises();
  for (Exercise& e : settings_exercises(model.inv_freq, p.max_position, freqs)) model.exercises.push_back(std::move(e));
}

// Where the probes look (probe_positions), each probed.
void build_probes(const Params& p, Model& model) {
  long long at[Model::kProbeCount];
  probe_positions(p, at);
  for (int i = 0; i < Model::kProbeCount; ++i) build_probe(p, model, model.probes[i], at[i]);
}

// ALiBi's slope per head, for the biases panel.
void build_alibi(const Params& p, Model& model) {
  model.alibi_slopes = alibi_slopes(p.heads);
}

// The chosen RoPE model's budget as configured (length-dependent scaling at its own context, not at m: the
// first-negative search is too costly to redo at every position of a drag), or the one Params describe (every pair
// rotates, no rope_scaling).
void build_budget(const Params& p, Model& model) {
  model.budget_local.reset();
  if (model.real && model.real->info.rope) {
    const Expected<ModelInfo> configured = derive_model(model.real->config);
    if (configured && configured->rope) {
      model.budget = context_budget(*configured->rope, model.real->hidden);
      if (configured->rope_local) model.budget_local = context_budget(*configured->rope_local, model.real->hidden);
      return;
    }
  }
  RopeModel rope;
  rope.head_dim = rope.rotary_dims = p.d_head;
  rope.base = p.base;
  rope.pairing = p.pairing;
  rope.inv_freq = model.base_inv_freq;
  rope.max_position_embeddings = p.max_position;
  model.budget = context_budget(rope, p.d_model());
}

}  // namespace

// [SECTION] update_model: the pieces

namespace {

std::uint64_t loaded_serial(const Params& p) {
  return p.loaded ? p.loaded->serial : 0;
}

// One cached piece of the Model: its cache, whether its inputs changed (a call of the cache's stale with them, which
// records them) and its builder.
struct Piece {
  const char* name;
  Cached ModelCaches::*cache;
  bool (*stale)(Cached& c, const Params& p, const Model& model);
  void (*build)(const Params& p, Model& model);
};
// RV_PIECE(name, builder, inputs...): the piece ModelCaches::name, rebuilt by builder when its inputs (expressions of
// the Params p and of the Model as built so far) differ from the last build's.
#define RV_PIECE(name, build, ...)                                                                                   \
  Piece {                                                                                                            \
#name, &ModelCaches::name,                                                                                       \
        [](Cached & c, const Params& p, [[maybe_unused]] const Model& model) { return c.stale(__VA_ARGS__); }, build \
  }

// Each piece's inputs, written once, in dependency order: freq, table and vectors first, then what reads them. The
// inputs are raw Params and derived values (the field's window), so two pieces never share a hidden flag.
const Piece kPieces[] = {
    // The frequencies read m only when the model's rope_scaling depends on the length (dynamic, longrope).
    RV_PIECE(freq, build_freq, p.model, loaded_serial(p), p.d_head, p.base,
             model.freq_reads_position ? p.position : -1),
    RV_PIECE(table, build_table, p.max_position, p.d_model(), p.seed, weights_serial(p)),
    RV_PIECE(vectors, build_vectors, p.d_head, p.seed),
    // Layer 0's pair reads the loaded checkpoint only when qk asks for it.
    RV_PIECE(score_qk, build_score_qk, p.qk, p.d_head, p.seed, weights_serial(p),
             loaded_tokenizer(p) ? loaded_tokenizer(p)->serial : 0,
             p.qk == ScoreQK::Layer0 ? std::make_tuple(p.q_token, p.k_token, p.qk_head) : std::make_tuple(0LL, 0LL, 0)),
    RV_PIECE(lookup, build_lookup, p.max_position, p.d_model(), p.seed, weights_serial(p), p.position),
    RV_PIECE(rotate, build_rotation, model.freq_version, p.seed, p.pairing, p.position, p.key_position),
    RV_PIECE(curves, build_curves, model.freq_version, model.qk_version, p.pairing, p.key_position, p.offsets),
    RV_PIECE(decay, build_decay, model.freq_version, model.qk_version, p.pairing, p.offsets),
    RV_PIECE(token, build_token, p.seed, p.position, p.vocab, p.d_model()),
    RV_PIECE(field, build_field, model.freq_version, span(field_window(p, model))),
    RV_PIECE(sinusoidal, build_sinusoidal, p.d_model(), span(sinus_window(p, model))),
    RV_PIECE(sinus_at_m, build_sinus_at_m, p.d_model(), p.position),
    // Only dynamic NTK reads the sequence length (m + 1): other methods do not rebuild as m moves.
    RV_PIECE(scaling, build_scaling, p.d_head, p.base, p.scaling, p.factor, p.original_max, p.low_freq, p.high_freq,
             p.beta_fast, p.beta_slow, p.scaling == ScalingType::Dynamic ? p.position : -1),
    RV_PIECE(precision_context, build_precision_context, p.d_head, p.base, p.max_position),
    RV_PIECE(precision, build_precision_at_m, p.d_head, p.base, p.position),
    RV_PIECE(shapes, build_shapes, p.batch, p.seq_len, p.heads, p.d_head, p.vocab, p.max_position, p.base, p.seed),
    RV_PIECE(probes, build_probes, p.max_position, p.d_model(), p.seed, weights_serial(p), model.freq_version,
             p.position),
    // Not m: a model's budget is as configured.
    RV_PIECE(budget, build_budget, p.model, loaded_serial(p), p.d_head, p.base, p.max_position, p.d_model()),
    RV_PIECE(alibi, build_alibi, p.heads),
    RV_PIECE(exercises, build_exercises, model.freq_version, p.max_position),
};
#undef RV_PIECE
static_assert(sizeof(ModelCaches) == std::size(kPieces) * sizeof(Cached), "every ModelCaches member has a piece");

}  // namespace

void update_model(const Params& p, Model& model) {
  model.updates += 1;
  for (const Piece& piece : kPieces)
    if (piece.stale(model.caches.*piece.cache, p, model)) piece.build(p, model);
}

const std::vector<CatalogRow>& model_catalog(Model& model) {
  if (!model.catalog.empty()) return model.catalog;
  for (const Preset& preset : presets()) {
    CatalogRow row{preset.name, preset.source, std::nullopt, "", {}, "none", 0};
    const Expected<HfConfig> c = preset_config(preset);
    const Expected<ModelInfo> info = c ? derive_model(*c) : Expected<ModelInfo>(c.error());
    if (!info) {
      row.error = info.error().full();
      model.catalog.push_back(std::move(row));
      continue;
    }
    row.info = *info;
    row.hidden = model_width(*c, *info);
    if (const auto& rope = info->rope) {
      row.budget = context_budget(*rope, row.hidden);
      if (rope->rope_type != "default")
        row.scaling = rope->rope_type + (rope->factor != 1.0 ? " ×" + format_number(rope->factor) : std::string());
    }
    model.catalog.push_back(std::move(row));
  }
  return model.catalog;
}

std::vector<std::pair<const char*, int>> cache_builds(const Model& model) {
  std::vector<std::pair<const char*, int>> out;
  for (const Piece& piece : kPieces) out.emplace_back(piece.name, (model.caches.*piece.cache).builds);
  return out;
}

}  // namespace rv
