// Every sentence true for trained models, not only for the formula: the lesson's steps, the Comparison table,
// the exercises, the context budget, the presets and the checks say which of the two each claim holds for.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/run/run_session.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
#include "app/text/text_view.hpp"
#include "core/lesson/exercises.hpp"
#include "headless.hpp"

using rv::test::contains;
using rv::test::Headless;

namespace {}  // namespace

TEST_CASE("frame_text returns the text a frame drew, and only what it drew") {
  Headless ui;
  ui.frames(2);
  const std::string text = ui.frame_text();
  CHECK(contains(text, "position"));
  CHECK_FALSE(contains(text, "this sentence is drawn nowhere"));
  CHECK(ui.frame_text() == text);  // steady: the same frame twice draws the same text
}

namespace {
Headless& at(Headless& ui, const std::string& state) {
  ui.set_state(state);
  ui.frames(3);
  return ui;
}
}  // namespace

TEST_CASE("trained claims 1: Comparison, lesson and exercise say the formula extrapolates, a trained model degrades") {
  Headless ui(1600, 1000);
  const std::string text = at(ui, "tab_bottom=comparison").frame_sentences();
  CHECK_FALSE(contains(text, "Works at any position"));
  CHECK_FALSE(contains(text, "Extrapolates to longer sequences"));
  CHECK_FALSE(contains(text, "RoPE handles it"));
  CHECK(contains(text, "Formula: defined at any position. Trained on L positions: degrades past L unless rescaled"));
  CHECK(contains(text, "llama-bytes 3.7x at 2L-4L)"));  // the measured number beside the formula's claim
  CHECK(contains(text, "a model trained on L positions still degrades past L unless its frequencies are rescaled"));
  CHECK(contains(text, "linear x4 needs fine-tuning"));  // linear interpolation is no rescue alone
  // Every row of both tables is on screen at 1600 x 1000, the last rationale to its last word.
  CHECK(contains(text, "A learned table needs more rows and retraining."));
  CHECK(contains(rv::describe(ui.app), "still degrades past L without context extension"));

  Headless step(1600, 1000);
  CHECK(contains(at(step, "lesson=6").frame_sentences(), "a model trained on L positions still degrades past L"));
  Headless judgment(1600, 1000);
  CHECK(contains(at(judgment, "lesson=7").frame_sentences(), "past its training length a RoPE model's loss climbs"));

  // Exercise 2: a trained model runs past its length and degrades unless rescaled; "works" is the formula's answer.
  const std::vector<rv::Exercise> all = rv::lesson_exercises();
  const rv::Exercise& past = all[1];
  REQUIRE(past.id == rv::ExerciseId::PastTable);
  CHECK(contains(past.title, "Exercise 2"));
  for (const char* rope : {"it works but degrades past the training length", "degrades past 10",
                           "breaks down past 2048", "runs, but the loss rises unless rescaled"})
    CHECK(rv::check_exercise(past, {"IndexError", rope}).verdict == rv::Verdict::Right);
  const rv::Feedback plain = rv::check_exercise(past, {"IndexError", "works"});
  CHECK(plain.verdict == rv::Verdict::Wrong);
  CHECK(contains(plain.message, "for the formula, yes"));
  CHECK(contains(plain.message, "loses quality past them unless its frequencies are rescaled"));
  CHECK(rv::check_exercise(past, {"IndexError", "IndexError"}).verdict == rv::Verdict::Wrong);
  CHECK(contains(past.why, "it runs past them but loses quality unless its frequencies are rescaled"));
}

TEST_CASE("trained claims 2: lesson step 1 says its table is random at initialisation, not a trained one") {
  Headless ui(1600, 1000);
  const std::string text = at(ui, "lesson=1").frame_sentences();
  CHECK_FALSE(contains(text, "rows are unrelated to their neighbours, each learned on its own"));
  CHECK(contains(text, "the app's own at its random initialisation, where rows are unrelated to their neighbours"));
  CHECK(contains(text, "Measured on this untrained table: neighbouring rows' cosine"));
}

