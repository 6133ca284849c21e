// KV-cache decode: cached logits equal a full recompute at every step, rope keys are rotated once, attention maps.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/encodings/learned.hpp"
#include "core/decoder/decoder_cache.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "decoder_fixtures.hpp"

using namespace rv;
using test::case_name;
using test::kMethodCases;
using test::MethodCase;

namespace {

// vocab 11 (the lab's), d_model 16, heads 4 (d_head 4), d_ff 24; a learned table of 12 rows.
DecoderConfig small_decoder(const MethodCase& k, int layers = 2) {
  DecoderConfig c;
  c.vocab = 11;
  c.d_model = 16;
  c.heads = 4;
  c.layers = layers;
  c.d_ff = 24;
  c.position = k.m;
  c.max_position = 12;
  c.pairing = k.p;
  return c;
}

// init_decoder_weights with matrices N(0, 0.5^2) so that q.k / sqrt(d_head) is O(1..10) and attention is far from
// uniform; tok_emb and pos_emb N(0, 1) (the lab's nn.Embedding scale); t5's rel_bias N(0, 1) (init leaves it zero).
DecoderWeights model(const DecoderConfig& c, std::uint64_t seed) {
  DecoderWeights w = init_decoder_weights<double>(c, seed, 0.5);
  w.tok_emb *= 2.0;
  w.pos_emb *= 2.0;
  NormalRng rng(seed + 100);
  for (Eigen::Index i = 0; i < w.rel_bias.size(); ++i) w.rel_bias.data()[i] = rng.normal();
  return w;
}

const std::vector<long long> kCacheTokens = {3, 10, 7, 0, 3, 5, 9, 1, 4, 10, 2, 6};  // T 12 = the learned table

// decoder_forward's logits of one row of tokens, at `at` (default 0..T-1)  # [T, vocab]
template <class S>
RowMat<S> forward_logits(const DecoderConfig& c, const DecoderWeightsT<S>& w, const std::vector<long long>& x,
                         const std::vector<long long>* at = nullptr) {
  const TokenRows positions = {at ? *at : std::vector<long long>()};
  auto out = decoder_forward(c, w, {x}, {std::vector<long long>(x.size(), 0)}, at ? &positions : nullptr);
  REQUIRE(out.ok());
  return out->logits[0];
}

// max |a - b| / max |b|
template <class S>
double relative_deviation(const RowVec<S>& a, const RowVec<S>& b) {
  return static_cast<double>((a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff());
}

template <class S>
std::vector<DecodeStep<S>> decode_all(const DecoderConfig& c, const DecoderWeightsT<S>& w, DecoderCache<S>& cache,
                                      const std::vector<long long>& x, const std::vector<long long>* at = nullptr) {
  std::vector<DecodeStep<S>> steps;
  for (std::size_t t = 0; t < x.size(); ++t) {
    auto s = decoder_decode_step(c, w, cache, x[t], at ? std::optional<long long>((*at)[t]) : std::nullopt);
    REQUIRE(s.ok());
    steps.push_back(std::move(s.value()));
  }
  return steps;
}

// The last token of x decoded against `cache`, relative to decoder_forward's last logits row of x.
double last_step_deviation(const DecoderConfig& c, const DecoderWeights& w, DecoderCache<double> cache,
                           const std::vector<long long>& x) {
  auto s = decoder_decode_step(c, w, cache, x.back());
  REQUIRE(s.ok());
  const RowMat<double> full = forward_logits(c, w, x);
  return relative_deviation<double>(s->logits, full.row(full.rows() - 1));
}

DecoderWeightsT<float> to_float(const DecoderConfig& c, const DecoderWeights& w) {
  DecoderWeightsT<float> wf = zero_weights<float>(c);
  const std::vector<WeightRef<const double>> from = weight_refs(c, w);
  std::vector<WeightRef<float>> to = weight_refs(c, wf);
  for (std::size_t k = 0; k < from.size(); ++k)
    for (long long i = 0; i < from[k].size; ++i) to[k].data[i] = static_cast<float>(from[k].data[i]);
  return wf;
}

}  // namespace

TEST_CASE("KV-cache logits equal a full recompute within 1e-6 (float64) at every step, every method") {
  // Deviation = max |cached - full| / max |full logit| of that step: step t's cached logits against decoder_forward's
  // last row for the prefix x[0..t], recomputed from scratch.
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 21);
    DecoderCache<double> cache;
    double worst = 0;
    for (std::size_t t = 0; t < kCacheTokens.size(); ++t) {
      auto step = decoder_decode_step(c, w, cache, kCacheTokens[t]);
      REQUIRE(step.ok());
      CHECK(step->position == static_cast<long long>(t));
      CHECK(cache.positions() == static_cast<long long>(t + 1));
      const std::vector<long long> prefix(kCacheTokens.begin(), kCacheTokens.begin() + static_cast<long>(t + 1));
      worst = std::max(worst, relative_deviation<double>(step->logits, forward_logits(c, w, prefix).row(t)));
    }
    std::printf("kv-cache vs full recompute %-22s worst relative deviation %.3g\n", case_name(k).c_str(), worst);
    CAPTURE(case_name(k));
    CHECK(worst < 1e-6);
  }
}

