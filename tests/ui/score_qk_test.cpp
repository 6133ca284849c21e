// The score curve's choice of q and k (link key qk, issue #25): random (the default), q = k and all ones (their
// closed forms at r = 0 and their decay), a generated llama checkpoint's layer 0 (core's real_scores' numbers),
// tokens refused by name, tokenizer.json's words, the keys' round trip, and layer0 without weights.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "app/panels/panel_calls.hpp"
#include "app/state/model.hpp"
#include "app/state/registry.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
#include "core/models/json_config.hpp"
#include "core/weights/real_scores.hpp"
#include "alloc_counter.hpp"
#include "headless.hpp"
#include "llama_checkpoint.hpp"

using rv::test::contains;
using rv::test::has_note;
using rv::test::Headless;

namespace {

double at(const rv::Model& m, int offsets, long long r) {
  return m.curve_a[std::size_t(r + offsets)];
}

// Every drawn number finite, |score| under |q||k| and the Abel bound, the two anchors' curves together.
void check_bounds(const rv::Model& m) {
  REQUIRE(!m.curve_a.empty());
  for (std::size_t j = 0; j < m.curve_a.size(); ++j) {
    REQUIRE(std::isfinite(m.curve_a[j]));
    REQUIRE(std::abs(m.curve_a[j]) <= m.cauchy_schwarz * (1 + 1e-12));
    REQUIRE(std::abs(m.curve_a[j]) <= m.bound[j] * (1 + 1e-9) + 1e-9);
  }
  CHECK(m.relative_spread < 1e-6 * std::max(1.0, m.cauchy_schwarz));
}

rv::SourceOpener memory_opener(std::vector<std::uint8_t> bytes) {
  return [bytes](const std::string&) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(bytes));
  };
}

// The generated llama checkpoint opened and installed as a drop with its config.json (and tokenizer.json) would be.
void load_llama(rv::App& app, const rv::test::LlamaShape& s, bool tokenizer) {
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  files.config_text = rv::test::llama_config(s);
  files.config_bytes = files.config_text->size();
  if (tokenizer) {
    files.tokenizer_text = rv::test::llama_tokenizer(s);
    files.tokenizer_bytes = files.tokenizer_text->size();
  }
  auto w = rv::open_weights(files, memory_opener(rv::test::llama_checkpoint(s)), rv::next_weights_serial());
  REQUIRE(w.ok());
  REQUIRE(rv::install_weights(app.params, w.value(), app.ui.notes));
}

std::vector<double> core_scores(const rv::test::LlamaShape& s, int head, long long token, long long key, int offsets) {
  rv::Checkpoint c =
      rv::Checkpoint::open_file("model.safetensors", memory_opener(rv::test::llama_checkpoint(s))).value();
  return rv::real_scores(c, rv::parse_hf_config(rv::test::llama_config(s)).value(), head, token, key, offsets)
      .value()
      .score;
}

}  // namespace

TEST_CASE("score curve qk: random is the default, and its sentence says noise with no decay") {
  Headless ui(1600, 1000);
  ui.set_state("tab_bottom=score_curve");
  ui.frames(3);
  CHECK(ui.app.params.qk == rv::ScoreQK::Random);
  CHECK(ui.app.model.score_q == ui.app.model.q);
  CHECK(contains(rv::encode_query(ui.app.params), "&qk=random&q_token=0&k_token=0&qk_head=0"));
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text, "q and k are random N(0, 1) vectors of width 8"));
  CHECK(contains(text, "noise around 0"));
}

