// The passkey bench (core/infer/passkey.hpp): the prompt, the keys, the filler's bisection, the teacher-forced score.
#include "core/infer/passkey.hpp"

#include <cmath>

#include "core/base/format.hpp"
#include "core/base/random.hpp"

namespace rv {
namespace {

constexpr const char* kTask =
    "There is an important info hidden inside a lot of irrelevant text. Find it and memorize them. I will quiz you "
    "about the important information there.";
constexpr std::string_view kFiller =
    "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
constexpr const char* kQuestion = "What is the pass key? The pass key is";

// The first `chars` characters of kFiller + " " + kFiller + " " + ...
std::string filler(long long chars) {
  std::string out;
  out.reserve(std::size_t(chars) + kFiller.size());
  while ((long long)out.size() < chars) {
    if (!out.empty()) out += ' ';
    out += kFiller;
  }
  out.resize(std::size_t(chars));
  return out;
}

// One trial: the ids of its prompt and answer at the largest filler within `length` tokens (docs/passkey.md's
// bisection), and where the answer starts.
struct Trial {
  std::vector<long long> ids;
  std::size_t answer_at = 0;
};

Expected<Trial> build_trial(const PasskeyRequest& r, long long key, long long length, double depth) {
  Expected<std::vector<long long>> answer = r.encode_answer(passkey_answer(key));
  if (!answer) return answer.error();
  const auto count = [&](long long c) { return r.encode(passkey_prompt(key, c, depth)); };
  long long lo = 0, hi = 16 * length;
  Expected<std::vector<long long>> fixed = count(0);
  if (!fixed) return fixed.error();
  const long long least = (long long)(fixed->size() + answer->size());
  if (least > length)
    return bad_request("\"lengths\": " + format_count(length) + " tokens is shorter than the prompt without filler (" +
                       format_count(least) + " tokens)");
  while (lo < hi) {
    const long long mid = (lo + hi + 1) / 2;
    Expected<std::vector<long long>> ids = count(mid);
    if (!ids) return ids.error();
    if ((long long)(ids->size() + answer->size()) <= length)
      lo = mid;
    else
      hi = mid - 1;
  }
  Expected<std::vector<long long>> prompt = count(lo);
  if (!prompt) return prompt.error();
  Trial t;
  t.ids = std::move(*prompt);
  t.answer_at = t.ids.size();
  t.ids.insert(t.ids.end(), answer->begin(), answer->end());
  return t;
}

std::optional<Error> check(const PasskeyRequest& r) {
  const auto axis = [](const char* name, std::size_t n) -> std::optional<Error> {
    if (n < 1 || n > std::size_t(kPasskeyMaxAxis))
      return bad_request(std::string("\"") + name + "\" must hold 1 to " + std::to_string(kPasskeyMaxAxis) +
                         " values, got " + std::to_string(n));
    return std::nullopt;
  };
  if (auto e = axis("lengths", r.lengths.size())) return e;
  if (auto e = axis("depths", r.depths.size())) return e;
  for (long long L : r.lengths)
    if (L < 1 || L > kMaxForwardTokens)
      return bad_request("\"lengths\": " + std::to_string(L) + " is outside [1, " + format_count(kMaxForwardTokens) +
                         "]");
  for (double d : r.depths)
    if (!(d >= 0.0 && d <= 1.0)) return bad_request("\"depths\": " + format_number(d) + " is outside [0, 1]");
  if (r.trials < 1 || r.trials > kPasskeyMaxTrials)
    return bad_request("\"trials\" must be in [1, " + std::to_string(kPasskeyMaxTrials) + "], got " +
                       std::to_string(r.trials));
  return std::nullopt;
}

}  // namespace

std::string passkey_prompt(long long key, long long filler_chars, double depth) {
  const long long before = (long long)std::floor(depth * double(filler_chars));
  const std::string k = std::to_string(key);
  return std::string(kTask) + "\n" + filler(before) + "\nThe pass key is " + k + ". Remember it. " + k +
         " is the pass key.\n" + filler(filler_chars - before) + "\n" + kQuestion;
}

std::string passkey_answer(long long key) {
  return " " + std::to_string(key);
}

std::vector<long long> passkey_keys(std::uint64_t seed, std::size_t count) {
  NormalRng rng(seed);
  std::vector<long long> keys(count);
  for (long long& k : keys) k = 10000 + (long long)(rng.next_u64() % 90000);
  return keys;
}

Expected<PasskeyResult> passkey(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r) {
  if (auto e = check(r)) return *e;
  const std::size_t L = r.lengths.size(), D = r.depths.size(), N = std::size_t(r.trials);
  const std::vector<long long> keys = passkey_keys(r.seed, L * D * N);
  PasskeyResult out{r.lengths, r.depths, std::vector<std::vector<double>>(L, std::vector<double>(D, 0.0)),
                    std::vector<std::vector<double>>(L, std::vector<double>(D, 0.0))};
  int done = 0;
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < D; ++j)
      for (std::size_t t = 0; t < N; ++t) {
        Expected<Trial> trial = build_trial(r, keys[(i * D + j) * N + t], r.lengths[i], r.depths[j]);
        if (!trial) return trial.error();
        ForwardOptions o = r.pass;
        o.tokens = trial->ids;
        o.positions.clear();
        o.head_from = (long long)trial->answer_at - 1;
        o.top1 = true;
        o.logits = o.attention = o.hidden = o.attention_by_distance = o.sink = o.qk_pair_norms = false;
        Expected<ForwardResult> f = forward(c, config, o);
        if (!f) return f.error();
        bool right = true;
        double logprob = 0.0;
        const std::size_t answer = trial->ids.size() - trial->answer_at;
        for (std::size_t a = trial->answer_at; a < trial->ids.size(); ++a) {
          right = right && f->top1[a - 1];
          logprob -= f->nll[a - 1];
        }
        out.accuracy[i][j] += right ? 1.0 : 0.0;  // a count, divided once the cell is done
        out.key_logprob[i][j] += logprob / double(answer);
        if (t + 1 == N) {
          out.accuracy[i][j] /= double(N);
          out.key_logprob[i][j] /= double(N);
        }
        if (r.progress && !r.progress(++done, int(L * D * N))) return bad_request("stopped");
      }
  return out;
}

}  // namespace rv
