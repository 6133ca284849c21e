// The learner's path, headless: every exercise answered right, wrong and unreadably (through the canvas and through
// its actions), "Show me" views; every lesson step's link restoring its view, Back / Next / Close; Play advancing
// the position frame by frame and stopping at the slider's end; Reset; the rotation-against-addition numbers.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "app/lesson/exercises_ui.hpp"
#include "app/lesson/lesson_state_json.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/state/lesson.hpp"
#include "app/state/notes.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "app/text/text_view.hpp"
#include "app/ui/play.hpp"
#include "core/lesson/add_vs_rotate.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"

using rv::test::contains;
using rv::test::Headless;

namespace {

int index_of(const rv::App& app, rv::ExerciseId id) {
  for (size_t i = 0; i < app.model.exercises.size(); ++i)
    if (app.model.exercises[i].id == id) return int(i);
  FAIL("exercise not generated");
  return -1;
}

// Types the answers into the entry's fields (as the fields hold them) and presses Check through the panel's action.
rv::Feedback answer(Headless& ui, rv::ExerciseId id, const std::vector<std::string>& answers) {
  const int i = index_of(ui.app, id);
  REQUIRE(rv::check_exercise_answers(ui.app, i, answers));
  const rv::ExerciseEntry& entry = rv::exercise_entry(ui.app.ui, ui.app.model.exercises[size_t(i)]);
  REQUIRE(entry.feedback.has_value());
  return *entry.feedback;
}

std::string panel(const rv::Params& p, rv::Bar bar) {
  return rv::selected_panel(p, bar).key;
}

struct Case {
  rv::ExerciseId id;
  std::vector<std::string> right, wrong, malformed;
  const char* wrong_reason;
};

}  // namespace

TEST_CASE("exercises: exercise 1 answered through the canvas, then Show me opens its view") {
  Headless ui;
  ui.set_state("tab_bottom=exercises");
  ui.frames(2);
  ui.click("ex_answer0");
  ui.type("65,536");
  ui.click("ex_answer1");
  ui.type("0");
  ui.click("ex_check");
  const rv::ExerciseEntry& entry = ui.app.ui.exercises[int(rv::ExerciseId::Parameters)];
  REQUIRE(entry.feedback.has_value());
  CHECK(entry.feedback->verdict == rv::Verdict::Right);
  CHECK(contains(entry.feedback->message, "65,536"));
  const std::string json = rv::state_json(ui.app);  // window.ropeviz.state(): the verdicts, the step, Play
  CHECK(contains(json, "\"exercises\":[{\"title\":\"Exercise 1: parameters\",\"verdict\":\"right\"}"));
  CHECK(contains(json, "\"lesson\":0,\"playing\":false"));
  ui.click("ex_hint");
  CHECK(entry.hint);
  ui.click("ex_show");
  const rv::Params& p = ui.app.params;
  CHECK(p.max_position == 2048);
  CHECK(p.d_model() == 32);
  CHECK(panel(p, rv::Bar::Top) == "shape_trace");
  CHECK(panel(p, rv::Bar::Bottom) == "exercises");  // the exercise stays in sight
  ui.frames(2);
  CHECK(ui.app.model.counts.learned_position == 65536);

  ui.click("ex_pick2");  // exercise 3, unreadable: the panel says what it expects
  ui.click("ex_answer0");
  ui.type("one, two");
  ui.key(ImGuiKey_Enter);
  const rv::ExerciseEntry& thetas = ui.app.ui.exercises[int(rv::ExerciseId::Thetas)];
  REQUIRE(thetas.feedback.has_value());
  CHECK(thetas.feedback->verdict == rv::Verdict::Malformed);
  CHECK(contains(thetas.feedback->message, "cannot read 'one, two'"));
}

