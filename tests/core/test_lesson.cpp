// Every numeric fact of the lesson the app is built from, checked against the core.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/encodings/learned.hpp"
#include "core/lesson/shape_trace.hpp"
#include "core/lesson/verify.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

using namespace rv;

TEST_CASE("lesson 2.3 / exercise 3: theta for d_head 8 is [1, 0.1, 0.01, 0.001]") {
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  REQUIRE(theta.size() == 4);
  CHECK(theta[0] == 1.0);
  CHECK(theta[1] == 0.1);
  CHECK(theta[2] == 0.01);
  CHECK(theta[3] == 0.001);
}

TEST_CASE("lesson 2.3 / exercise 3: angle at m=3 is 3.0 rad and at m=50 is 50 rad for pair 0") {
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  CHECK(rope_angles(3, theta)[0] == 3.0);
  CHECK(rope_angles(50, theta)[0] == 50.0);
}

TEST_CASE("lesson 3.1: angles at position 100 are [100, 10, 1, 0.1], not reduced mod 2pi") {
  const Eigen::VectorXd a = rope_angles(100, rope_inv_freq(8, 10000.0));
  CHECK(a[0] == 100.0);
  CHECK(a[1] == 10.0);
  CHECK(a[2] == 1.0);
  CHECK(a[3] == doctest::Approx(0.1).epsilon(1e-15));
}

TEST_CASE("lesson 3.2: learned table of 10 rows serves position 5 and raises IndexError at 100") {
  const LearnedTable P = learned_table(10, 8, 123);
  auto ok = learned_lookup(P, 5);
  REQUIRE(ok.ok());
  CHECK(ok.value().size() == 8);
  CHECK(ok.value() == P.P.row(5));
  auto bad = learned_lookup(P, 100);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().type == "IndexError");
  CHECK(bad.error().message == "index 100 is out of bounds for dimension 0 with size 10");
  CHECK(bad.error().full() == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
  CHECK(learned_lookup(P, 10).error().message == "index 10 is out of bounds for dimension 0 with size 10");
  CHECK(learned_lookup(P, 9).ok());
}

TEST_CASE("negative positions: ropeviz's lookup raises (as nn.Embedding does) in tensor indexing's message format") {
  const LearnedTable P = learned_table(10, 8, 123);
  CHECK(learned_lookup(P, -1).error().message == "index -1 is out of bounds for dimension 0 with size 10");
  CHECK(learned_lookup(P, -11).error().full() == "IndexError: index -11 is out of bounds for dimension 0 with size 10");
}

TEST_CASE("lesson 3.2: RoPE works at position 5 and at position 100") {
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(8, -1.0, 2.5);
  for (double m : {5.0, 100.0}) {
    const Eigen::VectorXd y = apply_rope(x, m, theta, Pairing::Interleaved);
    CHECK(y.allFinite());
    CHECK((y - x).norm() > 0.1);  // really rotated
  }
}

TEST_CASE("lesson 3.3: norm preservation on Q [2, 5, 4, 8]: max diff < 1e-5 (ours ~1e-15)") {
  NormalRng rng(123);
  Eigen::MatrixXd Q(2 * 5 * 4, 8);
  for (Eigen::Index i = 0; i < Q.size(); ++i) Q.data()[i] = rng.normal();
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  Eigen::VectorXd positions(Q.rows());
  for (Eigen::Index r = 0; r < Q.rows(); ++r) positions[r] = static_cast<double>((r / 4) % 5);  // t of [B,T,h] row
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    CHECK(rope_norm_max_diff(Q, positions, theta, p) < 1e-5);
    CHECK(rope_norm_max_diff(Q, positions, theta, p) < 1e-14);
    CHECK(rope_norm_max_diff(Q, 100.0, theta, p) < 1e-14);
    CHECK(rope_norm_max_diff(Q, 1e6, theta, p) < 1e-14);
  }
}

TEST_CASE("lesson 2.3 / exercise 4: shapes [2,5,4,8] in and out; V unchanged; Q and K rotated") {
  NormalRng rng(7);
  Qkv in;
  for (Tensor4d* t : {&in.q, &in.k, &in.v}) {
    *t = Tensor4d({2, 5, 4, 8});
    for (double& x : t->data) x = rng.normal();
  }
  const std::vector<double> positions{0, 1, 2, 3, 4};
  const Qkv out = apply_rope_qkv(in, positions, rope_inv_freq(8, 10000.0), Pairing::Interleaved);
  const std::array<long long, 4> shape{2, 5, 4, 8};
  CHECK(out.q.shape == shape);
  CHECK(out.k.shape == shape);
  CHECK(out.v.shape == shape);
  CHECK(out.v.data == in.v.data);
  CHECK(out.q.data != in.q.data);
  CHECK(out.k.data != in.k.data);
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 4; ++h)
      for (int j = 0; j < 8; ++j) CHECK(out.q(b, 0, h, j) == in.q(b, 0, h, j));  // t = 0: identity
}

TEST_CASE("exercise 1: 2048 x 32 = 65,536 learned parameters vs 0 for RoPE") {
  CHECK(learned_param_count(2048, 32) == 65536);
  Dims d;
  d.max_position = 2048;
  CHECK(param_counts(d).learned_position == 65536);
  CHECK(param_counts(d).rope == 0);
  CHECK(learned_param_count(10, 32) == 320);
}

