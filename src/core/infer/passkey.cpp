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

}  // namespace

std::optional<Error> check_passkey(const PasskeyRequest& r) {
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

namespace {

// Cell (i, j) from the grid's keys; `done` counts trials for r.progress over `total`.
Expected<PasskeyCell> run_cell(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r,
                               const std::vector<long long>& keys, std::size_t i, std::size_t j, int& done, int total) {
  const std::size_t N = std::size_t(r.trials);
  PasskeyCell cell;
  for (std::size_t t = 0; t < N; ++t) {
    Expected<Trial> trial = build_trial(r, keys[(i * r.depths.size() + j) * N + t], r.lengths[i], r.depths[j]);
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
    cell.accuracy += right ? 1.0 : 0.0;  // a count, divided once the cell is done
    cell.key_logprob += logprob / double(answer);
    if (r.progress && !r.progress(++done, total)) return bad_request("stopped");
  }
  cell.accuracy /= double(N);
  cell.key_logprob /= double(N);
  return cell;
}

}  // namespace

Expected<PasskeyResult> passkey(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r) {
  if (auto e = check_passkey(r)) return *e;
  const std::size_t L = r.lengths.size(), D = r.depths.size();
  const std::vector<long long> keys = passkey_keys(r.seed, L * D * std::size_t(r.trials));
  PasskeyResult out{r.lengths, r.depths, std::vector<std::vector<double>>(L, std::vector<double>(D, 0.0)),
                    std::vector<std::vector<double>>(L, std::vector<double>(D, 0.0))};
  int done = 0;
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < D; ++j) {
      Expected<PasskeyCell> cell = run_cell(c, config, r, keys, i, j, done, int(keys.size()));
      if (!cell) return cell.error();
      out.accuracy[i][j] = cell->accuracy;
      out.key_logprob[i][j] = cell->key_logprob;
    }
  return out;
}

Expected<PasskeyCell> passkey_cell(Checkpoint& c, const HfConfig& config, const PasskeyRequest& r, std::size_t i,
                                   std::size_t j) {
  if (auto e = check_passkey(r)) return *e;
  if (i >= r.lengths.size() || j >= r.depths.size())
    return bad_request("no cell (" + std::to_string(i) + ", " + std::to_string(j) + ") in a grid of " +
                       std::to_string(r.lengths.size()) + " lengths x " + std::to_string(r.depths.size()) + " depths");
  const std::vector<long long> keys = passkey_keys(r.seed, (i * r.depths.size() + j + 1) * std::size_t(r.trials));
  int done = 0;
  return run_cell(c, config, r, keys, i, j, done, r.trials);
}

}  // namespace rv
