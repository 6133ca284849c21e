// Tiny decoder: ALiBi slopes, T5 buckets, finite-difference gradients per position method, invariants, errors, AdamW.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/encodings/biases.hpp"
#include "core/encodings/learned.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "core/decoder/decoder_workspace.hpp"
#include "decoder_fixtures.hpp"

using namespace rv;
using namespace rv::test;

TEST_CASE("alibi_slopes: Press et al.'s get_slopes") {
  const std::vector<double> s8 = alibi_slopes(8);
  REQUIRE(s8.size() == 8);
  for (int n = 0; n < 8; ++n) CHECK(s8[static_cast<std::size_t>(n)] == std::ldexp(1.0, -(n + 1)));  // 1/2 .. 1/256
  // 6 heads: the 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8, then every other 8-head slope: 2^-1, 2^-3
  const std::vector<double> s6 = alibi_slopes(6), want6 = {0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256, 0.5, 0.125};
  CHECK(s6 == want6);
  CHECK(alibi_slopes(1) == std::vector<double>{1.0 / 256});
  const std::vector<double> s12 = alibi_slopes(12);  // 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
  REQUIRE(s12.size() == 12);
  CHECK(s12[7] == 1.0 / 256);
  for (int k = 0; k < 4; ++k) CHECK(s12[static_cast<std::size_t>(8 + k)] == doctest::Approx(std::pow(2.0, -0.5 - k)));
  CHECK(alibi_slopes(2) == std::vector<double>{1.0 / 16, 1.0 / 256});
}

TEST_CASE("t5_bucket: exact below 16, logarithmic to 128, then 31") {
  for (int r = 0; r < 16; ++r) CHECK(t5_bucket(r) == r);
  CHECK(t5_bucket(16) == 16);
  CHECK(t5_bucket(17) == 16);   // 16 + floor(ln(17/16)/ln 8 * 16) = 16 + floor(0.466)
  CHECK(t5_bucket(20) == 17);   // floor(1.717)
  CHECK(t5_bucket(32) == 21);   // ln 2 / ln 8 * 16 = 5.33
  CHECK(t5_bucket(64) == 26);   // 10.67
  CHECK(t5_bucket(100) == 30);  // 14.10
  CHECK(t5_bucket(127) == 31);  // 15.94
  CHECK(t5_bucket(128) == 31);  // 16 + 16 = 32, clamped
  CHECK(t5_bucket(1000000) == 31);
}

TEST_CASE("weights: contract names in a fixed order, init norms one and rel_bias zero, seeded") {
  DecoderConfig c = tiny(PositionMethod::T5);
  c.layers = 1;
  DecoderWeights w = init_decoder_weights<double>(c, 3);
  std::vector<std::string> names;
  for (const WeightRef<double>& r : weight_refs(c, w)) names.push_back(r.name);
  const std::vector<std::string> want = {"tok_emb",  "l0.norm1", "l0.wq", "l0.wk",    "l0.wv",  "l0.wo",
                                         "l0.norm2", "l0.w1",    "l0.w2", "rel_bias", "norm_f", "head"};
  CHECK(names == want);
  CHECK(w.layer[0].norm1.isOnes());
  CHECK(w.norm_f.isOnes());
  CHECK(w.rel_bias.isZero());
  CHECK(w.rel_bias.rows() == 32);
  CHECK(w.head.rows() == 8);
  CHECK(w.head.cols() == 7);
  CHECK(w.tok_emb == init_decoder_weights<double>(c, 3).tok_emb);
  CHECK(w.tok_emb != init_decoder_weights<double>(c, 4).tok_emb);
  const double sd = std::sqrt(w.layer[0].w1.squaredNorm() / static_cast<double>(w.layer[0].w1.size()));
  CHECK(sd == doctest::Approx(0.02).epsilon(0.3));
  CHECK(weight_specs(tiny(PositionMethod::Learned))[1].name == "pos_emb");
  CHECK(decoder_param_count(c) == 56 + (8 + 4 * 64 + 8 + 96 + 96) + 64 + 8 + 56);
}