TEST_CASE("float32: the same cached decode agrees with float32 decoder_forward and with float64") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 22);
    const DecoderWeightsT<float> wf = to_float(c, w);
    DecoderCache<float> cf;
    DecoderCache<double> cd;
    const std::vector<DecodeStep<float>> sf = decode_all(c, wf, cf, kCacheTokens);
    const std::vector<DecodeStep<double>> sd = decode_all(c, w, cd, kCacheTokens);
    const RowMat<float> full = forward_logits(c, wf, kCacheTokens);
    double vs_forward = 0, vs_double = 0;
    for (std::size_t t = 0; t < kCacheTokens.size(); ++t) {
      vs_forward = std::max(vs_forward, relative_deviation<float>(sf[t].logits, full.row(static_cast<long>(t))));
      vs_double = std::max(vs_double, relative_deviation<double>(sf[t].logits.cast<double>(), sd[t].logits));
    }
    std::printf("kv-cache float32 %-22s vs float32 forward %.3g, vs float64 %.3g\n", case_name(k).c_str(), vs_forward,
                vs_double);
    CAPTURE(case_name(k));
    CHECK(vs_forward < 1e-5);
    CHECK(vs_double < 1e-4);
  }
}

TEST_CASE("rope: the cached key at position p is a @ wk rotated by p, once") {
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    const DecoderConfig c = small_decoder({PositionMethod::Rope, p});
    const DecoderWeights w = model(c, 23);
    DecoderCache<double> cache;
    const std::vector<DecodeStep<double>> steps = decode_all(c, w, cache, kCacheTokens);
    // a = rms(h) * norm1 of every position and layer, from the full forward pass (an independent computation)
    const auto fp = detail::run_forward(c, w, {kCacheTokens}, {std::vector<long long>(kCacheTokens.size(), 0)});
    const Eigen::VectorXd theta = rope_inv_freq(c.d_head(), c.base);
    const int dh = c.d_head();
    double worst_once = 0, least_twice = 1e300;
    for (int j = 0; j < c.layers; ++j) {
      const detail::LayerCache<double>& L = fp.seq[0].layer[static_cast<std::size_t>(j)];
      const RowMat<double> raw = L.a * w.layer[static_cast<std::size_t>(j)].wk;  // unrotated keys  # [T, d_model]
      CHECK((cache.layer[static_cast<std::size_t>(j)].k - L.k).cwiseAbs().maxCoeff() < 1e-12);  // forward's keys
      for (int pos = 0; pos < static_cast<int>(kCacheTokens.size()); ++pos) {
        CHECK((steps[static_cast<std::size_t>(pos)].key_before_rope[static_cast<std::size_t>(j)] - raw.row(pos))
                  .cwiseAbs()
                  .maxCoeff() < 1e-12);
        for (int n = 0; n < c.heads; ++n) {
          const Eigen::VectorXd unrotated = raw.row(pos).segment(n * dh, dh).transpose();
          const Eigen::VectorXd cached =
              cache.layer[static_cast<std::size_t>(j)].k.row(pos).segment(n * dh, dh).transpose();
          const Eigen::VectorXd once = apply_rope(unrotated, pos, theta, p);  // rope.hpp's rotation by p
          worst_once = std::max(worst_once, (cached - once).norm() / unrotated.norm());
          CHECK(std::abs(cached.norm() - unrotated.norm()) < 1e-12 * unrotated.norm());  // a rotation
          CHECK((apply_rope(cached, -pos, theta, p) - unrotated).norm() < 1e-12 * unrotated.norm());
          if (pos == 0) {
            // angle 0: position 0's key is unrotated (up to rounding: the forward's a @ wk is one batched product)
            CHECK((cached - unrotated).norm() <= 1e-14 * unrotated.norm());
            continue;
          }
          const Eigen::VectorXd twice = apply_rope(cached, pos, theta, p);
          least_twice = std::min(least_twice, (twice - once).norm() / unrotated.norm());
        }
      }
    }
    std::printf("rope %-11s cached key vs rotate(a@wk, p): worst %.3g; rotating again moves it by >= %.3g\n",
                pairing_name(p), worst_once, least_twice);
    CHECK(worst_once < 1e-12);
    CHECK(least_twice > 0.01);
  }
}

