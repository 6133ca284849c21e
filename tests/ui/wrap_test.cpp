// Wrapped text keeps each number whole: ImGui 1.86 may end a line after any ',' or '.', and the build's copy of its
// wrap (CMakeLists.txt) keeps one between two digits inside its number, so a phone never shows "131," over "072".
#include <doctest/doctest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "app/state/registry.hpp"
#include "headless.hpp"
#include "imgui.h"

using rv::test::Headless;

namespace {

constexpr float kPhoneScale = 3.0f;  // 390 x 844 CSS pixels at 3 device pixels each, as phone_test.cpp

// The drawn lines of `text`, one per line break.
std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "131," over "072" or "0." over "25": a line that ends in a digit group and ',' with the next line starting with a
// group of three digits, or in a digit and '.' with the next starting with a digit. Drawn text has no trailing space,
// so a list's ", " ("[131072, | 4096]": more than three digits on either side) is told apart by the group's length.
std::string number_split(const std::vector<std::string>& lines) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const auto digits_before = [&](const std::string& s, size_t end) {  // the run of digits that ends at `end`
    size_t n = 0;
    while (n < end && digit(s[end - 1 - n])) ++n;
    return n;
  };
  const auto leading_digits = [&](const std::string& s) {
    size_t n = 0;
    while (n < s.size() && digit(s[n])) ++n;
    return n;
  };
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string& a = lines[i];
    const std::string& b = lines[i + 1];
    if (a.size() < 2 || b.empty() || !digit(a[a.size() - 2]) || !digit(b[0])) continue;
    const bool group = a.back() == ',' && digits_before(a, a.size() - 1) <= 3 && leading_digits(b) == 3;
    if (group || a.back() == '.') return a + " | " + b;
  }
  return "";
}

}  // namespace

TEST_CASE("wrapped text never breaks a number at its ',' or '.', at any width, on a phone") {
  Headless ui(390 * kPhoneScale, 844 * kPhoneScale, kPhoneScale);
  ui.frame();  // ImGui measures with the font a frame sets
  const char* sentence = "the table holds 131,072 rows of 8,192 numbers, a share of 0.25 each, 1,000,000 in all";
  const float full = ImGui::CalcTextSize(sentence).x;
  const float narrowest = ImGui::CalcTextSize("1,000,000").x + 2;
  int widths = 0, wrapped = 0;
  for (float width = narrowest; width < full; width += 2, ++widths) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(width + 2 * ImGui::GetStyle().WindowPadding.x, 844 * kPhoneScale));
    ImGui::Begin("wrap", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::TextWrapped("%s", sentence);  // the app's ~40 TextWrapped calls
    ImGui::PushTextWrapPos(0.0f);        // and its text under PushTextWrapPos
    ImGui::TextUnformatted(sentence);
    ImGui::PopTextWrapPos();
    ImGui::End();
    ImGui::Render();
    const std::vector<std::string> lines = text_lines(Headless::drawn_text());
    INFO("wrap width " << width << ": " << Headless::drawn_text());
    CHECK(number_split(lines) == "");
    if (lines.size() > 2) ++wrapped;
  }
  CHECK(widths > 100);
  CHECK(wrapped == widths);  // every width wrapped the sentence: the check above saw line breaks
}

TEST_CASE("phone: no panel's wrapped text breaks a number at its ',' or '.'") {
  Headless ui(390 * kPhoneScale, 844 * kPhoneScale, kPhoneScale);
  ui.set_state("model=llama-3.1-8b&position=131072");
  ui.frames(3);
  for (rv::Bar bar : {rv::Bar::Top, rv::Bar::Bottom})
    for (const rv::Panel* panel : rv::bar_panels(bar)) {
      INFO(panel->key);
      ui.set_state(std::string("tab=") + panel->key);
      ui.frames(2);
      const std::string text = ui.frame_text();
      INFO(text);
      CHECK(number_split(text_lines(text)) == "");
    }
}
