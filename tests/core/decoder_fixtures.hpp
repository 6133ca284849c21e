// The tiny decoder's test fixtures: a small config, random weights around the init, a batch, and the finite-difference
// gradient check (tests/core/test_decoder*.cpp).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/random.hpp"
#include "core/encodings/learned.hpp"
#include "core/decoder/decoder.hpp"

namespace rv::test {

// Every position method, rope in both pairings.
struct MethodCase {
  PositionMethod m;
  Pairing p;
};
inline const MethodCase kMethodCases[] = {
    {PositionMethod::Learned, Pairing::Interleaved}, {PositionMethod::Sinusoidal, Pairing::Interleaved},
    {PositionMethod::Rope, Pairing::Interleaved},    {PositionMethod::Rope, Pairing::HalfSplit},
    {PositionMethod::Alibi, Pairing::Interleaved},   {PositionMethod::T5, Pairing::Interleaved},
    {PositionMethod::None, Pairing::Interleaved}};

inline std::string case_name(const MethodCase& k) {
  return std::string(position_method_name(k.m)) +
         (k.m == PositionMethod::Rope ? std::string(" ") + pairing_name(k.p) : "");
}

// vocab 7, d_model 8, heads 2, layers 2, d_ff 12; learned table of 8 rows.
inline DecoderConfig tiny(PositionMethod m, Pairing p = Pairing::Interleaved) {
  DecoderConfig c;
  c.vocab = 7;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.d_ff = 12;
  c.position = m;
  c.max_position = 8;
  c.pairing = p;
  return c;
}

// Every weight (norms and rel_bias too) N(0, stddev^2) around its init, so every gradient entry is exercised.
inline DecoderWeights random_weights(const DecoderConfig& c, std::uint64_t seed, double stddev = 0.5) {
  DecoderWeights w = init_decoder_weights<double>(c, seed);
  NormalRng rng(seed + 1);
  for (WeightRef<double>& r : weight_refs(c, w))
    for (long long i = 0; i < r.size; ++i) r.data[i] += stddev * rng.normal();
  return w;
}

inline const TokenRows kTokens = {{1, 4, 6, 0, 3}, {2, 2, 5, 1, 6}};      // B 2, T 5
inline const TokenRows kTargets = {{4, -1, 0, 3, 5}, {2, 5, -1, 6, -1}};  // -1 = ignored
// Answers only from position 2 (row 0) and 1 (row 1) on: the training path computes the last layer from there on.
inline const TokenRows kLateTargets = {{-1, -1, 0, 3, 5}, {-1, 5, -1, 6, -1}};

inline double loss_of(const DecoderConfig& c, const DecoderWeights& w, const TokenRows& x = kTokens,
                      const TokenRows& y = kTargets, const TokenRows* positions = nullptr) {
  auto out = decoder_forward(c, w, x, y, positions);
  REQUIRE(out.ok());
  return out->loss;
}

// Worst |analytic - finite difference| / max(|analytic|, |numeric|, floor) over every weight entry, kTokens at
// `positions` (nullptr: 0..T-1); the losses come from decoder_forward, which computes every row.
inline double worst_fd_error(const DecoderConfig& c, std::uint64_t seed, const TokenRows& targets = kTargets,
                             const TokenRows* positions = nullptr) {
  const double step = 3e-4, floor = 1e-4;
  DecoderWeights w = random_weights(c, seed);
  auto g = decoder_loss_and_grad(c, w, kTokens, targets, positions);
  REQUIRE(g.ok());
  CHECK(std::abs(g->loss - loss_of(c, w, kTokens, targets, positions)) < 1e-14);
  std::vector<WeightRef<double>> ws = weight_refs(c, w), gs = weight_refs(c, g.value().grads);
  double worst = 0;
  long long entries = 0;
  for (std::size_t k = 0; k < ws.size(); ++k)
    for (long long i = 0; i < ws[k].size; ++i, ++entries) {
      const double keep = ws[k].data[i];
      const auto at = [&](double dx) {
        ws[k].data[i] = keep + dx;
        const double l = loss_of(c, w, kTokens, targets, positions);
        ws[k].data[i] = keep;
        return l;
      };
      // fourth-order central difference: (8 (L(+h) - L(-h)) - (L(+2h) - L(-2h))) / 12h, error O(h^4) + O(eps/h)
      const double numeric = (8 * (at(step) - at(-step)) - (at(2 * step) - at(-2 * step))) / (12 * step);
      const double analytic = gs[k].data[i];
      const double err = std::abs(analytic - numeric) / std::max({std::abs(analytic), std::abs(numeric), floor});
      if (err > worst) worst = err;
    }
  CHECK(entries == decoder_param_count(c));
  return worst;
}

// T positions from [0, R), seeded; sorted unless asked otherwise.
inline std::vector<long long> random_positions(std::size_t T, long long R, std::uint64_t seed, bool sorted = true) {
  NormalRng rng(seed);
  std::vector<long long> p(T);
  for (long long& v : p) v = static_cast<long long>(rng.uniform() * static_cast<double>(R));
  if (sorted) std::sort(p.begin(), p.end());
  return p;
}

}  // namespace rv::test
