// Tiny decoder at given positions: 0..T-1 given is no positions bit for bit, gradients, shift invariance, learned's
// table, errors, the batched engine and its allocations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "alloc_counter.hpp"
#include "core/base/random.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_workspace.hpp"
#include "decoder_fixtures.hpp"
#include "malloc_counter.hpp"

using namespace rv;
using namespace rv::test;

namespace {

// Positions shaped like x, each from [0, R), seeded; each row sorted unless asked otherwise.
TokenRows positions_like(const TokenRows& x, long long R, std::uint64_t seed, bool sorted = true) {
  TokenRows p;
  for (std::size_t b = 0; b < x.size(); ++b) p.push_back(test::random_positions(x[b].size(), R, seed + b, sorted));
  return p;
}

TokenRows plus(TokenRows p, long long k) {
  for (std::vector<long long>& row : p)
    for (long long& v : row) v += k;
  return p;
}

// Error text of decoder_loss_and_grad, or "" when it answers.
std::string grad_error(const DecoderConfig& c, const DecoderWeights& w, const TokenRows& x, const TokenRows& y,
                       const TokenRows* at) {
  const auto g = decoder_loss_and_grad(c, w, x, y, at);
  return g.ok() ? std::string() : g.error().full();
}

// Whether every gradient entry of a and b is the same double.
bool same_grads(const DecoderConfig& c, const DecoderWeights& a, const DecoderWeights& b) {
  const auto x = weight_refs(c, a), y = weight_refs(c, b);
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!std::equal(x[k].data, x[k].data + x[k].size, y[k].data)) return false;
  return true;
}

// The range positions_like draws from for a method: learned's inside its table of 8 rows.
long long range_for(PositionMethod m) {
  return m == PositionMethod::Learned ? 8 : 100;
}

}  // namespace

TEST_CASE("positions 0..T-1 given explicitly are no positions, bit for bit: loss, logits, every gradient") {
  const TokenRows iota = {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}};
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    const DecoderConfig c = tiny(k.m, k.p);
    const DecoderWeights w = random_weights(c, 31);
    const auto a = decoder_loss_and_grad(c, w, kTokens, kTargets),
               b = decoder_loss_and_grad(c, w, kTokens, kTargets, &iota);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->loss == b->loss);
    CHECK(same_grads(c, a->grads, b->grads));
    const auto fa = decoder_forward(c, w, kTokens, kTargets), fb = decoder_forward(c, w, kTokens, kTargets, &iota);
    REQUIRE(fa.ok());
    REQUIRE(fb.ok());
    for (std::size_t s = 0; s < 2; ++s) CHECK(fa->logits[s] == fb->logits[s]);
  }
}

TEST_CASE("gradients at random positions match finite differences, every method") {
  for (const MethodCase& k : kMethodCases) {
    const DecoderConfig c = tiny(k.m, k.p);
    const TokenRows sorted = positions_like(kTokens, range_for(k.m), 41),
                    unsorted = positions_like(kTokens, range_for(k.m), 43, false);
    const double worst = worst_fd_error(c, 17, kTargets, &sorted),
                 mixed = worst_fd_error(c, 19, kLateTargets, &unsorted);
    std::printf("finite differences at positions %-22s sorted %.3g, unsorted (late answers) %.3g\n",
                case_name(k).c_str(), worst, mixed);
    CAPTURE(case_name(k));
    CHECK(worst < 1e-6);
    CHECK(mixed < 1e-6);
  }
}

TEST_CASE("shift invariance: one constant added to every position moves learned and sinusoidal only") {
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    const DecoderConfig c = tiny(k.m, k.p);
    const DecoderWeights w = random_weights(c, 47);
    const bool learned = k.m == PositionMethod::Learned;
    const TokenRows at = positions_like(kTokens, learned ? 4 : 50, 49);
    const TokenRows moved = plus(at, learned ? 4 : 1000);  // learned: inside its table of 8
    const auto a = decoder_forward(c, w, kTokens, kTargets, &at), b = decoder_forward(c, w, kTokens, kTargets, &moved);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    double diff = 0, scale = 0;
    for (std::size_t s = 0; s < 2; ++s) {
      diff = std::max(diff, (a->logits[s] - b->logits[s]).cwiseAbs().maxCoeff());
      scale = std::max(scale, a->logits[s].cwiseAbs().maxCoeff());
    }
    std::printf("shift invariance %-22s max |logits moved - logits| / max |logit| %.3g\n", case_name(k).c_str(),
                diff / scale);
    if (learned || k.m == PositionMethod::Sinusoidal)
      CHECK(diff > 1e-3 * scale);
    else
      CHECK(diff <= 1e-12 * scale);
  }
}