TEST_CASE("exercises: each one right, wrong with its reason, and malformed, and Show me sets its view") {
  const std::vector<Case> cases = {
      {rv::ExerciseId::Parameters, {"65536", "0"}, {"16384", "0"}, {"65536", ""}, "max_position × d_head"},
      {rv::ExerciseId::PastTable,
       {"IndexError", "degrades past training"},
       {"works", "works"},
       {"hmm", "works"},
       "IndexError: index 2048 is out of bounds for dimension 0 with size 2048"},
      {rv::ExerciseId::Thetas, {"1, 0.1, 0.01, 0.001", "3"}, {"0.001, 0.01, 0.1, 1", "3"}, {"1, 0.1", "3"}, "reverse"},
      {rv::ExerciseId::Shapes,
       {"[2, 5, 4, 8]", "2x5x4x8", "2 5 4 8", "no"},
       {"[2, 5, 32]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "no"},
       {"[2, 5, 4, 8]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "maybe"},
       "[B, T, d]"},
      {rv::ExerciseId::FirstTurn, {"6,284"}, {"6283"}, {"6283.5"}, "just short of 2π"},
      {rv::ExerciseId::SlowPairs, {"3"}, {"1"}, {"three pairs"}, "pairs that do turn"},
      {rv::ExerciseId::FirstError, {"10"}, {"9"}, {""}, "last row"},
  };
  for (const Case& c : cases) {
    CAPTURE(int(c.id));
    Headless ui;
    ui.set_state("tab_bottom=exercises");
    ui.frames(2);
    CHECK(answer(ui, c.id, c.malformed).verdict == rv::Verdict::Malformed);
    const rv::Feedback wrong = answer(ui, c.id, c.wrong);
    CHECK(wrong.verdict == rv::Verdict::Wrong);
    CHECK(contains(wrong.message, c.wrong_reason));
    CHECK(answer(ui, c.id, c.right).verdict == rv::Verdict::Right);
    ui.frames(2);  // the panel draws the feedback
    const int i = index_of(ui.app, c.id);
    rv::show_exercise_view(ui.app, i);
    ui.frames(2);
    const rv::Exercise& e = ui.app.model.exercises[size_t(i)];
    if (e.view.position >= 0) CHECK(ui.app.params.position == e.view.position);
    if (e.view.lesson_dims) CHECK(ui.app.params.d_head == 8);
    CHECK(panel(ui.app.params, rv::Bar::Bottom) == "exercises");
    CHECK(ui.app.ui.notes.empty());
  }
}

TEST_CASE("exercises as the page's HTML form reads them: questions, parts, typed answers and the verdict") {
  Headless ui;
  ui.frames(2);
  std::string json = rv::exercises_json(ui.app);
  const rv::Exercise& shapes = ui.app.model.exercises[size_t(index_of(ui.app, rv::ExerciseId::Shapes))];
  CHECK(contains(json, "\"title\":\"" + shapes.title + "\""));
  CHECK(contains(json, "\"label\":\"" + shapes.parts[3].label + "\",\"choices\":[\"" + shapes.parts[3].choices[0]));
  CHECK(contains(json, "\"verdict\":\"unanswered\",\"heading\":\"\",\"message\":\"\""));
  // Answered from the HTML form: the canvas's fields hold the answers, the form reads the feedback back.
  const int i = index_of(ui.app, rv::ExerciseId::Parameters);
  REQUIRE(rv::check_exercise_answers(ui.app, i, {"65536", "0"}));
  json = rv::exercises_json(ui.app);
  CHECK(contains(json, "\"answer\":\"65536\"},{\"label\":"));
  CHECK(contains(json, "\"verdict\":\"right\",\"heading\":\"Right.\",\"message\":\"" +
                           ui.app.model.exercises[size_t(i)].why.substr(0, 20)));
  CHECK(std::string(ui.app.ui.exercises[int(rv::ExerciseId::Parameters)].answers[1]) == "0");
  // A pasted page of text is cut to the field's size, never inside a UTF-8 character, and cannot be read.
  std::string pasted;
  for (int k = 0; k < 40; ++k) pasted += "θ";
  REQUIRE(rv::check_exercise_answers(ui.app, i, {pasted, "0"}));
  const std::string kept = ui.app.ui.exercises[int(rv::ExerciseId::Parameters)].answers[0];
  CHECK(kept.size() == 62);  // 31 two-byte characters fit in 63 bytes
  CHECK(kept == pasted.substr(0, 62));
  CHECK(ui.app.ui.exercises[int(rv::ExerciseId::Parameters)].feedback->verdict == rv::Verdict::Malformed);
  CHECK_FALSE(rv::check_exercise_answers(ui.app, -1, {"1"}));
  CHECK_FALSE(rv::check_exercise_answers(ui.app, int(ui.app.model.exercises.size()), {"1"}));
}

TEST_CASE("exercises: an answer field being typed into says it takes words (the phone's keyboard with letters)") {
  Headless ui;
  ui.set_state("tab_bottom=exercises");
  ui.frames(2);
  CHECK_FALSE(ui.app.ui.typing_words);
  ui.click("ex_answer0");
  ui.frames(2);
  CHECK(ImGui::GetIO().WantTextInput);
  CHECK(ui.app.ui.typing_words);
  ui.click("max_position");  // a number field
  ui.frames(2);
  CHECK(ImGui::GetIO().WantTextInput);
  CHECK_FALSE(ui.app.ui.typing_words);
}

TEST_CASE("exercises: the generated ones follow the settings, and a stale answer is not shown") {
  Headless ui;
  ui.set_state("tab_bottom=exercises");
  ui.frames(2);
  CHECK(answer(ui, rv::ExerciseId::FirstError, {"10"}).verdict == rv::Verdict::Right);
  const rv::Panel* exercises = rv::find_panel("exercises");
  REQUIRE(exercises);
  ui.app.ui.exercise_shown = index_of(ui.app, rv::ExerciseId::FirstError);
  ui.frames(2);
  CHECK(contains(rv::describe_panel(*exercises, ui.app), "Answered right"));
  ui.set_state("max_position=20&d_head=16&base=500000");
  ui.frames(2);
  CHECK_FALSE(contains(rv::describe_panel(*exercises, ui.app), "Answered right"));  // the question changed
  CHECK(answer(ui, rv::ExerciseId::FirstError, {"20"}).verdict == rv::Verdict::Right);
  CHECK(answer(ui, rv::ExerciseId::FirstTurn, {"6284"}).verdict == rv::Verdict::Wrong);  // a new theta_3
  ui.set_state("model=llama-3.1-8b");
  ui.frames(2);
  CHECK(contains(ui.app.model.exercises[size_t(index_of(ui.app, rv::ExerciseId::SlowPairs))].prompt, "llama-3.1-8b"));
}

TEST_CASE("lesson: every step's link restores its view, and a changed view survives its own hash") {
  struct Expect {
    const char* top;
    const char* bottom;
    long long position;
  };
  const Expect expect[rv::kLessonSteps] = {{"shape_trace", "learned_table", 5}, {"rotations", "score_curve", 5},
                                           {"rotations", "checks", 3},          {"angle_field", "learned_table", 100},
                                           {"why_rotation", "checks", 100},     {"shape_trace", "comparison", 5},
                                           {"context_budget", "lab", 100000}};
  for (int k = 1; k <= rv::kLessonSteps; ++k) {
    CAPTURE(k);
    Headless ui;
    ui.set_state("d_head=64&position=7&tab_top=precision");  // somewhere else first
    CHECK(ui.set_state("#lesson=" + std::to_string(k)).empty());
    const rv::Params& p = ui.app.params;
    CHECK(p.lesson == k);
    CHECK(panel(p, rv::Bar::Top) == expect[k - 1].top);
    CHECK(panel(p, rv::Bar::Bottom) == expect[k - 1].bottom);
    CHECK(p.position == expect[k - 1].position);
    CHECK(p.d_head == (k == rv::kLessonSteps ? 128 : 8));  // the last step opens Llama 3.1 8B
    ui.frames(3);
    CHECK(ui.app.ui.shown_tab[0] == p.tab_top);
    CHECK(std::string(rv::lesson_highlight(p)) == rv::lesson_step(k).look);
    ui.rect("lesson_next");                                                               // the step's box is drawn
    CHECK(contains(rv::describe(ui.app), "Lesson step " + std::to_string(k) + " of 7"));  // and read out (#a11y)
    ui.set_state("position=42");  // the learner moves on; the canonical hash keeps that, not the step's position
    rv::Params back;
    std::vector<std::string> notes;
    rv::apply_query(back, rv::encode_query(p), notes);
    CHECK(notes.empty());
    CHECK(back == p);
    CHECK(back.position == 42);
  }
}

TEST_CASE("lesson: Next, Back and Close walk the steps, bad steps are clamped, Lesson starts at step 1") {
  Headless ui;
  ui.frames(2);
  ui.click("lesson_start");
  CHECK(ui.app.params.lesson == 1);
  ui.click("lesson_next");
  CHECK(ui.app.params.lesson == 2);
  CHECK(panel(ui.app.params, rv::Bar::Top) == "rotations");
  ui.click("lesson_next");
  CHECK(ui.app.params.lesson == 3);
  CHECK(ui.app.params.position == 3);
  ui.click("lesson_back");
  CHECK(ui.app.params.lesson == 2);
  ui.click("lesson_close");
  CHECK(ui.app.params.lesson == 0);
  ui.frames(1);
  CHECK(rv::lesson_highlight(ui.app.params) == nullptr);
  const std::vector<std::string> notes = ui.set_state("lesson=99");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "lesson='99' is outside [0, 7]; using 7");
  CHECK(ui.app.params.lesson == 7);
  CHECK(ui.set_state("lesson=x").size() == 1);
  CHECK(ui.app.params.lesson == 7);
  const rv::Params before = ui.app.params;
  ui.set_state("lesson=0");  // closing changes nothing else
  CHECK(ui.app.params.position == before.position);
  CHECK(ui.app.params.model == before.model);
}

TEST_CASE("lesson: every step draws on every display without an assertion") {
  rv::test::for_each_setting({"lesson=1&tab_bottom=exercises", "lesson=3", "lesson=5", "lesson=7&tab_bottom=exercises"},
                             [](Headless& ui) {
                               const int before = rv::imgui_assert_count();
                               ui.frames(3);
                               CHECK(rv::imgui_assert_count() == before);
                             });
}

TEST_CASE("play: the position advances with each frame's time, crosses the table into IndexError, stops at the end") {
  Headless ui;
  ui.set_state("position=0&max_position=10");
  ui.frames(2);
  CHECK_FALSE(rv::app_animating(ui.app));
  ui.app.ui.play.rate = 30.0;  // positions per second; the harness runs 60 frames per second
  ui.click("play");
  CHECK(ui.app.ui.play.on);
  CHECK(rv::app_animating(ui.app));
  long long last = ui.app.params.position;
  for (int i = 0; i < 40; ++i) {
    ui.frame();
    CHECK(ui.app.params.position >= last);
    last = ui.app.params.position;
  }
  CHECK(last >= 19);  // about 30 * 42 / 60
  CHECK(last <= 22);
  CHECK(ui.app.model.lookup_error.has_value());  // past the 10 rows
  ui.click("play");                              // pause
  CHECK_FALSE(ui.app.ui.play.on);
  const long long paused = ui.app.params.position;
  ui.frames(5);
  CHECK(ui.app.params.position == paused);

  const long long end = rv::play_end(ui.app.params);
  CHECK(end == 1000000);  // the slider's reach for a 10-row table
  ui.set_state("position=" + std::to_string(end - 3));
  ui.app.ui.play.rate = 1000.0;
  rv::play_toggle(ui.app);
  ui.frames(3);
  CHECK(ui.app.params.position == end);
  CHECK_FALSE(ui.app.ui.play.on);
  rv::play_toggle(ui.app);  // Play at the end starts over from 0
  CHECK(ui.app.ui.play.on);
  ui.frame();
  CHECK(ui.app.params.position < 100);
}

TEST_CASE("play: logarithmic sweeps a decade per 1/speed seconds, and a drag moves the sweep") {
  Headless ui;
  ui.set_state("position=100");
  ui.frames(2);
  ui.click("play_log");
  CHECK(ui.app.ui.play.log);
  ui.app.ui.play.decades = 1.0;
  rv::play_toggle(ui.app);
  ui.frames(60);  // one second
  CHECK(ui.app.params.position >= 900);
  CHECK(ui.app.params.position <= 1100);
  ui.set_state("position=5");  // moved by hand (or a link) while playing
  ui.frames(30);
  CHECK(ui.app.params.position >= 14);
  CHECK(ui.app.params.position <= 17);  // 5 * 10^0.5
}

TEST_CASE("reset: one click back to the lesson's defaults") {
  Headless ui;
  ui.set_state("position=100&model=gpt2&lesson=3&task=reverse");
  ui.frames(2);
  rv::play_toggle(ui.app);
  ui.click("reset");
  rv::Params expected;
  CHECK(ui.app.params == expected);
  CHECK_FALSE(ui.app.ui.play.on);
  REQUIRE(ui.app.ui.notes.size() == 1);
  CHECK(rv::note_kind(ui.app.ui.notes[0]) == rv::NoteKind::Info);
}

TEST_CASE("why rotation: the panel's numbers are core's, rotation keeps the norm, addition does not") {
  Headless ui;
  ui.set_state("tab_top=why_rotation&position=100&key_position=97");
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  const rv::AddVsRotate direct =
      rv::add_vs_rotate(m.q, m.k, 100, 97, 1000, m.inv_freq, rv::Pairing::Interleaved, 10000.0);
  CHECK(m.why.norm_added == direct.norm_added);
  CHECK(m.why.dot_rotated == direct.dot_rotated);
  CHECK(m.why.norm_rotated == doctest::Approx(m.why.norm_q).epsilon(1e-12));
  CHECK(m.why.dot_rotated_shifted == doctest::Approx(m.why.dot_rotated).epsilon(1e-9));
  CHECK(contains(rv::describe_panel(*rv::find_panel("why_rotation"), ui.app), "panel"));
}

TEST_CASE("learning views: steady frames allocate nothing (lesson box, exercise feedback, why panel)") {
  Headless ui;
  ui.set_state("lesson=5&tab_bottom=exercises");
  ui.frames(2);
  answer(ui, rv::ExerciseId::Parameters, {"16384", "0"});
  ui.frames(4);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK((rv::test::allocations() - before) / 10 == 0);
}

TEST_CASE(
    "lesson links keep the link parser's invariants: canonical hash is a silent fixed point, reapplying changes "
    "nothing") {
  for (const char* query : {"lesson=7&model=none", "lesson=5&model=gpt2&d_head=16", "model=gpt2&lesson=2",
                            "lesson=3&lesson=5", "lesson=7&d_head=64", "position=9&lesson=1&tab_top=precision"}) {
    CAPTURE(query);
    rv::Params p;
    std::vector<std::string> notes;
    rv::apply_query(p, query, notes);
    const std::string hash = rv::encode_query(p);
    rv::Params q;
    std::vector<std::string> q_notes;
    rv::apply_query(q, hash, q_notes);
    CHECK(q == p);
    CHECK(q_notes.empty());
    CHECK(rv::encode_query(q) == hash);
    rv::Params twice = p;
    rv::apply_query(twice, query, notes);
    CHECK(twice == p);
  }
}

TEST_CASE("lesson: the first step draws the lesson's two-panel picture, live, with its text equivalent") {
  for (const char* state : {"lesson=1", "lesson=1&position=50"}) {
    Headless ui;
    ui.set_state(state);
    ui.frames(3);
    const std::string text = rv::describe(ui.app);
    const bool past = ui.app.params.position >= ui.app.params.max_position;
    CAPTURE(state);
    CHECK(text.find("Picture, panel A: token id " + std::to_string(ui.app.model.token)) != std::string::npos);
    CHECK(text.find(past ? "P[50] is out of range (IndexError)" : "P[5] exists") != std::string::npos);
    CHECK(text.find("values are not rotated") != std::string::npos);
    CHECK(rv::text_view_html(ui.app).find("Picture, panel A:") != std::string::npos);
  }
  Headless ui;  // not on other steps
  ui.set_state("lesson=2");
  ui.frames(2);
  CHECK(rv::describe(ui.app).find("Picture, panel A") == std::string::npos);
}

TEST_CASE("lesson: steady frames with the picture allocate nothing") {
  Headless ui;
  ui.set_state("lesson=1&position=50");
  ui.frames(4);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK(rv::test::allocations() - before == 0);
}