TEST_CASE("trained claims 3: the context budget names each length and computes both turn figures the same way") {
  Headless ui(1600, 1000);
  const std::string text = at(ui, "model=llama-3.1-8b&tab_top=context_budget").frame_sentences();
  CHECK_FALSE(contains(text, "trained 8,192"));
  CHECK_FALSE(contains(text, "training length 8,192"));
  CHECK(contains(text, "context 131,072, 8,192 before extension"));
  CHECK(contains(text, "70 of 128 dims"));
  CHECK(contains(text, "29 of 64"));  // 35 + 29 = 64 pairs: the same unscaled theta at the same length
  CHECK_FALSE(contains(text, "32 of 64"));
  CHECK(contains(text, "8,192, the length before extension (original_max_position_embeddings)"));
  CHECK(contains(text, "wavelength after rope_scaling > the context 131,072 (max_position_embeddings)"));
  const std::string said = rv::describe(ui.app);
  CHECK(contains(said, "the critical dimension is 70 of 128 dims and 29 of 64 pairs never complete a turn"));
  CHECK_FALSE(contains(said, "first turns negative at stays"));  // defect 14: the garbled sentence

  Headless step(1600, 1000);
  const std::string lesson = at(step, "lesson=7").frame_sentences();
  CHECK(contains(lesson, "29 of 64 pairs never turn in 8,192 positions (original_max_position_embeddings"));
  CHECK_FALSE(contains(lesson, "trained positions"));
}

TEST_CASE("trained claims 3, 14: a search that finds no negative cosine sum reads as one sentence") {
  Headless ui(1600, 1000);
  at(ui, "model=none&max_position=10&d_head=8&base=10000&tab_top=context_budget");  // first negative: 91 > 20
  const std::string said = rv::describe(ui.app);
  CHECK(contains(said, "the cosine sum stays ≥ 0 up to m = "));
  CHECK_FALSE(contains(said, "at stays"));
}

TEST_CASE("trained claims 4: Llama 2's published context 4096, Mistral's 32,768 named as the config's context") {
  Headless ui(1600, 1000);
  at(ui, "model=llama-2-7b&tab_top=context_budget");
  const rv::ContextBudget& b = ui.app.model.budget;
  CHECK(b.context == 4096);
  CHECK(b.critical_dim == 92);
  CHECK(b.pairs_without_turn == 18);
  Headless mistral(1600, 1000);
  const std::string text = at(mistral, "model=mistral-7b-v0.1&tab_top=context_budget").frame_sentences();
  CHECK(contains(text, "32,768, the config's context (max_position_embeddings)"));
  CHECK_FALSE(contains(text, "training length 32,768"));
  CHECK(contains(text, "Lengths from the config, not training lengths"));
}

TEST_CASE("trained claims 8: with a scaled preset the extension panel says the others use the model's scaled theta") {
  Headless ui(1600, 1000);
  CHECK(contains(at(ui, "model=llama-3.1-8b&tab_top=extension").frame_sentences(),
                 "local to this panel: the other panels use the model's own scaled θᵢ"));
  CHECK(contains(rv::describe(ui.app), "the other panels use the model's own scaled θᵢ"));
  Headless plain(1600, 1000);
  CHECK(contains(at(plain, "tab_top=extension").frame_sentences(), "the other panels use the unscaled θᵢ"));
}

TEST_CASE("trained claims 9: Phi-3.5's LongRoPE factor is 131072 / 4096 = 32") {
  Headless ui(1600, 1000);
  const std::string text = at(ui, "model=phi-3.5-mini&tab_top=context_budget").frame_sentences();
  CHECK(contains(text, "factor 32, attention factor 1.19024"));
  CHECK_FALSE(contains(text, "factor 1, attention factor"));
}