TEST_CASE("without rope the cached key is a @ wk itself: no method but rope rotates keys") {
  for (const MethodCase& k : kMethodCases) {
    if (k.m == PositionMethod::Rope) continue;
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 24);
    DecoderCache<double> cache;
    const std::vector<DecodeStep<double>> steps = decode_all(c, w, cache, kCacheTokens);
    for (std::size_t j = 0; j < w.layer.size(); ++j)
      for (std::size_t pos = 0; pos < steps.size(); ++pos)
        CHECK(cache.layer[j].k.row(static_cast<long>(pos)) == steps[pos].key_before_rope[j]);
  }
}

TEST_CASE("attention maps: rows sum to 1, zero above the diagonal, equal to the full forward's, not uniform") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 25);
    auto maps = decoder_attention(c, w, kCacheTokens);
    REQUIRE(maps.ok());
    REQUIRE(maps->size() == 2);
    const auto fp = detail::run_forward(c, w, {kCacheTokens}, {std::vector<long long>(kCacheTokens.size(), 0)});
    const Eigen::Index T = static_cast<Eigen::Index>(kCacheTokens.size());
    double worst_sum = 0, worst_vs_forward = 0, top = 0;
    for (std::size_t j = 0; j < maps->size(); ++j) {
      REQUIRE((*maps)[j].size() == 4);
      for (std::size_t n = 0; n < 4; ++n) {
        const RowMat<double>& A = (*maps)[j][n];
        REQUIRE(A.rows() == T);
        REQUIRE(A.cols() == T);
        for (Eigen::Index i = 0; i < T; ++i) {
          worst_sum = std::max(worst_sum, std::abs(A.row(i).sum() - 1.0));
          CHECK(A.row(i).tail(T - i - 1).isZero(0.0));  // exactly zero above the diagonal
          CHECK(A.row(i).minCoeff() >= 0.0);
          if (i == T - 1) top = std::max(top, A.row(i).maxCoeff());
        }
        worst_vs_forward = std::max(worst_vs_forward, (A - fp.seq[0].layer[j].p[n]).cwiseAbs().maxCoeff());
      }
    }
    CAPTURE(case_name(k));
    CHECK(worst_sum < 1e-12);
    CHECK(worst_vs_forward < 1e-12);
    CHECK(top > 3.0 / static_cast<double>(T));  // some head of the last row puts >= 3x the uniform weight on a key
  }
}