TEST_CASE("gradients match central finite differences for every position method") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = tiny(k.m, k.p);
    const double worst = worst_fd_error(c, 11), late = worst_fd_error(c, 13, kLateTargets);
    std::printf("finite differences %-10s %-11s worst relative error %.3g, late answers %.3g\n",
                position_method_name(k.m), k.m == PositionMethod::Rope ? pairing_name(k.p) : "", worst, late);
    CAPTURE(position_method_name(k.m));
    CHECK(worst < 1e-6);
    CHECK(late < 1e-6);
  }
}

TEST_CASE("batched engine: sequences of mixed lengths in one batch, one workspace reused across configs") {
  const TokenRows xa = {{1, 4, 6}, {2, 0, 5}}, ya = {{4, -1, 2}, {0, 3, 1}};  // T 3, 5 targets
  const TokenRows xb = {{3, 3, 1, 0, 6, 2}}, yb = {{-1, 1, 0, 6, 2, 5}};      // T 6, 5 targets
  SequenceBatch batch;                                                        // rows a0, b0, a1: lengths 3, 6, 3
  for (const auto& [x, y] : {std::pair{xa[0], ya[0]}, std::pair{xb[0], yb[0]}, std::pair{xa[1], ya[1]}}) {
    const int r0 = batch.append(static_cast<int>(x.size()));
    std::copy(x.begin(), x.end(), batch.tokens.begin() + r0);
    std::copy(y.begin(), y.end(), batch.targets.begin() + r0);
  }
  CHECK(batch.max_length == 6);
  DecoderWorkspace<double> ws;  // shared by every config below
  for (PositionMethod m : kAllPositionMethods) {
    CAPTURE(position_method_name(m));
    const DecoderConfig c = tiny(m);
    const DecoderWeights w = random_weights(c, 12);
    const auto ga = decoder_loss_and_grad(c, w, xa, ya), gb = decoder_loss_and_grad(c, w, xb, yb);
    const auto fa = decoder_forward(c, w, xa, ya), fb = decoder_forward(c, w, xb, yb);
    REQUIRE(ga.ok());
    REQUIRE(gb.ok());
    REQUIRE(!check_sequence_batch(c, batch));
    const double all_rows_loss = batch_forward(c, w, batch, ws, false, true);
    CHECK(ws.out_rows == 12);
    CHECK((ws.logits.topRows(3) - fa->logits[0]).cwiseAbs().maxCoeff() < 1e-13);
    CHECK((ws.logits.middleRows(3, 6) - fb->logits[0]).cwiseAbs().maxCoeff() < 1e-13);
    CHECK((ws.logits.middleRows(9, 3) - fa->logits[1]).cwiseAbs().maxCoeff() < 1e-13);
    const double loss = batch_forward(c, w, batch, ws, true);  // the last layer from each first target on
    CHECK(ws.out_from == std::vector<int>{0, 1, 0});
    CHECK(ws.out_start == std::vector<int>{0, 3, 8});
    CHECK(ws.out_rows == 11);
    CHECK((ws.logits.middleRows(3, 5) - fb->logits[0].bottomRows(5)).cwiseAbs().maxCoeff() < 1e-13);
    CHECK(ws.counted == 10);
    CHECK(loss == doctest::Approx(0.5 * (ga->loss + gb->loss)).epsilon(1e-14));  // 5 answers each
    CHECK(all_rows_loss == doctest::Approx(loss).epsilon(1e-14));
    batch_backward(c, w, batch, ws);
    const auto g = weight_refs(c, std::as_const(ws.grad)), a = weight_refs(c, ga->grads), b = weight_refs(c, gb->grads);
    double worst = 0, scale = 0;
    for (std::size_t k = 0; k < g.size(); ++k)
      for (long long i = 0; i < g[k].size; ++i) {
        const double want = 0.5 * (a[k].data[i] + b[k].data[i]);
        worst = std::max(worst, std::abs(g[k].data[i] - want));
        scale = std::max(scale, std::abs(want));
      }
    CHECK(worst < 1e-13 * scale);
    CHECK(batch_forward(c, w, sequence_batch(xb, yb), ws, false) == doctest::Approx(gb->loss).epsilon(1e-14));
  }
}