TEST_CASE("trained claims 10: bf16 rounding of positions is said to happen only where angles are built in bf16") {
  Headless ui(1600, 1000);
  const std::string budget = at(ui, "model=llama-3.1-8b&tab_top=context_budget").frame_sentences();
  CHECK(contains(budget, "if positions were bf16: at the context 131,072 neighbours are 1,024 apart"));
  CHECK(contains(budget, "Hugging Face and Meta build them in float32"));
  Headless precision(1600, 1000);
  const std::string text = at(precision, "position=1000000&tab_top=precision").frame_sentences();
  CHECK(contains(text,
                 "Hugging Face's and Meta's code build positions and angles in float32 whatever the weights' dtype"));
}

TEST_CASE("trained claims 11: the P[-1] check shows what ropeviz, nn.Embedding and tensor indexing each do") {
  Headless ui(1600, 1000);
  at(ui, "tab_bottom=checks");
  bool found = false;
  for (const rv::Check& c : ui.app.model.checks) {
    CHECK_FALSE(contains(c.name, "as nn.Embedding does"));
    if (!contains(c.name, "P[-1]")) continue;
    found = true;
    CHECK(c.ok);
    CHECK(contains(c.detail, "ropeviz: IndexError: index -1 is out of bounds for dimension 0 with size 10"));
    CHECK(contains(c.detail, "nn.Embedding (CPU) raises IndexError: index out of range in self"));
    CHECK(contains(c.detail, "pos_table[-1] returns P[9]"));
  }
  CHECK(found);
}

TEST_CASE(
    "trained claims 14: exercises are numbered apart from the lesson, and their feedback is one sentence a part") {
  for (const rv::Exercise& e : rv::lesson_exercises()) CHECK_FALSE(contains(e.title, "Lesson"));
  const std::vector<rv::Exercise> all = rv::lesson_exercises();
  const rv::Exercise& shapes = all[3];
  REQUIRE(shapes.parts.size() > 1);
  const rv::Feedback f = rv::check_exercise(shapes, std::vector<std::string>(shapes.parts.size(), "7"));
  REQUIRE(f.verdict != rv::Verdict::Right);
  std::size_t start = 0;  // every line ends a sentence
  while (start < f.message.size()) {
    const std::size_t end = std::min(f.message.find('\n', start), f.message.size());
    INFO(f.message);
    CHECK(std::string(".?!").find(f.message[end - 1]) != std::string::npos);
    start = end + 1;
  }
}

TEST_CASE("trained claims 13: the text layer calls a RoPE model's learned table hypothetical") {
  Headless ui(1600, 1000);
  at(ui, "model=llama-3.1-8b&position=100000");
  const std::string said = rv::describe(ui.app);
  CHECK(contains(said, "Learned absolute (hypothetical: llama-3.1-8b uses RoPE and has no such table"));
  CHECK(contains(said, "It would serve position 100,000 by looking up row P[100000]."));
  Headless plain(1600, 1000);
  at(plain, "");
  CHECK(contains(rv::describe(plain.app), "It serves position 5 by looking up row P[5]."));
  CHECK_FALSE(contains(rv::describe(plain.app), "hypothetical"));
}

TEST_CASE("trained claims 6: the text view's lab table has whole percents and every method's steps") {
  Headless ui(1600, 1000);
  at(ui, "tab_bottom=lab&task=reverse&train_len=3&steps=7&methods=rope,learned&lab_seed=5&seeds=1");
  ui.click("lab_run");
  ui.frames_while_lab_runs();
  REQUIRE_FALSE(ui.app.lab.running);
  const std::string html = rv::text_view_html(ui.app);
  CHECK(contains(html, "steps trained"));
  CHECK(contains(html, "so the step counts differ"));
  CHECK(contains(html, "7 (max)"));  // 7 steps reach no bar: both methods ran to the cap
  for (const char* false_precision : {".3%", ".33%", ".7%", ".67%"}) CHECK_FALSE(contains(html, false_precision));
}