TEST_CASE("exercise 2: trained at 2048, run at 4096: learned fails at index 2048, RoPE computes position 4095") {
  LearnedTable P;
  P.P = RowMatrixXd::Zero(2048, 32);
  std::vector<long long> positions;
  for (long long t = 0; t < 4096; ++t) positions.push_back(t);
  auto rows = learned_lookup_rows(P, positions);
  REQUIRE_FALSE(rows.ok());
  CHECK(rows.error().message == "index 2048 is out of bounds for dimension 0 with size 2048");
  const Eigen::VectorXd y = apply_rope(Eigen::VectorXd::Ones(8), 4095, rope_inv_freq(8, 10000.0), Pairing::Interleaved);
  CHECK(y.allFinite());
  CHECK(std::abs(y.norm() - std::sqrt(8.0)) < 1e-14);
}

TEST_CASE("lesson 1.3: E[token_ids] + P[positions] is [2, 5, 32] and broadcasts P over the batch") {
  const Dims k;
  NormalRng rng(5);
  RowMatrixXd E(k.V, k.d());
  for (Eigen::Index i = 0; i < E.size(); ++i) E.data()[i] = rng.normal();
  const LearnedTable P = learned_table(k.max_position, k.d(), 9);
  std::vector<long long> ids{1, 2, 3, 4, 5, 99, 0, 7, 7, 7};
  auto h = learned_embed(E, P, ids, k.B, k.T);
  REQUIRE(h.ok());
  CHECK(h->shape == std::array<long long, 3>{2, 5, 32});
  CHECK(h.value()(1, 0, 3) == E(99, 3) + P.P(0, 3));
  CHECK(h.value()(0, 4, 31) == E(5, 31) + P.P(4, 31));
  auto past = learned_embed(E, P, ids, k.B, k.T, 6);  // positions 6..10: 10 is out of range
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().full() == "IndexError: index 10 is out of bounds for dimension 0 with size 10");
  ids[3] = 100;
  CHECK(learned_embed(E, P, ids, k.B, k.T).error().message ==
        "index 100 is out of bounds for dimension 0 with size 100");
}

TEST_CASE("shape trace for the lesson's dims") {
  const std::vector<ShapeStep> s = shape_trace(Dims{});
  auto find = [&](const std::string& name) {
    for (const ShapeStep& st : s)
      if (st.name == name) return shape_str(st.shape);
    return std::string("missing");
  };
  CHECK(find("token_ids") == "[2, 5]");
  CHECK(find("E[token_ids]") == "[2, 5, 32]");
  CHECK(find("P[positions]") == "[5, 32]");
  CHECK(find("E[token_ids] + P[positions]") == "[2, 5, 32]");
  CHECK(find("Q") == "[2, 5, 4, 8]");
  CHECK(find("view_as_complex(Q)") == "[2, 5, 4, 4]");
  CHECK(find("freqs_cis") == "[5, 4]");
  CHECK(find("reshape_for_broadcast(freqs_cis)") == "[1, 5, 1, 4]");
  CHECK(find("Q_rope") == "[2, 5, 4, 8]");
  CHECK(find("K_rope") == "[2, 5, 4, 8]");
  CHECK(find("V (after RoPE)") == "[2, 5, 4, 8]");
  Dims big{1, 4096, 32, 128, 32000, 4096};
  CHECK(shape_str(shape_trace(big)[12].shape) == "[1, 4096, 32, 128]");
  CHECK(param_counts(big).learned_position == 4096LL * 4096);
}

TEST_CASE("lesson_checks: all hold for the lesson, and a failing claim is reported as failing") {
  const std::vector<Check> checks = lesson_checks();
  CHECK(checks.size() >= 12);
  for (const Check& c : checks) {
    INFO(c.name << ": " << c.detail);
    CHECK(c.ok);
  }
  CHECK(all_ok(checks));
  VerifyConfig bad;
  bad.fit_to_table = false;
  bad.position_out = 9;  // inside the table: the "IndexError at position_out" claim must fail
  CHECK_FALSE(all_ok(lesson_checks(bad)));
}

TEST_CASE("lesson_checks: no table size makes a check fail, the probes follow max_position") {
  for (int n : {1, 2, 10, 11, 100, 101, 1024, 1 << 20}) {
    VerifyConfig cfg;
    cfg.dims.max_position = n;
    const OffsetProbes probe = offset_probes(cfg);
    CHECK(probe.in_range == std::min(5, n - 1));
    CHECK(probe.edge == n - 1);
    CHECK(probe.past == std::max(100, n));
    for (const Check& c : lesson_checks(cfg)) {
      INFO("max_position " << n << ", " << c.name << ": " << c.detail);
      CHECK(c.ok);
    }
  }
  const std::vector<Check> lesson = lesson_checks();  // the lesson's literal probes with its 10 rows
  auto has = [&](const std::string& name) {
    for (const Check& c : lesson)
      if (c.name == name) return true;
    return false;
  };
  CHECK(has("learned P[5] (in range)"));
  CHECK(has("learned P[9] (the last row)"));
  CHECK(has("learned P[100] (past the table)"));
}
