// The lesson's section-3 verification (and its exercises' numbers) computed, not asserted: each Check says what held.
#include "core/lesson/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/base/format.hpp"
#include "core/encodings/frameworks.hpp"
#include "core/encodings/learned.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

namespace rv {
namespace {
std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}
std::string shortest(double x) {
  return format_number(x);
}
std::string vec_str(const Eigen::VectorXd& v) {
  std::string s = "[";
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + shortest(v[i]);
  return s + "]";
}
Tensor4d random_tensor(const Dims& k, NormalRng& rng) {
  Tensor4d t({k.B, k.T, k.h, k.d_head});
  for (double& x : t.data) x = rng.normal();
  return t;
}
}  // namespace

OffsetProbes offset_probes(const VerifyConfig& cfg) {
  const long long n = cfg.dims.max_position;
  if (!cfg.fit_to_table) return {cfg.position_in, n - 1, cfg.position_out};
  return {std::min(cfg.position_in, n - 1), n - 1, std::max(cfg.position_out, n)};
}

bool all_ok(const std::vector<Check>& checks) {
  for (const Check& c : checks)
    if (!c.ok) return false;
  return true;
}

std::vector<Check> lesson_checks(const VerifyConfig& cfg) {
  std::vector<Check> out;
  const Dims& k = cfg.dims;
  const int dh = k.d_head;
  const Eigen::VectorXd theta = rope_inv_freq(dh, cfg.base);
  const OffsetProbes probe = offset_probes(cfg);
  const std::string n_rows = std::to_string(k.max_position);

  // 3.1: theta_i = 10000^(-2i/d_head) = [1, 0.1, 0.01, 0.001] for d_head = 8
  {
    bool ok = true;
    for (int i = 0; i < dh / 2; ++i)
      ok = ok && std::abs(theta[i] - std::pow(cfg.base, -2.0 * i / dh)) <= 1e-15 * theta[i];
    if (dh == 8 && cfg.base == 10000.0)
      ok = ok && theta[0] == 1.0 && theta[1] == 0.1 && theta[2] == 0.01 && theta[3] == 0.001;
    out.push_back({"theta_i = base^(-2i/d_head)", ok, "theta = " + vec_str(theta)});
  }
  {  // exercise 3: angle at m = 3, pair 0 is 3 rad; section 3.1: angles at 100 are [100, 10, 1, 0.1]
    const double a3 = rope_angles(3, theta)[0];
    out.push_back({"angle at m=3, pair 0", a3 == 3.0 * theta[0], shortest(a3) + " rad"});
    const Eigen::VectorXd a100 = rope_angles(static_cast<double>(probe.past), theta);
    bool ok = true;
    for (int i = 0; i < dh / 2; ++i) ok = ok && a100[i] == static_cast<double>(probe.past) * theta[i];
    out.push_back({"angles at position " + std::to_string(probe.past), ok, "angle = " + vec_str(a100)});
  }

  // 3.2: the lesson's learned table [max_position, d_head] (pos_table = randn(10, d_head)): rows 0 .. max_position - 1
  // work, max_position and beyond raise IndexError.
  // Rows drawn on demand (learned_lookup_seeded): the same answers as the built table, at any max_position.
  const auto lookup = [&](long long position) { return learned_lookup_seeded(k.max_position, dh, cfg.seed, position); };
  {
    const std::string width = "row of width d_head = " + std::to_string(dh) +
                              " (the lesson's table [max_position, d_head] = [" + n_rows + ", " + std::to_string(dh) +
                              "])";
    auto row = lookup(probe.in_range);
    out.push_back({"learned P[" + std::to_string(probe.in_range) + "] (in range)", row.ok() && row.value().size() == dh,
                   row.ok() ? width : row.error().full()});
    auto edge = lookup(probe.edge);
    out.push_back({"learned P[" + std::to_string(probe.edge) + "] (the last row)",
                   edge.ok() && edge.value().size() == dh, edge.ok() ? width : edge.error().full()});
    auto bad = lookup(probe.past);
    const std::string expect =
        "IndexError: index " + std::to_string(probe.past) + " is out of bounds for dimension 0 with size " + n_rows;
    out.push_back({"learned P[" + std::to_string(probe.past) + "] (past the table)",
                   !bad.ok() && bad.error().full() == expect,
                   bad.ok() ? "lookup unexpectedly succeeded" : bad.error().full()});
    // ropeviz's lookup refuses negatives; what PyTorch does differs by API: nn.Embedding raises its own message,
    // tensor indexing wraps -1 to the last row.
    auto neg = lookup(-1);
    const std::vector<FrameworkLookup> torch = framework_lookups(-1, k.max_position);
    out.push_back({"learned P[-1] is refused by ropeviz's lookup", !neg.ok() && neg.error().type == "IndexError",
                   "ropeviz: " + (neg.ok() ? std::string("lookup unexpectedly succeeded") : neg.error().full()) +
                       "; PyTorch nn.Embedding (CPU) raises " + torch[1].text + "; tensor indexing pos_table[-1] " +
                       torch[0].text});
  }

  // 3.2: RoPE works at both positions; 3.3: norm kept (lesson: < 1e-5; float64 gives ~1e-15)
  NormalRng rng(cfg.seed);
  const Tensor4d q = random_tensor(k, rng);
  Eigen::MatrixXd rows(k.B * k.T * k.h, dh);  // every [d_head] vector of Q
  for (Eigen::Index r = 0; r < rows.rows(); ++r)
    for (int j = 0; j < dh; ++j) rows(r, j) = q.data[static_cast<std::size_t>(r) * dh + j];
  for (long long pos : {probe.in_range, probe.past}) {
    const double diff = rope_norm_max_diff(rows, static_cast<double>(pos), theta, Pairing::Interleaved);
    out.push_back({"RoPE at position " + std::to_string(pos) + ": norm kept", std::isfinite(diff) && diff < 1e-12,
                   fmt("max | ||RoPE(q)|| - ||q|| | = %.3g (lesson bound 1e-5)", diff)});
  }

  // 2.3: shapes [B, T, h, d_head] in and out; V untouched
  {
    Qkv in{q, random_tensor(k, rng), random_tensor(k, rng)};
    std::vector<double> positions;
    for (int t = 0; t < k.T; ++t) positions.push_back(t);
    const Qkv outq = apply_rope_qkv(in, positions, theta, Pairing::Interleaved);
    const bool shapes = outq.q.shape == in.q.shape && outq.k.shape == in.k.shape && outq.v.shape == in.v.shape;
    out.push_back({"Q_rope, K_rope shapes", shapes,
                   "[" + std::to_string(k.B) + ", " + std::to_string(k.T) + ", " + std::to_string(k.h) + ", " +
                       std::to_string(dh) + "] in and out"});
    out.push_back({"V not rotated", outq.v.data == in.v.data, "V bitwise identical after RoPE"});
    out.push_back({"position 0 is the identity",
                   apply_rope(rows.row(0).transpose(), 0.0, theta, Pairing::Interleaved) ==
                       Eigen::VectorXd(rows.row(0).transpose()),
                   "RoPE(x, 0) == x exactly"});
  }

  // 2.4: the score depends only on m - n
  {
    const Eigen::VectorXd qv = rows.row(0).transpose(), kv = rows.row(1).transpose();
    const double s1 = rope_score(qv, kv, 5, 3, theta, Pairing::Interleaved);
    const double s2 = rope_score(qv, kv, 102, 100, theta, Pairing::Interleaved);
    out.push_back({"score(5, 3) == score(102, 100)", std::abs(s1 - s2) < 1e-12,
                   shortest(s1) + " vs " + shortest(s2) + fmt(" (diff %.2g)", std::abs(s1 - s2))});
  }

  // Exercises 1 and 2: parameters and a 2048-row table at length 4096
  {
    const long long learned = learned_param_count(cfg.exercise_max_position, k.d());
    out.push_back({"exercise 1: parameters",
                   learned == static_cast<long long>(cfg.exercise_max_position) * k.d() &&
                       (cfg.exercise_max_position != 2048 || k.d() != 32 || learned == 65536),
                   std::to_string(cfg.exercise_max_position) + " x " + std::to_string(k.d()) + " = " +
                       std::to_string(learned) + " learned; RoPE 0"});
    LearnedTable big;
    big.P = RowMatrixXd::Zero(cfg.exercise_max_position, 1);
    auto fail = learned_lookup(big, 2 * cfg.exercise_max_position - 1);
    const Eigen::VectorXd far =
        apply_rope(rows.row(0).transpose(), 2.0 * cfg.exercise_max_position - 1, theta, Pairing::Interleaved);
    out.push_back({"exercise 2: length " + std::to_string(2 * cfg.exercise_max_position), !fail.ok() && far.allFinite(),
                   "learned: " + (fail.ok() ? std::string("no error") : fail.error().full()) +
                       "; RoPE: finite rotation at position " + std::to_string(2 * cfg.exercise_max_position - 1)});
  }
  return out;
}

}  // namespace rv
