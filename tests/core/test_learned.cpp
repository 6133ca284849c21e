// Learned table: deterministic seeded normal(0, 0.02), portable log, lookups and errors; sinusoidal encoding.
#include <doctest/doctest.h>

#include <cmath>

#include "core/base/format.hpp"
#include "core/encodings/learned.hpp"
#include "core/encodings/sinusoidal.hpp"

using namespace rv;

TEST_CASE("portable_log agrees with std::log to a few ulp over many magnitudes") {
  NormalRng rng(99);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(0.5 + 0.5 * rng.uniform(), static_cast<int>(rng.next_u64() % 200) - 100);
    const double ref = std::log(x);
    worst = std::max(worst, std::abs(portable_log(x) - ref) / std::max(std::abs(ref), 1e-300));
  }
  CHECK(worst < 1e-15);  // a few ulp: only determinism matters for the table
  CHECK(portable_log(1.0) == 0.0);
  CHECK(std::abs(portable_log(2.0) - 0.69314718055994530942) < 2e-16);
  CHECK(std::isinf(portable_log(0.0)));
  CHECK(std::isnan(portable_log(-1.0)));
}

TEST_CASE("NormalRng: uniform in [0, 1); normal has mean 0, variance 1, symmetric tails") {
  NormalRng rng(2024);
  const int n = 400000;
  double s = 0, s2 = 0, s4 = 0;
  int beyond2 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    s += z;
    s2 += z * z;
    s4 += z * z * z * z;
    beyond2 += std::abs(z) > 2.0;
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  CHECK(std::abs(mean) < 5.0 / std::sqrt(n));
  CHECK(std::abs(var - 1.0) < 5.0 * std::sqrt(2.0 / n));
  CHECK(std::abs(s4 / n - 3.0) < 0.05);                                // kurtosis of a normal
  CHECK(std::abs(beyond2 / double(n) - 0.0455002638963584) < 0.0025);  // P(|Z| > 2)
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.uniform();
    CHECK((u >= 0.0 && u < 1.0));
  }
}

TEST_CASE("learned_table: shape, std 0.02, deterministic per seed, rows independent of table size") {
  const LearnedTable a = learned_table(1000, 64, 123), b = learned_table(1000, 64, 123),
                     c = learned_table(1000, 64, 124);
  CHECK(a.max_position() == 1000);
  CHECK(a.d() == 64);
  CHECK(a.P == b.P);
  CHECK(a.P != c.P);
  const double mean = a.P.mean();
  const double sd = std::sqrt((a.P.array() - mean).square().mean());
  CHECK(std::abs(mean) < 5 * 0.02 / std::sqrt(64000.0));
  CHECK(std::abs(sd - 0.02) < 0.02 * 5 * std::sqrt(0.5 / 64000.0));
  const LearnedTable small = learned_table(10, 64, 123);
  CHECK(small.P == a.P.topRows(10));
  // pinned value: the same bits on every platform (verified natively and under em++/node), since the
  // generator uses only integer ops, + - * / and sqrt
  CHECK(learned_table(10, 8, 123).P(0, 0) == 0.01951395316827953);
  CHECK(std::abs(learned_table(1, 1, 0).P(0, 0)) < 0.2);
}

TEST_CASE("learned_row and learned_lookup_seeded answer like the whole table, which is never built") {
  const LearnedTable t = learned_table(50, 16, 7);
  for (long long row : {0LL, 1LL, 31LL, 49LL}) {
    CHECK(learned_row(7, row, 16) == t.P.row(row));
    auto seeded = learned_lookup_seeded(50, 16, 7, row);
    REQUIRE(seeded.ok());
    CHECK(*seeded == t.P.row(row));
  }
  CHECK(learned_row(7, 3, 16) != learned_row(8, 3, 16));
  CHECK(learned_row(7, 3, 16) != learned_row(7, 4, 16));
  for (long long bad : {-1LL, 50LL, 1000LL}) {
    auto built = learned_lookup(t, bad);
    auto seeded = learned_lookup_seeded(50, 16, 7, bad);
    REQUIRE_FALSE(seeded.ok());
    CHECK(seeded.error().full() == built.error().full());
  }
  // a table of 131072 x 4096 (537M entries) answers its last row and refuses the next one
  CHECK(learned_lookup_seeded(131072, 4096, 7, 131071).ok());
  CHECK(learned_lookup_seeded(131072, 4096, 7, 131072).error().full() ==
        "IndexError: index 131072 is out of bounds for dimension 0 with size 131072");
}

TEST_CASE("learned_lookup_rows returns rows in request order and reports the first bad position") {
  LearnedTable t;
  t.P.resize(3, 2);
  t.P << 0.1, 0.2, 0.3, 0.4, 0.5, 0.6;
  auto r = learned_lookup_rows(t, {2, 0, 2});
  REQUIRE(r.ok());
  CHECK(r->rows() == 3);
  CHECK(r.value()(0, 1) == 0.6);
  CHECK(r.value()(1, 0) == 0.1);
  CHECK(learned_lookup_rows(t, {1, 7, -1}).error().message == "index 7 is out of bounds for dimension 0 with size 3");
  CHECK(learned_lookup_rows(t, {-1, 7}).error().message == "index -1 is out of bounds for dimension 0 with size 3");
  CHECK(learned_lookup_rows(t, {}).ok());
}

TEST_CASE("Expected and Error basics") {
  Expected<int> good(3), bad(index_error(5, 2));
  CHECK(good.ok());
  CHECK(*good == 3);
  CHECK_FALSE(bad.has_value());
  CHECK(bad.value_or(7) == 7);
  CHECK(bad.error().full() == "IndexError: index 5 is out of bounds for dimension 0 with size 2");
  CHECK(format_number(100.0) == "100");
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(1.0 / 3.0) == "0.3333333333333333");
}

TEST_CASE("sinusoidal: PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...)") {
  const Eigen::MatrixXd pe = sinusoidal(4, {0, 1, 100});
  CHECK(pe.rows() == 3);
  CHECK(pe.cols() == 4);
  CHECK(pe(0, 0) == 0.0);
  CHECK(pe(0, 1) == 1.0);
  CHECK(pe(1, 0) == std::sin(1.0));
  CHECK(pe(1, 1) == std::cos(1.0));
  CHECK(pe(1, 2) == doctest::Approx(std::sin(0.01)).epsilon(1e-15));  // 10000^(2/4) = 100
  CHECK(pe(2, 3) == doctest::Approx(std::cos(1.0)).epsilon(1e-15));
  const Eigen::MatrixXd big = sinusoidal(512, {0, 5, 77, 4095});
  for (Eigen::Index r = 0; r < big.rows(); ++r)
    for (int i = 0; i < 256; ++i)
      CHECK(std::abs(big(r, 2 * i) * big(r, 2 * i) + big(r, 2 * i + 1) * big(r, 2 * i + 1) - 1.0) < 1e-15);
}