TEST_CASE("learned: a position of max_position is PyTorch's IndexError; max_position - 1 works in a short row") {
  const DecoderConfig c = tiny(PositionMethod::Learned);  // 8 rows
  const DecoderWeights w = random_weights(c, 53);
  const TokenRows x = {{1, 4}}, y = {{4, 2}}, last = {{0, 7}};
  const auto g = decoder_loss_and_grad(c, w, x, y, &last);
  REQUIRE(g.ok());
  for (Eigen::Index r = 0; r < 8; ++r) CHECK(g->grads.pos_emb.row(r).isZero(0.0) == (r != 0 && r != 7));
  const TokenRows past = {{0, 8}}, two_past = {{9, 8}};
  CHECK(grad_error(c, w, x, y, &past) == "IndexError: index 8 is out of bounds for dimension 0 with size 8");
  CHECK(grad_error(c, w, x, y, &two_past) == "IndexError: index 9 is out of bounds for dimension 0 with size 8");
  const auto f = decoder_forward(c, w, x, y, &past);
  REQUIRE(!f.ok());
  CHECK(f.error().full() == "IndexError: index 8 is out of bounds for dimension 0 with size 8");
  const TokenRows far = {{1000, 1001}};  // no table to run off for the others
  for (PositionMethod m : kAllPositionMethods)
    if (m != PositionMethod::Learned) CHECK(grad_error(tiny(m), random_weights(tiny(m), 53), x, y, &far).empty());
}

TEST_CASE("positions errors: shape and sign are BadRequests naming positions") {
  const DecoderConfig c = tiny(PositionMethod::Rope);
  const DecoderWeights w = random_weights(c, 59);
  const TokenRows x = {{1, 2, 3}, {4, 5, 6}}, y = {{1, 1, 1}, {1, 1, 1}};
  const TokenRows one_row = {{0, 1, 2}}, ragged = {{0, 1, 2}, {0, 1}}, negative = {{0, 1, 2}, {0, -1, 2}};
  CHECK(grad_error(c, w, x, y, &one_row) == "BadRequest: \"positions\" must have 2 rows like \"tokens\", got 1");
  CHECK(grad_error(c, w, x, y, &ragged) == "BadRequest: \"positions\" row [1] must have length 3, got 2");
  CHECK(grad_error(c, w, x, y, &negative) == "BadRequest: \"positions\" must be >= 0, got -1");
  CHECK(grad_error(tiny(PositionMethod::Learned), random_weights(tiny(PositionMethod::Learned), 59), x, y, &negative) ==
        "BadRequest: \"positions\" must be >= 0, got -1");
  SequenceBatch b = sequence_batch(x, y);
  b.position = {0, 1, 2};
  CHECK(check_sequence_batch(c, b)->full() == "BadRequest: \"positions\" must hold one position per row (6), got 3");
  b.clear();
  CHECK(b.position.empty());
}