TEST_CASE(
    "trained claims: the status strip says RoPE at m for the formula and, past the context, for the trained model") {
  Headless ui(1400, 900);
  REQUIRE(
      rv::load_weights_path(ui.app.params, RV_SOURCE_DIR "/web/models/llama-bytes/model.safetensors", ui.app.ui.notes));
  const auto strip = [&](const std::string& position) { return at(ui, "position=" + position).frame_sentences(); };
  std::string text = strip("100");
  CHECK(contains(text, "RoPE (formula): defined at every m"));
  CHECK(contains(text, "model.safetensors: m inside its 512-position context"));
  CHECK_FALSE(contains(text, "RoPE: works"));
  text = strip("2000");
  INFO(text);
  CHECK(contains(text, "RoPE (formula): defined at every m"));
  CHECK(contains(text, "trained to 512 positions: past them a trained model degrades unless rescaled; untested here"));
  // Run it measures these weights: 1,024 positions, no scaling; the strip then gives the measured ratio.
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 1024;
  s.settings.windows = 1;
  s.settings.shift = false;
  for (bool& r : s.settings.rope) r = false;
  s.settings.rope[int(rv::RunRope::None)] = true;
  REQUIRE(rv::run_start(ui.app));
  for (int i = 0; i < 40 && s.running; ++i) ui.frame();
  REQUIRE_FALSE(s.running);
  REQUIRE(s.model_in > 0);
  CHECK(s.model_past / s.model_in > 2.0);  // 3.3 times, as docs/run-it.md measures
  text = strip("800");
  CHECK(contains(text, "measured loss around m = 800 is"));
  const auto times = [](const std::string& t) { return std::stod(t.substr(t.rfind(" is ") + 4)); };
  CHECK(times(text.substr(0, text.find(" times its in-range loss"))) > 2.0);
  text = strip("2000");
  CHECK(contains(text, "measured loss at 512-1023 is"));
  CHECK(contains(text, "lengthen them to reach m"));
  CHECK_FALSE(contains(strip("300"), "measured loss"));  // inside the context: the strip says so, green
}

TEST_CASE(
    "a loaded checkpoint's frame: GPT-2's strip says it has no RoPE, V is its vocabulary, a RoPE load's note is "
    "one line") {
  Headless ui(1400, 900);
  REQUIRE(
      rv::load_weights_path(ui.app.params, RV_SOURCE_DIR "/web/models/gpt2-bytes/model.safetensors", ui.app.ui.notes));
  CHECK(ui.app.params.vocab == 256);  // was the lesson's 100: the shape trace said E [100, 256]
  std::string text = at(ui, "position=100").frame_sentences();
  CHECK(contains(text, "model.safetensors has no RoPE: its positions are a learned table"));
  CHECK(contains(text, "RoPE (formula only)"));
  CHECK_FALSE(contains(text, "defined at every m"));
  Headless llama(1400, 900);
  REQUIRE(rv::load_weights_path(llama.app.params, RV_SOURCE_DIR "/web/models/llama-bytes/model.safetensors",
                                llama.app.ui.notes));
  const std::string& note = llama.app.ui.notes.back();
  INFO(note);
  CHECK(contains(note, "no learned position table (llama uses RoPE)"));
  CHECK_FALSE(contains(note, "model.layers.0"));  // not the checkpoint's tensor names
  CHECK(note.size() < 160);
}

TEST_CASE(
    "lesson step 1 on a trained table: rows 5 and 50 are measured, not unrelated, and a last row training never "
    "reached is pointed out") {
  Headless ui(1400, 900);
  REQUIRE(
      rv::load_weights_path(ui.app.params, RV_SOURCE_DIR "/web/models/gpt2-bytes/model.safetensors", ui.app.ui.notes));
  const std::string text = at(ui, "lesson=1").frame_sentences();
  INFO(text);
  CHECK(contains(text, "cos(P[5], P[50]) = 0.5"));  // 0.53 for gpt2-bytes
  CHECK(contains(text, "(trained rows are not unrelated)"));
  CHECK(contains(text, "Its last row P[1023] stands apart"));
  CHECK_FALSE(contains(text, "low-rank curve"));
  CHECK(ui.app.params.vocab == 256);  // the lesson's view keeps the checkpoint's V
  Headless untrained(1400, 900);
  CHECK_FALSE(contains(at(untrained, "lesson=1").frame_sentences(), "stands apart"));  // the seeded table: no such row
}