TEST_CASE("greedy generation: tokens are the argmax of a full recompute, steps match decoder_forward") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 26);
    const std::vector<long long> prompt = {2, 7, 10};
    auto g = decoder_generate(c, w, prompt, 6);
    REQUIRE(g.ok());
    CAPTURE(case_name(k));
    CHECK(!g->error);
    CHECK(g->prompt_length == 3);
    REQUIRE(g->tokens.size() == 9);
    CHECK(std::equal(prompt.begin(), prompt.end(), g->tokens.begin()));
    REQUIRE(g->steps.size() == 8);  // 3 prompt tokens and the first 5 generated ones are decoded
    CHECK(g->cache.positions() == 8);
    const std::vector<long long> fed(g->tokens.begin(), g->tokens.end() - 1);
    const RowMat<double> full = forward_logits(c, w, fed);
    for (std::size_t t = 0; t < fed.size(); ++t) {
      CHECK(g->steps[t].token == fed[t]);
      CHECK(relative_deviation<double>(g->steps[t].logits, full.row(static_cast<long>(t))) < 1e-6);
      if (t + 1 >= prompt.size()) {
        Eigen::Index best = 0;
        full.row(static_cast<long>(t)).maxCoeff(&best);
        CHECK(g->tokens[t + 1] == best);
      }
    }
  }
  const DecoderConfig c = small_decoder({PositionMethod::Rope, Pairing::Interleaved});
  auto none = decoder_generate(c, model(c, 26), {4, 5}, 0);
  REQUIRE(none.ok());
  CHECK(none->tokens == std::vector<long long>{4, 5});
  CHECK(none->steps.size() == 2);
}

TEST_CASE("learned: decoding past max_position is decoder_forward's IndexError; the cache is left unchanged") {
  const DecoderConfig c = small_decoder({PositionMethod::Learned, Pairing::Interleaved});
  const DecoderWeights w = model(c, 27);
  DecoderCache<double> cache;
  decode_all(c, w, cache, kCacheTokens);  // 12 tokens = the whole table
  std::vector<long long> longer = kCacheTokens;
  longer.push_back(5);
  auto full = decoder_forward(c, w, {longer}, {std::vector<long long>(longer.size(), 0)});
  REQUIRE(!full.ok());
  auto step = decoder_decode_step(c, w, cache, 5);
  REQUIRE(!step.ok());
  CHECK(step.error().full() == full.error().full());
  CHECK(step.error().full() == "IndexError: index 12 is out of bounds for dimension 0 with size 12");
  CHECK(cache.positions() == 12);
  auto maps = decoder_attention(c, w, longer);
  REQUIRE(!maps.ok());
  CHECK(maps.error().full() == full.error().full());

  // generation stops at the end of the table, keeping what it generated: positions 0..11 decoded, 3 new tokens
  auto g = decoder_generate(c, w, std::vector<long long>(kCacheTokens.begin(), kCacheTokens.begin() + 10), 5);
  REQUIRE(g.ok());
  REQUIRE(g->error);
  CHECK(g->error->full() == full.error().full());
  CHECK(g->tokens.size() == 13);
  CHECK(g->steps.size() == 12);
  auto too_long = decoder_generate(c, w, longer, 1);
  REQUIRE(!too_long.ok());
  CHECK(too_long.error().full() == full.error().full());

  // rope has no table: the same step works
  const DecoderConfig r = small_decoder({PositionMethod::Rope, Pairing::Interleaved});
  DecoderCache<double> rc;
  decode_all(r, model(r, 27), rc, longer);
  CHECK(rc.positions() == 13);
}

TEST_CASE("decode errors: token ids as nn.Embedding, bad caches and prompts name what is wrong") {
  const DecoderConfig c = small_decoder({PositionMethod::Alibi, Pairing::Interleaved});
  const DecoderWeights w = model(c, 28);
  DecoderCache<double> cache;
  auto full = decoder_forward(c, w, {{1, 11}}, {{0, 0}});
  REQUIRE(!full.ok());
  auto bad = decoder_decode_step(c, w, cache, 11);
  REQUIRE(!bad.ok());
  CHECK(bad.error().full() == full.error().full());
  CHECK(decoder_decode_step(c, w, cache, -1).error().full() ==
        "IndexError: index -1 is out of bounds for dimension 0 with size 11");
  CHECK(cache.positions() == 0);
  REQUIRE(decoder_decode_step(c, w, cache, 1).ok());
  DecoderCache<double> wrong = cache;
  wrong.layer.pop_back();
  CHECK(decoder_decode_step(c, w, wrong, 1).error().full() == "BadRequest: cache has 1 layers, config says 2");
  wrong = cache;
  wrong.layer[1].v.resize(2, 16);
  CHECK(decoder_decode_step(c, w, wrong, 1).error().full() == "BadRequest: cache keys and values must all be [1, 16]");
  DecoderWeights broken = w;
  broken.head.resize(16, 10);
  CHECK(decoder_decode_step(c, broken, cache, 1).error().full() ==
        "BadRequest: weight \"head\" must be [16, 11], got [16, 10]");
  CHECK(decoder_generate(c, w, {}, 3).error().full() == "BadRequest: \"prompt\" must be non-empty");
  CHECK(decoder_generate(c, w, {1}, -1).error().full() == "BadRequest: \"new_tokens\" must be >= 0, got -1");
  CHECK(decoder_attention(c, w, {}).error().full() == "BadRequest: \"tokens\" must be a non-empty [B][T] array");
}

