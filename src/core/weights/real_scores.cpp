// real_scores: layer 0's q and k of two real tokens and their RoPE score by distance (core/weights/real_scores.hpp).
#include "core/weights/real_scores.hpp"

#include <cmath>

#include "core/rope/rope.hpp"
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

// x through the layer's input norm: RMSNorm x / sqrt(mean(x^2) + eps) * gamma, or LayerNorm with its bias.
Eigen::VectorXd normed(const Eigen::VectorXd& x, const Eigen::VectorXd& gamma, const Eigen::VectorXd* beta,
                       bool layer_norm, double eps) {
  if (!layer_norm) return (x / std::sqrt(x.squaredNorm() / double(x.size()) + eps)).cwiseProduct(gamma);
  const double mean = x.mean();
  const Eigen::VectorXd centred = x.array() - mean;
  Eigen::VectorXd y = (centred / std::sqrt(centred.squaredNorm() / double(x.size()) + eps)).cwiseProduct(gamma);
  if (beta) y += *beta;
  return y;
}

}  // namespace

Expected<RealQK> real_qk(Checkpoint& c, const HfConfig& config, int head, long long token, long long key_token) {
  Expected<AttentionModel> model = attention_model(config, "real_scores");
  if (!model) return model.error();
  const AttentionLayout& layout = model->layout;
  const RopeModel& rope = model->rope_at(0);  // layer 0's (Gemma 3: a sliding layer, its local base)
  const int H = model->heads, hd = rope.head_dim;
  if (head < 0 || head >= H)
    return bad_request("\"head\" must be in [0, " + std::to_string(H) + "), got " + std::to_string(head));
  const TensorInfo* embed = c.find(layout.embed);
  if (!embed) return bad_request("the checkpoint holds no tensor \"" + layout.embed + "\"");
  if (embed->shape.size() != 2) return bad_request("tensor \"" + embed->name + "\" is not a matrix");
  const long long vocab = embed->shape[0];
  for (long long t : {token, key_token})
    if (t < 0 || t >= vocab)
      return Error{"IndexError", "index " + std::to_string(t) + " is out of bounds for dimension 0 with size " +
                                     std::to_string(vocab)};
  const Eigen::Index width = Eigen::Index(embed->shape[1]);
  const double eps = config.rms_norm_eps.value_or(config.layer_norm_eps.value_or(layout.eps));
  if (!std::isfinite(eps) || eps < 0) return bad_request("config: the norm's eps must be a finite number >= 0");
  Expected<Eigen::VectorXd> gamma = read_vector(c, at_layer(layout.norm, 0), width, layout.gemma);
  if (!gamma) return gamma.error();
  std::optional<Eigen::VectorXd> beta;
  if (layout.layer_norm) {
    Expected<Eigen::VectorXd> b = read_vector(c, bias_of(at_layer(layout.norm, 0)), width, false);
    if (!b) return b.error();
    beta = *b;
  }
  const double scale = layout.gemma ? std::sqrt(double(config.hidden_size.value_or(width))) : 1.0;
  const auto input = [&](long long t) -> Expected<Eigen::VectorXd> {
    Expected<RowMatrixXd> row = c.read_rows(*embed, t, 1);
    if (!row) return row.error();
    return normed(row->row(0).transpose() * scale, *gamma, beta ? &*beta : nullptr, layout.layer_norm, eps);
  };
  // The projection rows of a head: [first, first + hd) of W, plus the bias where the checkpoint has one.
  const auto project = [&](const TensorInfo& w, long long first, const Expected<Eigen::VectorXd>& a)
      -> Expected<Eigen::VectorXd> {
    if (!a) return a.error();
    const long long rows = w.shape.empty() ? 0 : w.shape[0], cols = w.shape.size() == 2 ? w.shape[1] : 0;
    if (cols != a->size() || first + hd > rows)
      return bad_request("tensor \"" + w.name + "\" is [" + std::to_string(rows) + ", " + std::to_string(cols) +
                         "]: no rows " + std::to_string(first) + ".." + std::to_string(first + hd - 1) + " of width " +
                         std::to_string(a->size()));
    Expected<RowMatrixXd> part = c.read_rows(w, first, hd);
    if (!part) return part.error();
    Eigen::VectorXd out(hd);  // row by row: the page's build has dot products already, not a matrix-vector kernel
    for (int i = 0; i < hd; ++i) out[i] = part->row(i).dot(a->transpose());
    if (const TensorInfo* b = c.find(bias_of(w.name))) {
      Expected<RowMatrixXd> bias = c.read(*b);
      if (!bias) return bias.error();
      if (bias->size() != rows) return bad_request("tensor \"" + b->name + "\" does not match its weight's rows");
      out += Eigen::Map<const Eigen::VectorXd>(bias->data() + first, hd);
    }
    return out;
  };
  const std::string q_name = at_layer(layout.q, 0);
  int Hk = H;
  long long q_first = (long long)head * hd, k_first = 0;
  std::string k_name = !layout.k.empty() ? at_layer(layout.k, 0) : q_name;
  const TensorInfo* qt = c.find(q_name);
  const TensorInfo* kt = c.find(k_name);
  if (!qt || !kt) return bad_request("the checkpoint holds no tensor \"" + (qt ? k_name : q_name) + "\"");
  const long long k_rows = kt->shape.empty() ? 0 : kt->shape[0];
  if (layout.fused == QkvLayout::Separate) {
    Hk = int(k_rows / hd);
  } else if (layout.fused == QkvLayout::Phi3) {
    Hk = int((k_rows / hd - H) / 2);
  } else {
    q_first = (long long)head * 3 * hd;
  }
  if (Hk < 1 || H % Hk)
    return bad_request("\"" + k_name + "\" has " + std::to_string(k_rows) + " rows: no key heads of " +
                       std::to_string(hd) + " that divide " + std::to_string(H));
  // A config that describes another model (a preset of another size) would read the wrong rows: refuse it by name.
  const long long q_rows = layout.fused == QkvLayout::Separate   ? (long long)H * hd
                           : layout.fused == QkvLayout::Phi3 ? (long long)(H + 2 * Hk) * hd
                                                             : 3LL * H * hd;
  const long long q_have = qt->shape.empty() ? 0 : qt->shape[0];
  if (q_have != q_rows || (config.hidden_size && *config.hidden_size != width))
    return bad_request("config: hidden_size " + std::to_string(config.hidden_size.value_or(width)) + ", " +
                       std::to_string(H) + " heads of " + std::to_string(hd) + ", but the checkpoint's \"" +
                       embed->name + "\" is " + std::to_string(width) + " wide and \"" + q_name + "\" has " +
                       std::to_string(q_have) + " rows: the config does not describe this checkpoint");
  const int kv_head = head / (H / Hk);
  k_first = layout.fused == QkvLayout::Separate   ? (long long)kv_head * hd
            : layout.fused == QkvLayout::Phi3 ? (long long)H * hd + (long long)kv_head * hd
                                              : (long long)kv_head * 3 * hd + hd;
  Expected<Eigen::VectorXd> q = project(*qt, q_first, input(token));
  if (!q) return q.error();
  Expected<Eigen::VectorXd> k = project(*kt, k_first, input(key_token));
  if (!k) return k.error();
  RealQK out;
  out.q = *q;
  out.k = *k;
  if (layout.q_norm[0]) {
    Expected<Eigen::VectorXd> nq = read_vector(c, at_layer(layout.q_norm, 0), hd, layout.gemma);
    Expected<Eigen::VectorXd> nk = read_vector(c, at_layer(layout.k_norm, 0), hd, layout.gemma);
    if (!nq) return nq.error();
    if (!nk) return nk.error();
    out.q = normed(out.q, *nq, nullptr, false, eps);
    out.k = normed(out.k, *nk, nullptr, false, eps);
  }
  out.heads = H;
  out.kv_head = kv_head;
  out.head_dim = hd;
  out.rotary_dims = rope.rotary_dims;
  out.vocab = vocab;
  out.pairing = rope.pairing;
  return out;
}