TEST_CASE("batched engine: decoder_forward's errors for a batch") {
  DecoderConfig c = tiny(PositionMethod::Learned);
  SequenceBatch b;
  CHECK(check_sequence_batch(c, b)->full() == "BadRequest: \"tokens\" must be a non-empty [B][T] array");
  b.append(9);  // tokens 0, targets -1
  CHECK(check_sequence_batch(c, b)->full() == "IndexError: index 8 is out of bounds for dimension 0 with size 8");
  c.position = PositionMethod::Rope;
  CHECK(!check_sequence_batch(c, b));
  b.tokens[3] = 7;
  CHECK(check_sequence_batch(c, b)->full() == "IndexError: index 7 is out of bounds for dimension 0 with size 7");
  b.tokens[3] = 6;
  b.targets[8] = -2;
  CHECK(check_sequence_batch(c, b)->full() == "IndexError: Target -2 is out of bounds.");
  b.clear();
  CHECK(b.rows() == 0);
  CHECK(b.max_length == 0);
}

TEST_CASE("loss of uniform logits is ln(vocab); ignored targets do not count") {
  for (PositionMethod m : kAllPositionMethods) {
    const DecoderConfig c = tiny(m);
    DecoderWeights w = random_weights(c, 5);
    w.head.setZero();
    CHECK(loss_of(c, w) == doctest::Approx(std::log(7.0)).epsilon(1e-15));
  }
  const DecoderConfig c = tiny(PositionMethod::Rope);
  const DecoderWeights w = random_weights(c, 6);
  auto out = decoder_forward(c, w, kTokens, kTargets);
  REQUIRE(out.ok());
  double sum = 0;  // the mean over the 7 counted targets, from the returned logits
  int counted = 0;
  for (std::size_t b = 0; b < 2; ++b)
    for (int t = 0; t < 5; ++t) {
      const long long y = kTargets[b][static_cast<std::size_t>(t)];
      if (y < 0) continue;
      const Eigen::RowVectorXd z = out->logits[b].row(t);
      sum += std::log(z.array().exp().sum()) - z[y];
      ++counted;
    }
  CHECK(counted == 7);
  CHECK(out->loss == doctest::Approx(sum / counted).epsilon(1e-13));
}

TEST_CASE("causality: changing a later token never changes earlier logits") {
  for (PositionMethod m : kAllPositionMethods) {
    const DecoderConfig c = tiny(m);
    const DecoderWeights w = random_weights(c, 8);
    TokenRows changed = kTokens;
    changed[0][3] = 5;
    changed[1][3] = 0;
    auto a = decoder_forward(c, w, kTokens, kTargets), b = decoder_forward(c, w, changed, kTargets);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    for (std::size_t s = 0; s < 2; ++s) {
      CHECK(a->logits[s].topRows(3) == b->logits[s].topRows(3));
      CHECK(a->logits[s].row(3) != b->logits[s].row(3));
    }
  }
}

TEST_CASE("rope inside the decoder: with one repeated token, q_i . k_j depends on i - j only") {
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    const DecoderConfig c = tiny(PositionMethod::Rope, p);
    const DecoderWeights w = random_weights(c, 9);
    const TokenRows x = {{3, 3, 3, 3, 3, 3, 3, 3}}, y = {{1, 1, 1, 1, 1, 1, 1, 1}};
    const auto fp = detail::run_forward(c, w, x, y);
    const detail::LayerCache<double>& L = fp.seq[0].layer[0];
    const Eigen::VectorXd theta = rope_inv_freq(c.d_head(), c.base);
    for (int n = 0; n < c.heads; ++n) {
      const auto q = [&](int i) { return Eigen::VectorXd(L.q.row(i).segment(n * 4, 4).transpose()); };
      const auto k = [&](int j) { return Eigen::VectorXd(L.k.row(j).segment(n * 4, 4).transpose()); };
      for (int r = 0; r < 4; ++r)
        for (int j = 1; j + r < 8; ++j) CHECK(q(j + r).dot(k(j)) == doctest::Approx(q(r).dot(k(0))).epsilon(1e-12));
      // the decoder's rotation is core's apply_rope: un-rotating row 5 with apply_rope at -5 gives row 0's q
      CHECK((apply_rope(q(5), -5.0, theta, p) - q(0)).norm() < 1e-12);
    }
  }
}