TEST_CASE("score curve qk=same and qk=ones: |q|^2 and d_head at r = 0, the formula's decay, under the bounds") {
  for (const char* choice : {"same", "ones"}) {
    CAPTURE(choice);
    Headless ui(1600, 1000);
    ui.set_state(std::string("tab_bottom=score_curve&model=llama-2-7b&offsets=4096&qk=") + choice);
    ui.frames(3);
    const rv::Model& m = ui.app.model;
    REQUIRE(m.score_q.size() == 128);
    CHECK(m.qk_drawn == *rv::parse_score_qk(choice));
    const double zero = std::string(choice) == "same" ? m.q.squaredNorm() : 128.0;
    CHECK(at(m, 4096, 0) == doctest::Approx(zero).epsilon(1e-12));
    CHECK(m.cauchy_schwarz == doctest::Approx(zero).epsilon(1e-12));  // q = k: |q||k| = |q|^2, reached at r = 0
    check_bounds(m);
    // Decay: far from r = 0 the score stays well under its value there (random q, k stay about as large).
    double far = 0.0, far_sq = 0.0;
    for (long long r = 1000; r <= 4096; ++r) {
      far = std::max({far, std::abs(at(m, 4096, r)), std::abs(at(m, 4096, -r))});
      far_sq += at(m, 4096, r) * at(m, 4096, r);
    }
    const double far_rms = std::sqrt(far_sq / 3097);
    MESSAGE(choice << ": score(0) = " << at(m, 4096, 0) << ", for |r| >= 1000 max |score| " << far << ", rms "
                   << far_rms);
    CHECK(far < 0.5 * zero);
    CHECK(far_rms < 0.25 * zero);
    CHECK(at(m, 4096, 1) < at(m, 4096, 0));
    CHECK(at(m, 4096, -7) == doctest::Approx(at(m, 4096, 7)).epsilon(1e-9));  // k = q: an even curve
    const std::string text = ui.frame_sentences();
    INFO(text);
    CHECK(contains(text, std::string(choice) == "same" ? "q = k, one random N(0, 1) vector of width 128"
                                                       : "q and k are all ones (RoFormer's long-term-decay figure"));
    CHECK(contains(text, "the formula's decay envelope"));
    CHECK(contains(rv::state_json(ui.app),
                   std::string("\"score_curve\":{\"qk\":\"") + choice + "\",\"drawn\":\"" + choice + "\""));
  }
}

TEST_CASE(
    "score curve qk=layer0: a generated llama checkpoint's layer 0 equals core's real_scores, per head and token") {
  rv::test::LlamaShape s;
  s.head_dim = 16;
  s.hidden = 64;
  s.partial_rotary = 0.5;  // half_split over 8 of 16 dims: the whole-head layout must put the pairs right
  Headless ui(1600, 1000);
  load_llama(ui.app, s, false);
  ui.set_state("tab_bottom=score_curve&offsets=64&qk=layer0&q_token=5&k_token=17&qk_head=3");
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  REQUIRE(m.qk_error.empty());
  REQUIRE(m.qk_drawn == rv::ScoreQK::Layer0);
  const std::vector<double> want = core_scores(s, 3, 5, 17, 64);
  for (int r = 0; r <= 64; ++r) CHECK(at(m, 64, r) == doctest::Approx(want[std::size_t(r)]).epsilon(1e-12));
  check_bounds(m);
  CHECK(m.cauchy_schwarz == doctest::Approx(m.score_q.norm() * m.score_k.norm()).epsilon(1e-12));
  std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text, "q and k are layer 0 of model.safetensors (head 3, key head 1)"));
  CHECK(contains(text, "the query from token 5, the key from token 17"));
  CHECK(contains(text, "one layer, one head, before any attention softmax"));
  CHECK(
      contains(rv::describe_panel(*rv::find_panel("score_curve"), ui.app), "q and k are layer 0 of model.safetensors"));
  // Another head and tokens are read again through the kept checkpoint (the load read only (0, 0, 0)).
  ui.set_state("qk_head=0&q_token=39&k_token=2");
  ui.frames(2);
  const std::vector<double> again = core_scores(s, 0, 39, 2, 64);
  for (int r = 0; r <= 64; ++r) CHECK(at(m, 64, r) == doctest::Approx(again[std::size_t(r)]).epsilon(1e-12));
  const std::string state = rv::state_json(ui.app);
  CHECK(contains(state,
                 "\"score_curve\":{\"qk\":\"layer0\",\"drawn\":\"layer0\",\"q_token\":39,\"k_token\":2,\"head\":0"));
}

