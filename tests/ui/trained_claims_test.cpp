// Every sentence true for trained models, not only for the formula: the lesson's steps, the Comparison table,
// the exercises, the context budget, the presets and the checks say which of the two each claim holds for.
#include <doctest/doctest.h>

#include <string>

#include "headless.hpp"

using rv::test::Headless;

namespace {
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("frame_text returns the text a frame drew, and only what it drew") {
  Headless ui;
  ui.frames(2);
  const std::string text = ui.frame_text();
  INFO(text.size() << ": " << text.substr(0, 400));
  CHECK(contains(text, "position"));
  CHECK_FALSE(contains(text, "this sentence is drawn nowhere"));
  CHECK(ui.frame_text() == text);  // steady: the same frame twice draws the same text
}