TEST_CASE("learned: a sequence longer than the table is PyTorch's IndexError") {
  DecoderConfig c = tiny(PositionMethod::Learned);
  c.max_position = 4;
  const DecoderWeights w = random_weights(c, 1);
  auto out = decoder_forward(c, w, kTokens, kTargets);
  REQUIRE(!out.ok());
  CHECK(out.error().full() == "IndexError: index 4 is out of bounds for dimension 0 with size 4");
  CHECK(!decoder_loss_and_grad(c, w, kTokens, kTargets).ok());
  c.max_position = 5;
  CHECK(decoder_forward(c, random_weights(c, 1), kTokens, kTargets).ok());
}

TEST_CASE("validation: clear errors naming the field, never a crash") {
  const auto config_error = [](DecoderConfig c) {
    auto e = check_decoder_config(c);
    return e ? e->full() : std::string();
  };
  DecoderConfig c = tiny(PositionMethod::Rope);
  CHECK(config_error(c).empty());
  c.heads = 3;
  CHECK(config_error(c) == "BadRequest: \"d_model\" (8) must be divisible by \"heads\" (3)");
  c.heads = 8;
  CHECK(config_error(c) == "BadRequest: rope needs an even d_head = d_model / heads, got 1");
  c.position = PositionMethod::Alibi;
  CHECK(config_error(c).empty());  // odd d_head is fine without rope
  c = tiny(PositionMethod::Rope);
  c.base = 1.0;
  CHECK(config_error(c).find("base") != std::string::npos);
  c = tiny(PositionMethod::None);
  c.vocab = 0;
  CHECK(config_error(c) == "BadRequest: \"vocab\" must be in [1, 65536], got 0");
  c = tiny(PositionMethod::None);
  c.layers = 0;
  CHECK(config_error(c).find("\"layers\"") != std::string::npos);
  c = tiny(PositionMethod::Learned);
  c.max_position = 0;
  CHECK(config_error(c).find("\"max_position\"") != std::string::npos);
  c.position = static_cast<PositionMethod>(42);
  CHECK(config_error(c) == "BadRequest: unknown \"position\" method");
  CHECK(!parse_position_method("nope"));
  CHECK(parse_position_method("t5") == PositionMethod::T5);
  for (PositionMethod m : kAllPositionMethods) CHECK(parse_position_method(position_method_name(m)) == m);

  c = tiny(PositionMethod::Rope);
  DecoderWeights w = random_weights(c, 2);
  const auto run_error = [&](const TokenRows& x, const TokenRows& y) {
    auto out = decoder_loss_and_grad(c, w, x, y);
    return out.ok() ? std::string() : out.error().full();
  };
  CHECK(run_error({{1, 7}}, {{1, 1}}) == "IndexError: index 7 is out of bounds for dimension 0 with size 7");
  CHECK(run_error({{-1, 2}}, {{1, 1}}) == "IndexError: index -1 is out of bounds for dimension 0 with size 7");
  CHECK(run_error({{1, 2}}, {{1, 7}}) == "IndexError: Target 7 is out of bounds.");
  CHECK(run_error({{1, 2}}, {{1, -2}}) == "IndexError: Target -2 is out of bounds.");
  CHECK(run_error({{1, 2}, {1}}, {{1, 1}, {1}}) == "BadRequest: \"tokens\" rows must all have length 2, row [1] has 1");
  CHECK(run_error({{1, 2}}, {{1}}) == "BadRequest: \"targets\" row [0] must have length 2, got 1");
  CHECK(run_error({{1, 2}}, {}) == "BadRequest: \"targets\" must have 1 rows like \"tokens\", got 0");
  CHECK(run_error({}, {}) == "BadRequest: \"tokens\" must be a non-empty [B][T] array");
  CHECK(run_error({{1, 2}}, {{-1, -1}}).find("no entry >= 0") != std::string::npos);
  w.layer[1].wq.resize(8, 7);
  CHECK(run_error({{1, 2}}, {{1, 1}}) == "BadRequest: weight \"l1.wq\" must be [8, 8], got [8, 7]");
  w = random_weights(c, 2);
  w.norm_f.resize(9);
  CHECK(run_error({{1, 2}}, {{1, 1}}) == "BadRequest: weight \"norm_f\" must be [8], got [9]");
  w = random_weights(c, 2);
  w.layer.pop_back();
  CHECK(run_error({{1, 2}}, {{1, 1}}) == "BadRequest: weights have 1 layers, config says 2");
}

