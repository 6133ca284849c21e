// Causal attention one query row at a time (core/infer/attend.hpp): dot products and the softmax's sum in fixed_sum's
// order, exp core's own, the values added in key order.
#include "core/infer/attend.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/fixed_sum.hpp"
#include "core/base/portable_math.hpp"
#include "core/infer/parallel.hpp"

namespace rv {

RowMatrixXf attend(const RowMatrixXf& q, const RowMatrixXf& k, const RowMatrixXf& v, const AttendOptions& how,
                   AttentionStats& stats) {
  const Eigen::Index T = q.rows(), hd = how.head_dim;
  const int group = how.heads / how.kv_heads;
  const float root = float(std::sqrt(double(hd)));
  RowMatrixXf o = RowMatrixXf::Zero(T, q.cols());
  if (stats.by_distance_on) stats.by_distance.emplace_back(std::size_t(how.heads), std::vector<double>(std::size_t(T)));
  if (stats.sink_on) stats.sink.emplace_back(std::size_t(how.heads), 0.0);
  if (stats.probabilities_on) stats.probabilities.emplace_back(std::size_t(how.heads), RowMatrixXf::Zero(T, T));
  parallel_for(how.heads, how.threads, [&](int h) {  // each head writes its own columns of o and its own statistics
    std::vector<float> p(static_cast<std::size_t>(T));
    const Eigen::Index qc = Eigen::Index(h) * hd, kc = Eigen::Index(h / group) * hd;
    for (Eigen::Index t = 0; t < T; ++t) {
      const Eigen::Index first = how.window > 0 ? std::max<Eigen::Index>(0, t - how.window + 1) : 0;
      const float* qt = q.row(t).data() + qc;
      float mx = -INFINITY;
      for (Eigen::Index s = first; s <= t; ++s) {
        const float dot = fixed_dot(qt, k.row(s).data() + kc, hd);
        float score = how.divide ? dot / root : dot * how.scale;
        if (how.softcap > 0) score = math::tanh(score / how.softcap) * how.softcap;  // Gemma 2's soft cap
        p[std::size_t(s)] = score;
        mx = std::max(mx, score);
      }
      for (Eigen::Index s = first; s <= t; ++s) p[std::size_t(s)] = math::exp(p[std::size_t(s)] - mx);
      const float sum =
          fixed_sum<float>(t + 1 - first, [&p, first](Eigen::Index i) { return p[std::size_t(first + i)]; });
      float* ot = o.row(t).data() + qc;
      for (Eigen::Index s = first; s <= t; ++s) {
        const float ps = p[std::size_t(s)] / sum;
        const float* vs = v.row(s).data() + kc;
        for (Eigen::Index j = 0; j < hd; ++j) ot[j] += ps * vs[j];
        if (stats.by_distance_on) stats.by_distance.back()[std::size_t(h)][std::size_t(t - s)] += ps;
        if (stats.sink_on && s == 0 && t >= 1) stats.sink.back()[std::size_t(h)] += ps;
        if (stats.probabilities_on) stats.probabilities.back()[std::size_t(h)](t, s) = ps;
      }
    }
    if (stats.by_distance_on)
      for (Eigen::Index r = 0; r < T; ++r) stats.by_distance.back()[std::size_t(h)][std::size_t(r)] /= double(T - r);
    if (stats.sink_on && T > 1) stats.sink.back()[std::size_t(h)] /= double(T - 1);
  });
  return o;
}

}  // namespace rv
