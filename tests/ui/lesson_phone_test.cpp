// The guided lesson on a phone (390 x 844 CSS pixels): every step's title line and its "(step N of M)" show whole,
// nothing clipped at the screen's edge (a phone once showed "Learned absolute po" and "(step 7 o").
#include <doctest/doctest.h>

#include <string>

#include "app/state/lesson.hpp"
#include "headless.hpp"

using rv::test::Headless;

TEST_CASE("phone: every lesson step's title and step count show whole inside the screen") {
  for (const float kLessonScale : {1.0f, 3.0f}) {  // the desktop window at that size, and a phone's screen
    Headless ui(390 * kLessonScale, 844 * kLessonScale, kLessonScale);
    ui.frames(2);
    for (int step = 1; step <= rv::kLessonSteps; ++step) {
      ui.set_state("lesson=" + std::to_string(step));
      ui.frames(2);
      const rv::LessonStep& s = rv::lesson_step(step);
      const std::string title = std::string("Lesson ") + s.section + " · " + s.title;
      const std::string count = "(step " + std::to_string(step) + " of " + std::to_string(rv::kLessonSteps) + ")";
      const std::string text = ui.frame_sentences();  // a title wrapped between words reads whole
      INFO("scale " << kLessonScale << ", step " << step << ": " << text);
      CHECK(text.find(title) != std::string::npos);
      CHECK(text.find(count) != std::string::npos);
      // the box itself lies inside the screen
      const rv::Rect next = ui.rect("lesson_next"), close = ui.rect("lesson_close");
      CHECK(next.x + next.w <= 390 * kLessonScale + 0.5f);
      CHECK(close.x + close.w <= 390 * kLessonScale + 0.5f);
    }
  }
}