TEST_CASE("score curve qk=layer0: token ids past the vocabulary and heads past the model refused by name") {
  rv::test::LlamaShape s;
  Headless ui(1600, 1000);
  load_llama(ui.app, s, false);
  ui.set_state("tab_bottom=score_curve&qk=layer0&q_token=7&k_token=8");
  ui.frames(2);
  const rv::Params before = ui.app.params;
  std::vector<std::string> notes = ui.set_state("q_token=40");
  CHECK(has_note(notes,
                 "q_token='40': token 40 is past model.safetensors's vocabulary of 40 tokens (ids 0..39); kept 7"));
  notes = ui.set_state("k_token=99999");
  CHECK(has_note(notes, "k_token='99999': token 99999 is past"));
  notes = ui.set_state("qk_head=4");
  CHECK(has_note(notes, "qk_head='4': model.safetensors has 4 heads (0..3); kept 0"));
  notes = ui.set_state("q_token=the");
  CHECK(has_note(notes, "q_token='the' is not a token id (a word needs the checkpoint's tokenizer.json"));
  notes = ui.set_state("q_token=-1");
  CHECK(has_note(notes, "q_token='-1' is outside [0, 16777215]; using 0"));
  ui.set_state("q_token=7");
  CHECK(ui.app.params == before);
  ui.frames(2);
  CHECK(ui.app.model.qk_drawn == rv::ScoreQK::Layer0);
}

TEST_CASE("score curve qk=layer0: words encode through tokenizer.json, a word of several tokens gives its first") {
  rv::test::LlamaShape s;
  Headless ui(1600, 1000);
  load_llama(ui.app, s, true);
  std::vector<std::string> notes;
  CHECK(rv::set_param(ui.app.params, "q_token", "the", notes));
  CHECK(ui.app.params.q_token == 1);
  CHECK(rv::set_param(ui.app.params, "k_token", " the", notes));
  CHECK(ui.app.params.k_token == 2);
  CHECK(rv::set_param(ui.app.params, "q_token", " cat", notes));
  CHECK(ui.app.params.q_token == 3);
  CHECK(notes.empty());
  // "cat the" is two tokens, 'cat' and 'Ġthe': the first is taken, and a note says so
  CHECK(rv::set_param(ui.app.params, "k_token", "cat the", notes));
  CHECK(ui.app.params.k_token == 12);
  CHECK(has_note(notes,
                 "k_token='cat the' is 2 tokens through tokenizer.json ('cat' '\xC4\xA0"
                 "the'): took the "
                 "first, id 12"));
  CHECK(rv::set_param(ui.app.params, "k_token", " the", notes));
  notes.clear();
  CHECK_FALSE(rv::set_param(ui.app.params, "q_token", "dog", notes));
  CHECK(has_note(notes, "q_token='dog': 'dog' is no token through tokenizer.json; kept 3"));
  CHECK(ui.app.params.q_token == 3);
  ui.set_state("tab_bottom=score_curve&qk=layer0");
  ui.frames(3);
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text,
                 "the query from token 3 ('\xC4\xA0"
                 "cat'), the key from token 2 ('\xC4\xA0"
                 "the')"));
  // A bad tokenizer.json refuses the load, naming it.
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  files.config_text = rv::test::llama_config(s);
  files.tokenizer_text =
      R"({"model": {"type": "BPE", "vocab": {}, "merges": []}, "pre_tokenizer": {"type": "Whitespace"}})";
  auto w = rv::open_weights(files, memory_opener(rv::test::llama_checkpoint(s)), 1);
  REQUIRE_FALSE(w.ok());
  CHECK(contains(w.error().message, "tokenizer.json: "));
  CHECK(contains(w.error().message, "Whitespace"));
}

