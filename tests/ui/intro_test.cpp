// The first screen's title and first step (app/shell/intro.cpp): there on the first view, gone once m moves, the
// lesson opens or it is closed, and never back this session; a link to another view opens without it.
#include <doctest/doctest.h>

#include <string>

#include "headless.hpp"

using rv::test::contains;
using rv::test::Headless;

TEST_CASE("intro: the first screen says what ropeviz is and where to start, and moving m takes it away for good") {
  Headless ui;
  ui.frames(2);
  std::string text = ui.frame_sentences();
  CHECK(contains(text, "ropeviz: how a transformer knows where a token is"));
  CHECK(contains(text, "Start the lesson"));
  CHECK(contains(text, "past max_position, the orange mark at 10"));
  REQUIRE(ui.app.ui.rects.count("intro_lesson"));
  ui.set_state("position=20");
  ui.frames(2);
  CHECK_FALSE(contains(ui.frame_sentences(), "Start the lesson"));
  ui.set_state("position=5");  // the first view again: the intro stays away
  ui.frames(2);
  CHECK_FALSE(contains(ui.frame_sentences(), "Start the lesson"));
}

TEST_CASE("intro: its button opens the lesson, and a link to a position or a model opens without it") {
  Headless ui;
  ui.frames(2);
  ui.click("intro_lesson");
  ui.frames(2);
  CHECK(ui.app.params.lesson == 1);
  CHECK_FALSE(contains(ui.frame_sentences(), "Start the lesson"));
  for (const char* link : {"position=100", "model=gpt2", "lesson=3"}) {
    Headless linked;
    linked.set_state(link);
    linked.frames(2);
    INFO(link);
    CHECK_FALSE(contains(linked.frame_sentences(), "Start the lesson"));
  }
}

TEST_CASE("first screen: the Hub field's fetch and its (?) fit the controls column at 1,280 and 1,600 px") {
  for (const int width : {1280, 1600}) {
    Headless ui(width, 900);
    ui.app.ui.can_open_files = true;  // the page's controls: the picker and the Hub field
    ui.frames(3);
    REQUIRE(ui.app.ui.rects.count("hub_tip"));
    REQUIRE(ui.app.ui.rects.count("hub_repo"));
    const rv::Rect tip = ui.app.ui.rects["hub_tip"], repo = ui.app.ui.rects["hub_repo"];
    INFO(width << ": tip at " << tip.x << " + " << tip.w << ", field from " << repo.x);
    CHECK(tip.y == doctest::Approx(repo.y).epsilon(0.2));  // on the field's line
    CHECK(tip.x + tip.w <= 300.0f);                        // inside the 300 px column (its padding included)
  }
}

TEST_CASE("phone: Lesson in the controls sheet closes the sheet, so the lesson's first step is what shows") {
  Headless ui(390, 844);
  ui.frames(2);
  ui.app.ui.sheet_open = true;
  ui.frames(2);
  REQUIRE(ui.app.ui.rects.count("lesson_start"));
  ui.click("lesson_start");
  ui.frames(2);
  CHECK(ui.app.params.lesson == 1);
  CHECK_FALSE(ui.app.ui.sheet_open);
  CHECK(contains(ui.frame_sentences(), "Each position t owns a learned row P[t]"));
}