TEST_CASE("batched engine at positions: sequences at their own positions in one batch equal separate calls") {
  // a: T 3 at sorted positions, b: T 6 at 0..5 (none given), c: T 3 at unsorted positions; 2, 5 and 2 answers
  const TokenRows xa = {{1, 4, 6}}, ya = {{4, -1, 2}}, pa = {{3, 9, 40}};
  const TokenRows xb = {{3, 3, 1, 0, 6, 2}}, yb = {{-1, 1, 0, 6, 2, 5}};
  const TokenRows xc = {{2, 0, 5}}, yc = {{0, -1, 1}}, pc = {{7, 2, 5}};
  SequenceBatch batch;
  for (const auto& [x, y] : {std::pair{xa[0], ya[0]}, std::pair{xb[0], yb[0]}, std::pair{xc[0], yc[0]}}) {
    const int r0 = batch.append(static_cast<int>(x.size()));
    std::copy(x.begin(), x.end(), batch.tokens.begin() + r0);
    std::copy(y.begin(), y.end(), batch.targets.begin() + r0);
  }
  batch.set_positions(0, pa[0].data());
  batch.set_positions(2, pc[0].data());
  CHECK(batch.position == std::vector<long long>{3, 9, 40, 0, 1, 2, 3, 4, 5, 7, 2, 5});
  DecoderWorkspace<double> ws;  // shared by every config and batch below
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    DecoderConfig c = tiny(k.m, k.p);
    c.max_position = 41;
    const DecoderWeights w = random_weights(c, 61);
    const auto ga = decoder_loss_and_grad(c, w, xa, ya, &pa), gb = decoder_loss_and_grad(c, w, xb, yb),
               gc = decoder_loss_and_grad(c, w, xc, yc, &pc);
    REQUIRE(ga.ok());
    REQUIRE(gb.ok());
    REQUIRE(gc.ok());
    REQUIRE(!check_sequence_batch(c, batch));
    const double loss = batch_forward(c, w, batch, ws, true);
    CHECK(loss == doctest::Approx((2 * ga->loss + 5 * gb->loss + 2 * gc->loss) / 9).epsilon(1e-14));
    batch_backward(c, w, batch, ws);
    const auto g = weight_refs(c, std::as_const(ws.grad)), a = weight_refs(c, ga->grads), b = weight_refs(c, gb->grads),
               e = weight_refs(c, gc->grads);
    double worst = 0, scale = 0;
    for (std::size_t n = 0; n < g.size(); ++n)
      for (long long i = 0; i < g[n].size; ++i) {
        const double want = (2 * a[n].data[i] + 5 * b[n].data[i] + 2 * e[n].data[i]) / 9;
        worst = std::max(worst, std::abs(g[n].data[i] - want));
        scale = std::max(scale, std::abs(want));
      }
    CHECK(worst < 1e-13 * scale);
    // the workspace's tables now reach position 40 and c's negative distances; a batch without positions after it
    // is still bit for bit that of a workspace which only saw rows as long (the stride of its attention rows: where
    // Eigen's vectorised sums start, and so their rounding, follows their addresses)
    DecoderWorkspace<double> fresh;
    batch_forward(c, w, sequence_batch(xb, yb), fresh, true);
    const SequenceBatch plain = sequence_batch(kTokens, kTargets);
    CHECK(batch_forward(c, w, plain, ws, true) == batch_forward(c, w, plain, fresh, true));
    batch_backward(c, w, plain, ws);
    batch_backward(c, w, plain, fresh);
    CHECK(same_grads(c, ws.grad, fresh.grad));
  }
}

TEST_CASE("batched engine: refilling a batch at new positions allocates nothing after the first pass") {
  for (const MethodCase& k : kMethodCases) {
    CAPTURE(case_name(k));
    const DecoderConfig c = tiny(k.m, k.p);
    const DecoderWeights w = random_weights(c, 67);
    const long long R = k.m == PositionMethod::Learned ? 8 : 3000;  // positions from [0, R), sorted
    SequenceBatch batch;
    DecoderWorkspace<double> ws;
    std::vector<long long> at(8);
    NormalRng rng(71);
    const auto refill = [&](bool reach_top) {
      batch.clear();
      for (int s = 0; s < 4; ++s) {
        const int T = 5 + s % 2 * 3, r0 = batch.append(T);
        for (int t = 0; t < T; ++t) {
          batch.tokens[static_cast<std::size_t>(r0 + t)] = static_cast<long long>(rng.uniform() * c.vocab);
          batch.targets[static_cast<std::size_t>(r0 + t)] =
              t % 2 ? -1 : static_cast<long long>(rng.uniform() * c.vocab);
          at[static_cast<std::size_t>(t)] = static_cast<long long>(rng.uniform() * static_cast<double>(R));
        }
        std::sort(at.begin(), at.begin() + T);
        if (reach_top) at[static_cast<std::size_t>(T - 1)] = R - 1;  // the tables' largest position
        batch.set_positions(s, at.data());
      }
    };
    refill(true);
    batch_forward(c, w, batch, ws, true);
    batch_backward(c, w, batch, ws);
    const long long news = allocations(), mallocs_before = mallocs();
    for (int step = 0; step < 10; ++step) {
      refill(false);
      batch_forward(c, w, batch, ws, true);
      batch_backward(c, w, batch, ws);
    }
    const long long new_calls = allocations() - news, malloc_calls = mallocs() - mallocs_before;
    INFO(new_calls, " operator new, ", malloc_calls, " malloc");
    CHECK(!check_sequence_batch(c, batch));
    CHECK(new_calls == 0);
    CHECK(malloc_calls == 0);
  }
}