TEST_CASE(
    "score curve qk: the keys round-trip through the link, and layer0 without weights is a note, random, no NaN") {
  rv::Params p;
  std::vector<std::string> notes;
  rv::apply_query(p, "qk=ones&q_token=12&k_token=34&qk_head=5", notes);
  CHECK(notes.empty());
  rv::Params back;
  rv::apply_query(back, rv::encode_query(p), notes);
  CHECK(back == p);
  CHECK(back.qk == rv::ScoreQK::Ones);
  CHECK(back.q_token == 12);
  CHECK(back.k_token == 34);
  CHECK(back.qk_head == 5);
  rv::apply_query(p, "qk=layer1", notes);
  CHECK(has_note(notes, "qk='layer1' is not random, same, ones or layer0; kept ones"));
  CHECK(rv::param_choices("qk") == std::vector<std::string>{"random", "same", "ones", "layer0"});

  Headless ui(1600, 1000);
  notes = ui.set_state("tab_bottom=score_curve&qk=layer0");
  CHECK(notes.empty());  // not refused: weights may come next (and a link reads back silently)
  ui.frames(3);
  CHECK(has_note(ui.app.ui.notes, "qk=layer0: no checkpoint is loaded"));
  const rv::Model& m = ui.app.model;
  CHECK(ui.app.params.qk == rv::ScoreQK::Layer0);
  CHECK(m.qk_drawn == rv::ScoreQK::Random);
  check_bounds(m);
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text, "qk=layer0 is not drawn (no checkpoint is loaded"));
  CHECK(contains(rv::state_json(ui.app), "\"qk\":\"layer0\",\"drawn\":\"random\""));
  // A checkpoint without a RoPE layout (GPT-2's table) is named as the reason.
  std::vector<rv::TensorToWrite> gpt2 = {{"wpe.weight", {16, 8}, std::vector<double>(128, 0.25)}};
  rv::WeightsFiles files;
  files.label = files.file = "gpt2.safetensors";
  files.config_text = R"({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_positions": 16})";
  auto w = rv::open_weights(files, memory_opener(rv::write_safetensors(gpt2, "F32", {}).value()), 1);
  REQUIRE(w.ok());
  CHECK(contains(w.value()->no_layer0, "gpt2"));
}

TEST_CASE("score curve qk=layer0: the desktop's --weights reads config.json and tokenizer.json beside the file") {
  const std::string dir = "/tmp/ropeviz-qk-test-" + std::to_string(::getpid());
  REQUIRE((std::system(("mkdir -p " + dir).c_str()) == 0));
  rv::test::LlamaShape s;
  const std::vector<std::uint8_t> bytes = rv::test::llama_checkpoint(s);
  std::ofstream(dir + "/model.safetensors", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::ofstream(dir + "/config.json") << rv::test::llama_config(s);
  std::ofstream(dir + "/tokenizer.json") << rv::test::llama_tokenizer(s);
  Headless ui(1600, 1000);
  REQUIRE(rv::load_weights_path(ui.app.params, dir + "/model.safetensors", ui.app.ui.notes));
  REQUIRE(ui.app.params.weights->tokenizer);
  ui.set_state("tab_bottom=score_curve&qk=layer0&q_token=the&qk_head=1");
  CHECK(ui.app.params.q_token == 1);
  CHECK(rv::set_param(ui.app.params, "k_token", " the", ui.app.ui.notes));
  CHECK(ui.app.params.k_token == 2);
  ui.frames(2);
  const std::vector<double> want = core_scores(s, 1, 1, ui.app.params.k_token, 64);
  for (int r = 0; r <= 64; ++r) CHECK(at(ui.app.model, 64, r) == doctest::Approx(want[std::size_t(r)]).epsilon(1e-12));
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("score curve qk: steady frames allocate nothing and rebuild nothing, for ones and for layer0") {
  rv::test::LlamaShape s;
  Headless ui(1600, 1000);
  load_llama(ui.app, s, true);
  for (const char* state : {"tab_bottom=score_curve&qk=ones", "tab_bottom=score_curve&qk=layer0&q_token=3&qk_head=2"}) {
    CAPTURE(state);
    ui.set_state(state);
    ui.frames(4);
    const std::uint64_t qk_v = ui.app.model.qk_version, curve_v = ui.app.model.curve_version;
    const long long before = rv::test::allocations();
    ui.frames(10);
    CHECK((rv::test::allocations() - before) / 10 == 0);
    CHECK(ui.app.model.qk_version == qk_v);
    CHECK(ui.app.model.curve_version == curve_v);
  }
}