Expected<RealScores> real_scores(Checkpoint& c, const HfConfig& config, int head, long long token,
                                 long long key_token, int offsets) {
  Expected<RealQK> qk = real_qk(c, config, head, token, key_token);
  if (!qk) return qk.error();
  Expected<AttentionModel> model = attention_model(config, "real_scores");
  if (!model) return model.error();
  const RopeModel& rope = model->rope_at(0);
  RealScores out;
  out.q = qk->q;
  out.k = qk->k;
  const int r = rope.rotary_dims, hd = rope.head_dim;
  const double unrotated = out.q.tail(hd - r).dot(out.k.tail(hd - r));
  const Eigen::VectorXd qr = out.q.head(r), kr = out.k.head(r);
  for (int d = 0; d <= offsets; ++d)
    out.score.push_back(rope_score(qr, kr, double(d), 0.0, rope.inv_freq, rope.pairing) + unrotated);
  return out;
}

Eigen::VectorXd whole_head_layout(const Eigen::VectorXd& x, int rotary_dims, Pairing pairing) {
  const int d = int(x.size());
  if (pairing == Pairing::Interleaved || rotary_dims >= d) return x;
  const int half = d / 2, rhalf = rotary_dims / 2;
  Eigen::VectorXd out(d);
  for (int i = 0; i < rhalf; ++i) {
    out[i] = x[i];
    out[i + half] = x[i + rhalf];
  }
  // The pass-through dims x[rotary_dims..d) fill pairs rhalf..half-1, whose frequency is 0.
  for (int j = 0; j < d - rotary_dims; ++j) {
    const int pair = rhalf + j / 2;
    out[j % 2 == 0 ? pair : pair + half] = x[rotary_dims + j];
  }
  return out;
}

}  // namespace rv
