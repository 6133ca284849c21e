// The tiny decoder's position methods: their tables, input vectors, q/k rotation and score biases, and gradients.
#include "core/decoder/decoder_positions.hpp"

#include <algorithm>

#include "core/encodings/biases.hpp"
#include "core/encodings/sinusoidal.hpp"
#include "core/rope/rotate_pair.hpp"

namespace rv::detail {
namespace {

// Every head of `cols` values at x, pair i rotated with cos[i] and sign * sin[i].
template <class S>
void rotate_heads(S* x, Eigen::Index cols, const S* cos, const S* sin, int d_head, Pairing p, int sign) {
  for (Eigen::Index h0 = 0; h0 < cols; h0 += d_head)
    for (int i = 0; i < d_head / 2; ++i) {
      const auto [ia, ib] = pair_indices(i, d_head, p);
      const RotatedPair<S> r = rotate_pair(x[h0 + ia], x[h0 + ib], cos[i], S(sign) * sin[i]);
      x[h0 + ia] = r.a;
      x[h0 + ib] = r.b;
    }
}

}  // namespace

template <class S>
PositionTables<S> position_tables(const DecoderConfig& c, long long first, long long rows) {
  PositionTables<S> pos;
  pos.first = first;
  std::vector<double> t;  // first .. first + rows - 1, for the methods with a table by position  # [rows]
  if (c.position == PositionMethod::Sinusoidal || c.position == PositionMethod::Rope)
    for (long long r = 0; r < rows; ++r) t.push_back(static_cast<double>(first + r));
  switch (c.position) {
    case PositionMethod::Sinusoidal:  // PE(t, 2i) = sin(t / 10000^(2i/d_model)), PE(t, 2i+1) = cos(...)
      pos.added = sinusoidal(c.d_model, t).cast<S>();
      break;
    case PositionMethod::Rope: {
      const Eigen::MatrixXd angle =  // t * theta_i  # [rows, d_head/2]
          rope_angle_table(Eigen::Map<const Eigen::VectorXd>(t.data(), rows), decoder_inv_freq(c));
      const double af = c.attention_factor;  // 1, or YaRN's: multiplies cos and sin as transformers does
      pos.cos = (angle.array().cos() * af).matrix().cast<S>();
      pos.sin = (angle.array().sin() * af).matrix().cast<S>();
      break;
    }
    case PositionMethod::Alibi:
      pos.slopes = alibi_slopes(c.heads);
      break;
    case PositionMethod::T5:
      for (long long r = 0; r < first + rows; ++r) pos.bucket.push_back(t5_bucket(r));
      break;
    case PositionMethod::Learned:  // pos_emb, read where it is
    case PositionMethod::None:
      break;
  }
  return pos;
}

// [SECTION] Added to the input

template <class S>
void add_input_position(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, long long t,
                        S* h) {
  Eigen::Map<RowVec<S>> row(h, c.d_model);
  switch (c.position) {
    case PositionMethod::Learned:
      row += w.pos_emb.row(t);
      break;
    case PositionMethod::Sinusoidal:
      row += pos.added.row(t - pos.first);
      break;
    case PositionMethod::Rope:
    case PositionMethod::Alibi:
    case PositionMethod::T5:
    case PositionMethod::None:
      break;
  }
}

template <class S>
void add_input_position_grad(const DecoderConfig& c, long long t, const S* dh, DecoderWeightsT<S>& grad) {
  if (c.position == PositionMethod::Learned) grad.pos_emb.row(t) += Eigen::Map<const RowVec<S>>(dh, c.d_model);
}

// [SECTION] Rotating q and k

template <class S>
void rotate_qk(const DecoderConfig& c, const PositionTables<S>& pos, long long t, S* x, Eigen::Index cols, int sign) {
  if (c.position != PositionMethod::Rope) return;
  const Eigen::Index r = t - pos.first;
  rotate_heads(x, cols, pos.cos.row(r).data(), pos.sin.row(r).data(), c.d_head(), c.pairing, sign);
}

template <class S>
void rotate_qk(const DecoderConfig& c, const PositionTables<S>& pos, const long long* position, RowMat<S>& x,
               Eigen::Index rows, Eigen::Index cols, int sign) {
  if (c.position != PositionMethod::Rope) return;
  for (Eigen::Index r = 0; r < rows; ++r) rotate_qk(c, pos, position[r], x.row(r).data(), cols, sign);
}

// [SECTION] A bias on the scores

template <class S>
S score_bias(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, int n, long long p_i,
             long long p_j) {
  switch (c.position) {
    case PositionMethod::Alibi:
      return static_cast<S>(-pos.slopes[static_cast<std::size_t>(n)] * (p_i - p_j));
    case PositionMethod::T5:
      return w.rel_bias(pos.bucket[static_cast<std::size_t>(std::max(p_i - p_j, 0LL))], n);
    case PositionMethod::Learned:
    case PositionMethod::Sinusoidal:
    case PositionMethod::Rope:
    case PositionMethod::None:
      break;
  }
  return S(0);
}

template <class S>
void score_bias_by_distance(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos,
                            Eigen::Index before, Eigen::Index rows, RowMat<S>& bias) {
  if (c.position != PositionMethod::Alibi && c.position != PositionMethod::T5) {
    bias.resize(0, 0);
    return;
  }
  if (bias.rows() != c.heads || bias.cols() != before + rows) bias.resize(c.heads, before + rows);
  for (int n = 0; n < c.heads; ++n)
    for (Eigen::Index r = -before; r < rows; ++r) bias(n, before + r) = score_bias(c, w, pos, n, r, 0);
}

bool score_bias_trains(const DecoderConfig& c) {
  return c.position == PositionMethod::T5;
}

template <class S>
void score_bias_grad(const DecoderConfig& c, const PositionTables<S>& pos, const RowMat<S>& d_bias, Eigen::Index before,
                     DecoderWeightsT<S>& grad) {
  if (!score_bias_trains(c)) return;
  for (int n = 0; n < c.heads; ++n)
    for (Eigen::Index r = -before; r < d_bias.cols() - before; ++r)
      grad.rel_bias(pos.bucket[static_cast<std::size_t>(std::max(r, Eigen::Index(0)))], n) += d_bias(n, before + r);
}

#define RV_DECODER_POSITIONS(S)                                                                                       \
  template PositionTables<S> position_tables(const DecoderConfig&, long long, long long);                             \
  template void add_input_position(const DecoderConfig&, const DecoderWeightsT<S>&, const PositionTables<S>&,         \
                                   long long, S*);                                                                    \
  template void add_input_position_grad(const DecoderConfig&, long long, const S*, DecoderWeightsT<S>&);              \
  template void rotate_qk(const DecoderConfig&, const PositionTables<S>&, long long, S*, Eigen::Index, int);          \
  template void rotate_qk(const DecoderConfig&, const PositionTables<S>&, const long long*, RowMat<S>&, Eigen::Index, \
                          Eigen::Index, int);                                                                         \
  template S score_bias(const DecoderConfig&, const DecoderWeightsT<S>&, const PositionTables<S>&, int, long long,    \
                        long long);                                                                                   \
  template void score_bias_by_distance(const DecoderConfig&, const DecoderWeightsT<S>&, const PositionTables<S>&,     \
                                       Eigen::Index, Eigen::Index, RowMat<S>&);                                       \
  template void score_bias_grad(const DecoderConfig&, const PositionTables<S>&, const RowMat<S>&, Eigen::Index,       \
                                DecoderWeightsT<S>&);
RV_DECODER_POSITIONS(double)
RV_DECODER_POSITIONS(float)
#undef RV_DECODER_POSITIONS

}  // namespace rv::detail