TEST_CASE("mismatch: a cache built at shifted positions, or reordered, breaks equality exactly where it should") {
  // One layer, so layer 0's keys and values depend on their own token and position only. x has 8 tokens.
  const std::vector<long long> x(kCacheTokens.begin(), kCacheTokens.begin() + 8), head(x.begin(), x.end() - 1);
  std::vector<long long> shifted_x = {8};
  shifted_x.insert(shifted_x.end(), head.begin(), head.end());
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k, 1);
    const DecoderWeights w = model(c, 29);
    DecoderCache<double> right, shifted_src;
    decode_all(c, w, right, head);
    decode_all(c, w, shifted_src, shifted_x);  // x[0..6] at positions 1..7
    // x[0..6]'s keys and values as if decoded one position later; then x[7] decoded at position 7
    DecoderCache<double> shifted;
    shifted.layer = {LayerKV<double>{shifted_src.layer[0].k.bottomRows(7), shifted_src.layer[0].v.bottomRows(7)}};
    // positions 0 and 5 swapped in the cache (key with its value)
    DecoderCache<double> swapped = right;
    swapped.layer[0].k.row(0).swap(swapped.layer[0].k.row(5));
    swapped.layer[0].v.row(0).swap(swapped.layer[0].v.row(5));

    const double ok = last_step_deviation(c, w, right, x), shift = last_step_deviation(c, w, shifted, x),
                 swap = last_step_deviation(c, w, swapped, x);
    std::printf("mismatch %-22s right cache %.2g, shifted positions %.2g, swapped positions %.2g\n",
                case_name(k).c_str(), ok, shift, swap);
    CAPTURE(case_name(k));
    CHECK(ok < 1e-12);
    // learned, sinusoidal, rope: a key carries its position, so a shifted cache is wrong; a cache is a set of
    // (key, value) pairs to them, so order does not matter
    const bool key_carries_position =
        k.m == PositionMethod::Learned || k.m == PositionMethod::Sinusoidal || k.m == PositionMethod::Rope;
    // alibi, t5: position is only the score bias of i - j, added by index at attention time
    const bool bias_by_index = k.m == PositionMethod::Alibi || k.m == PositionMethod::T5;
    CHECK((shift > 1e-3) == key_carries_position);
    CHECK((swap > 1e-3) == bias_by_index);
    if (!key_carries_position) CHECK(shift < 1e-12);
    if (!bias_by_index) CHECK(swap < 1e-12);
  }
}

TEST_CASE("mismatch, rope: cached keys rotated twice, one position off, or not at all all break equality") {
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    const DecoderConfig c = small_decoder({PositionMethod::Rope, p}, 1);
    const DecoderWeights w = model(c, 30);
    const std::vector<long long> x(kCacheTokens.begin(), kCacheTokens.begin() + 8);
    DecoderCache<double> right;
    decode_all(c, w, right, std::vector<long long>(x.begin(), x.end() - 1));
    const Eigen::VectorXd theta = rope_inv_freq(c.d_head(), c.base);
    // every cached key rotated again by `angle(pos)` positions
    const auto rerotated = [&](auto angle) {
      DecoderCache<double> out = right;
      RowMat<double>& K = out.layer[0].k;
      for (Eigen::Index pos = 0; pos < K.rows(); ++pos)
        for (int n = 0; n < c.heads; ++n) {
          const Eigen::VectorXd key = K.row(pos).segment(n * c.d_head(), c.d_head()).transpose();
          K.row(pos).segment(n * c.d_head(), c.d_head()) =
              apply_rope(key, angle(static_cast<double>(pos)), theta, p).transpose();
        }
      return out;
    };
    const double ok = last_step_deviation(c, w, right, x);
    const double twice = last_step_deviation(c, w, rerotated([](double pos) { return pos; }), x);
    const double off_by_one = last_step_deviation(c, w, rerotated([](double) { return 1.0; }), x);
    const double unrotated = last_step_deviation(c, w, rerotated([](double pos) { return -pos; }), x);
    std::printf("mismatch rope %-11s right %.2g, rotated twice %.2g, one position off %.2g, unrotated %.2g\n",
                pairing_name(p), ok, twice, off_by_one, unrotated);
    CHECK(ok < 1e-12);
    CHECK(twice > 1e-3);
    CHECK(off_by_one > 1e-3);
    CHECK(unrotated > 1e-3);
  }
}