TEST_CASE("float32 from the same code agrees with float64") {
  const DecoderConfig c = tiny(PositionMethod::Rope);
  const DecoderWeights w = random_weights(c, 4);
  DecoderWeightsT<float> wf = zero_weights<float>(c);
  const std::vector<WeightRef<const double>> wd = weight_refs(c, w);
  std::vector<WeightRef<float>> wr = weight_refs(c, wf);
  for (std::size_t k = 0; k < wd.size(); ++k)
    for (long long i = 0; i < wd[k].size; ++i) wr[k].data[i] = static_cast<float>(wd[k].data[i]);
  auto gd = decoder_loss_and_grad(c, w, kTokens, kTargets);
  auto gf = decoder_loss_and_grad(c, wf, kTokens, kTargets);
  REQUIRE(gd.ok());
  REQUIRE(gf.ok());
  CHECK(gf->loss == doctest::Approx(gd->loss).epsilon(1e-5));
  const std::vector<WeightRef<const double>> a = weight_refs(c, gd->grads);
  const std::vector<WeightRef<const float>> b = weight_refs(c, gf->grads);
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    for (long long i = 0; i < a[k].size; ++i) {
      worst = std::max(worst, std::abs(a[k].data[i] - static_cast<double>(b[k].data[i])));
      scale = std::max(scale, std::abs(a[k].data[i]));
    }
  CHECK(worst < 1e-5 * scale);
}

TEST_CASE("AdamW: torch.optim.AdamW's first step, decoupled decay, converges on a quadratic") {
  AdamWConfig opt;
  opt.lr = 0.1;
  opt.weight_decay = 0.0;
  // first step: m_hat = g, v_hat = g^2, so w moves by lr * g / (|g| + eps)
  double w = 1.0, m = 0, v = 0;
  const double g = 0.3;
  adamw_update(opt, 1, &w, &g, &m, &v, 1);
  CHECK(w == doctest::Approx(1.0 - 0.1 * 0.3 / (0.3 + 1e-8)).epsilon(1e-15));
  // decay is decoupled: with a zero gradient the weight only shrinks by (1 - lr * wd)
  opt.weight_decay = 0.5;
  double w2 = 2.0, m2 = 0, v2 = 0, zero = 0;
  adamw_update(opt, 1, &w2, &zero, &m2, &v2, 1);
  CHECK(w2 == doctest::Approx(2.0 * (1 - 0.1 * 0.5)).epsilon(1e-15));
  // f(x) = 0.5 * sum a_i (x_i - c_i)^2 with very different curvatures
  opt.weight_decay = 0.0;
  opt.lr = 0.05;
  const double a[3] = {1.0, 10.0, 0.1}, target[3] = {1.0, -2.0, 0.5};
  double x[3] = {0, 0, 0}, mx[3] = {0, 0, 0}, vx[3] = {0, 0, 0}, gx[3];
  for (long long step = 1; step <= 3000; ++step) {
    for (int i = 0; i < 3; ++i) gx[i] = a[i] * (x[i] - target[i]);
    adamw_update(opt, step, x, gx, mx, vx, 3);
  }
  for (int i = 0; i < 3; ++i) CHECK(x[i] == doctest::Approx(target[i]).epsilon(1e-3));
}

TEST_CASE("AdamW steps on the decoder lower the loss of a fixed batch") {
  const DecoderConfig c = tiny(PositionMethod::Alibi);
  DecoderWeights w = init_decoder_weights<double>(c, 7, 0.2);
  AdamWState<double> state = adamw_init<double>(c);
  AdamWConfig opt;
  opt.lr = 0.01;
  const double first = loss_of(c, w);
  for (int step = 0; step < 100; ++step) {
    auto g = decoder_loss_and_grad(c, w, kTokens, kTargets);
    REQUIRE(g.ok());
    adamw_step(c, opt, w, g->grads, state);
  }
  CHECK(state.step == 100);
  CHECK(loss_of(c, w) < 0.5 * first);
}

TEST_CASE("kPositionMethodChoices lists every position method's name, in kAllPositionMethods' order") {
  std::string names;
  for (const PositionMethod m : kAllPositionMethods)
    names += std::string(names.empty() ? "" : ", ") + position_method_name(m);
  CHECK(names == kPositionMethodChoices);  // a new method is named in that string too
  CHECK(std::size(kAllPositionMethods) == std::size_t(PositionMethod::None) + 1);
}
