// The KV-cache claim measured: cached greedy decoding against a full recompute per step, and each cached rope key
// against the rotation of its unrotated key at its own position.
#include <algorithm>
#include <cmath>

#include "core/decoder/decoder_cache.hpp"
#include "core/rope/rope.hpp"

namespace rv {
namespace {

// max |a - b| / max |b| (0 when b is all zeros and a equals it).
template <class S>
double relative_diff(const RowVec<S>& a, const RowVec<S>& b) {
  const double scale = static_cast<double>(b.cwiseAbs().maxCoeff());
  const double diff = static_cast<double>((a - b).cwiseAbs().maxCoeff());
  return scale > 0 ? diff / scale : diff;
}

// The full recompute's logits at the last position of tokens[0..=p].
template <class S>
Expected<RowVec<S>> full_logits(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                const std::vector<long long>& tokens, long long p) {
  const std::vector<long long> prefix(tokens.begin(), tokens.begin() + p + 1);
  std::vector<long long> targets(prefix.size(), -1);
  targets.back() = 0;  // decoder_forward wants one target; only the logits are read
  const auto out = decoder_forward(c, w, TokenRows{prefix}, TokenRows{targets});
  if (!out) return out.error();
  return RowVec<S>(out->logits[0].row(p));
}

// Per head of layer j at position p: |cached - RoPE(raw, p)| / |raw| and |RoPE(cached, p) - cached| / |raw|.
template <class S>
std::pair<double, double> key_diffs(const DecoderConfig& c, const RowVec<S>& raw, const RowVec<S>& cached,
                                    long long p) {
  const Eigen::VectorXd theta = decoder_inv_freq(c);  // the config's frequencies (an override, if any)
  const double af = c.attention_factor;               // the cached key is af * RoPE(raw, p)
  double exact = 0, twice = 0;
  for (int n = 0; n < c.heads; ++n) {
    const Eigen::VectorXd k = raw.segment(n * c.d_head(), c.d_head()).transpose().template cast<double>();
    const Eigen::VectorXd got = cached.segment(n * c.d_head(), c.d_head()).transpose().template cast<double>();
    const double norm = std::max(k.norm(), 1e-300);
    exact = std::max(exact, (got - af * apply_rope(k, double(p), theta, c.pairing)).norm() / norm);
    twice = std::max(twice, (af * apply_rope(got, double(p), theta, c.pairing) - got).norm() / norm);
  }
  return {exact, twice};
}

}  // namespace

template <class S>
Expected<KvCheck> kv_cache_check(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                 const std::vector<long long>& prompt, int new_tokens) {
  const auto gen = decoder_generate(c, w, prompt, new_tokens);
  if (!gen) return gen.error();
  KvCheck out;
  out.tokens = gen->tokens;
  out.prompt_length = gen->prompt_length;
  out.error = gen->error;
  for (const DecodeStep<S>& step : gen->steps) {
    KvCheckStep s;
    s.position = step.position;
    s.token = step.token;
    s.generated = step.position >= gen->prompt_length;
    const auto full = full_logits(c, w, gen->tokens, step.position);
    if (!full) return full.error();
    s.logit_diff = relative_diff(step.logits, *full);
    if (c.position == PositionMethod::Rope)
      for (std::size_t j = 0; j < gen->cache.layer.size(); ++j) {
        const RowVec<S> cached = gen->cache.layer[j].k.row(step.position);
        const auto [exact, twice] = key_diffs(c, step.key_before_rope[j], cached, step.position);
        s.key_diff = std::max(s.key_diff, exact);
        s.rotated_twice = std::max(s.rotated_twice, twice);
      }
    out.worst_logit_diff = std::max(out.worst_logit_diff, s.logit_diff);
    out.worst_key_diff = std::max(out.worst_key_diff, s.key_diff);
    out.steps.push_back(s);
  }
  return out;
}

template Expected<KvCheck> kv_cache_check(const DecoderConfig&, const DecoderWeightsT<double>&,
                                          const std::vector<long long>&, int);
template Expected<KvCheck> kv_cache_check(const DecoderConfig&, const DecoderWeightsT<float>&,
                                          const std::vector<long long>&, int);

}  // namespace rv