TEST_CASE("kv_cache_check: every method's cached decode equals a full recompute; rope keys are rotated exactly once") {
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 5);
    const std::vector<long long> prompt(kCacheTokens.begin(), kCacheTokens.begin() + 4);
    const auto check = kv_cache_check(c, w, prompt, 6);
    REQUIRE(check);
    CHECK(check->tokens.size() == 10);
    CHECK(check->steps.size() == 9);
    CHECK(check->worst_logit_diff < 1e-12);
    CHECK(check->steps[4].generated);
    CHECK(!check->steps[3].generated);
    if (k.m != PositionMethod::Rope) {
      CHECK(check->worst_key_diff == 0);
      continue;
    }
    CHECK(check->worst_key_diff < 1e-12);
    CHECK(check->steps[0].rotated_twice == 0);  // position 0: no rotation at all
    for (std::size_t i = 1; i < check->steps.size(); ++i) CHECK(check->steps[i].rotated_twice > 1e-3);
  }
}

TEST_CASE("kv_cache_check: a learned table running out stops generation with its IndexError, checked so far") {
  const DecoderConfig c = small_decoder({PositionMethod::Learned, Pairing::Interleaved});
  const auto check = kv_cache_check(c, model(c, 2), kCacheTokens, 5);  // the prompt fills all 12 rows
  REQUIRE(check);
  REQUIRE(check->error);
  CHECK(check->error->full() == "IndexError: index 12 is out of bounds for dimension 0 with size 12");
  CHECK(check->steps.size() == 12);
  CHECK(check->worst_logit_diff < 1e-12);
}

// [SECTION] At given positions

TEST_CASE("KV cache at given positions equals the full forward at them: logits and attention, every method") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 31);
    const bool learned = k.m == PositionMethod::Learned;  // a table of 12 rows
    for (bool sorted : {true, false}) {
      const std::vector<long long> at = test::random_positions(kCacheTokens.size(), learned ? 12 : 500, 33, sorted);
      CAPTURE(case_name(k));
      CAPTURE(sorted);
      DecoderCache<double> cache;
      const std::vector<DecodeStep<double>> steps = decode_all(c, w, cache, kCacheTokens, &at);
      CHECK(cache.position == at);
      double worst = 0;
      for (std::size_t t = 0; t < kCacheTokens.size(); ++t) {
        CHECK(steps[t].position == at[t]);
        const std::vector<long long> prefix(kCacheTokens.begin(), kCacheTokens.begin() + static_cast<long>(t + 1)),
            prefix_at(at.begin(), at.begin() + static_cast<long>(t + 1));
        worst = std::max(worst,
                         relative_deviation<double>(steps[t].logits, forward_logits(c, w, prefix, &prefix_at).row(t)));
      }
      const TokenRows rows_at = {at};
      const auto fp =
          detail::run_forward(c, w, {kCacheTokens}, {std::vector<long long>(kCacheTokens.size(), 0)}, &rows_at);
      auto maps = decoder_attention(c, w, kCacheTokens, &at);
      REQUIRE(maps.ok());
      double worst_map = 0;
      for (std::size_t j = 0; j < maps->size(); ++j)
        for (std::size_t n = 0; n < (*maps)[j].size(); ++n)
          worst_map = std::max(worst_map, ((*maps)[j][n] - fp.seq[0].layer[j].p[n]).cwiseAbs().maxCoeff());
      std::printf("kv-cache at %-8s positions %-22s logits %.3g, attention %.3g\n", sorted ? "sorted" : "unsorted",
                  case_name(k).c_str(), worst, worst_map);
      CHECK(worst < 1e-12);
      CHECK(worst_map < 1e-12);
    }
  }
}

