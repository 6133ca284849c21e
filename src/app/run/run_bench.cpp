// Run it's passkey bench in words and in state().run (app/run/run_bench.hpp).
#include "app/run/run_bench.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/format.hpp"

namespace rv {
namespace {

// The mean of a grid's cells done whose length is inside [lo, hi]; NaN when none is.
double mean_between(const RunStudy& st, const std::vector<std::vector<double>>& g, long long lo, long long hi) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < st.lengths.size(); ++i)
    for (std::size_t j = 0; j < st.depths.size(); ++j)
      if (st.lengths[i] >= lo && st.lengths[i] <= hi && !std::isnan(g[i][j])) sum += g[i][j], ++n;
  return n ? sum / n : std::nan("");
}

std::string percent(double share) {
  return std::isnan(share) ? "n/a" : format_sig(100.0 * share, 3) + "%";
}

}  // namespace

const char* const kBenchCaveat =
    "The grid measures retrieval of an exact string (a 5-digit key copied back, scored teacher-forced: every digit "
    "token the argmax), not understanding: a model can pass it and still fail to use far context for anything else.";

std::vector<long long> bench_lengths(const RunSettings& s) {
  std::vector<long long> out;
  const int n = std::clamp(s.bench_lengths, 1, kPasskeyMaxAxis);
  for (int k = 1; k <= n; ++k) out.push_back(std::max(1LL, s.length * k / n));
  return out;
}

std::vector<double> bench_depths(const RunSettings& s) {
  const int n = std::clamp(s.bench_depths, 1, kPasskeyMaxAxis);
  if (n == 1) return {0.5};
  std::vector<double> out;
  for (int k = 0; k < n; ++k) out.push_back(double(k) / double(n - 1));
  return out;
}

std::string bench_sentence(const RunSession& s) {
  const RunStudy& st = s.study;
  std::string out;
  const long long inside = std::max(1LL, s.trained);
  for (const RunGrid& g : st.grids) {
    if (!g.done) continue;
    const auto in = [&](const std::vector<std::vector<double>>& x) { return mean_between(st, x, 0, inside); };
    const auto past = [&](const std::vector<std::vector<double>>& x) {
      return mean_between(st, x, inside + 1, 1LL << 40);
    };
    const auto logp = [](double v) { return std::isnan(v) ? std::string() : " (" + format_sig(v, 3) + ")"; };
    out += std::string(out.empty() ? "" : "; ") + run_rope_legend(g.rope, s.plan.factor) + " " +
           percent(in(g.accuracy)) + logp(in(g.key_logprob)) + " within " + format_count(inside) + " tokens, " +
           percent(past(g.accuracy)) + logp(past(g.key_logprob)) + " past";
  }
  if (out.empty()) return "";
  return "Passkey, measured on " + s.model_label + " (" + plural(s.plan.passkey.trials, "key", "keys") +
         " a cell; the share of keys found, and in brackets the key's mean log-probability per token, ln(1/10) = "
         "-2.3 for a uniform guess among digits): " +
         out + ".";
}

void bench_state(JsonWriter& j, const RunSession& s) {
  j.key("bench");
  const RunStudy& st = s.study;
  if (st.grids.empty()) {
    j.null();
    return;
  }
  j.begin_object().key("lengths").begin_array();
  for (long long L : st.lengths) j.value(L);
  j.end_array().key("depths").begin_array();
  for (double d : st.depths) j.value(d);
  j.end_array().field("trials", s.plan.passkey.trials).key("grids").begin_array();
  const auto grid = [&j](const char* name, const std::vector<std::vector<double>>& g) {
    j.key(name).begin_array();
    for (const auto& row : g) {
      j.begin_array();
      for (double v : row) j.value(v);  // NaN (not done) is null
      j.end_array();
    }
    j.end_array();
  };
  for (const RunGrid& g : st.grids) {
    j.begin_object().field("rope", run_rope_name(g.rope)).field("done", g.done);
    grid("accuracy", g.accuracy);
    grid("key_logprob", g.key_logprob);
    j.key("errors").begin_array();
    for (const auto& row : g.errors)
      for (const std::string& e : row)
        if (!e.empty()) j.value(e);
    j.end_array().end_object();
  }
  j.end_array().end_object();
}

}  // namespace rv