TEST_CASE("generation at positions: the prompt where given, then last + 1, + 2, ...; logits as the full forward") {
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    const DecoderConfig c = small_decoder(k);
    const DecoderWeights w = model(c, 35);
    const std::vector<long long> prompt = {2, 7, 10}, at = {1, 4, 5};
    auto g = decoder_generate(c, w, prompt, 6, &at);
    REQUIRE(g.ok());
    CHECK(!g->error);
    REQUIRE(g->steps.size() == 8);
    const std::vector<long long> fed(g->tokens.begin(), g->tokens.end() - 1), fed_at = {1, 4, 5, 6, 7, 8, 9, 10};
    CHECK(g->cache.position == fed_at);
    const RowMat<double> full = forward_logits(c, w, fed, &fed_at);
    for (std::size_t t = 0; t < fed.size(); ++t) {
      CHECK(g->steps[t].position == fed_at[t]);
      CHECK(relative_deviation<double>(g->steps[t].logits, full.row(static_cast<long>(t))) < 1e-12);
    }
    auto plain = decoder_generate(c, w, prompt, 6);  // at 0, 1, 2: the second token's logits move, but for none's
    REQUIRE(plain.ok());
    const double moved = relative_deviation<double>(g->steps[1].logits, plain->steps[1].logits);
    CHECK((k.m == PositionMethod::None ? moved == 0 : moved > 1e-6));
  }
  // learned: the prompt at 8, 9, 10 of 12 rows leaves room for one generated token to be decoded (at 11)
  const DecoderConfig c = small_decoder({PositionMethod::Learned, Pairing::Interleaved});
  const std::vector<long long> at = {8, 9, 10};
  auto g = decoder_generate(c, model(c, 35), {2, 7, 10}, 5, &at);
  REQUIRE(g.ok());
  REQUIRE(g->error);
  CHECK(g->error->full() == "IndexError: index 12 is out of bounds for dimension 0 with size 12");
  CHECK(g->tokens.size() == 5);
  CHECK(g->steps.size() == 4);
}

TEST_CASE("decode errors at positions: negative, past a learned table, shapes; the cache is left unchanged") {
  const DecoderConfig c = small_decoder({PositionMethod::Learned, Pairing::Interleaved});
  const DecoderWeights w = model(c, 37);
  DecoderCache<double> cache;
  REQUIRE(decoder_decode_step(c, w, cache, 3, 11).ok());  // the table's last row, first
  CHECK(decoder_decode_step(c, w, cache, 3, 12).error().full() ==
        "IndexError: index 12 is out of bounds for dimension 0 with size 12");
  CHECK(decoder_decode_step(c, w, cache, 3, -1).error().full() == "BadRequest: \"positions\" must be >= 0, got -1");
  CHECK(cache.positions() == 1);
  REQUIRE(decoder_decode_step(c, w, cache, 4).ok());  // by default at cache.positions()
  CHECK(cache.position == std::vector<long long>{11, 1});
  DecoderCache<double> wrong = cache;
  wrong.position.pop_back();
  CHECK(decoder_decode_step(c, w, wrong, 1).error().full() ==
        "BadRequest: cache positions must be one per row (2), got 1");
  wrong.position = {0, -3};
  CHECK(decoder_decode_step(c, w, wrong, 1).error().full() == "BadRequest: cache positions must be >= 0, got -3");
  const std::vector<long long> two = {0, 1}, past = {0, 12};
  CHECK(decoder_generate(c, w, {1, 2, 3}, 1, &two).error().full() ==
        "BadRequest: \"positions\" row [0] must have length 3, got 2");
  CHECK(decoder_attention(c, w, {1, 2}, &past).error().full() ==
        "IndexError: index 12 is out of bounds for dimension 0 with size 12");
}
