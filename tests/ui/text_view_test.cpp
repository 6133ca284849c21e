// The structured text view: headings, the RoPE table with core's numbers, the IndexError, the shown panels, the
// lab's summary as a table, the notes as a list, and every text escaped.
#include <doctest/doctest.h>

#include <string>

#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/text/text_view.hpp"
#include "core/base/format.hpp"
#include "headless.hpp"

using rv::test::Headless;
using rv::test::contains;

namespace {
int count(const std::string& s, const std::string& part) {
  int n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("text view: headings and a table of RoPE's pairs with core's theta_i and angles") {
  Headless ui;
  ui.set_state("position=7&d_head=8&base=10000&tab_top=rotations&tab_bottom=learned_table");
  ui.frames(2);
  const std::string html = rv::text_view_html(ui.app);
  CHECK(contains(html, "<h2>Position m = 7, key n = 3</h2>"));
  CHECK(contains(html, "<caption>RoPE&#39;s 4 pairs at m = 7</caption>"));
  CHECK(count(html, "<th scope=\"row\">") == 4);
  const rv::Model& m = ui.app.model;
  for (int i = 0; i < 4; ++i)
    CHECK(contains(html, "<th scope=\"row\">" + std::to_string(i) + "</th><td>" + rv::format_sig(m.inv_freq[i]) +
                        "</td><td>" + rv::format_sig(m.angles[i]) + "</td>"));
  CHECK(contains(html, "It serves position 7 by looking up row P[7]."));
  CHECK(contains(html, "<h2>Rotations per frequency</h2>"));
  CHECK(contains(html, "<h2>Learned table</h2>"));
  CHECK(!contains(html, "<h2>Notes</h2>"));
}

TEST_CASE("text view: the IndexError, the notes as a list, and user text escaped") {
  Headless ui;
  ui.set_state("position=100&max_position=10");
  rv::set_param(ui.app.params, "d_head", "<b>", ui.app.ui.notes);  // refused, with a note that quotes it
  ui.frames(2);
  const std::string html = rv::text_view_html(ui.app);
  CHECK(contains(html,
                 "It cannot serve position 100: IndexError: index 100 is out of bounds for dimension 0 with size 10"));
  CHECK(contains(html, "<h2>Notes</h2><ul><li>"));
  CHECK(!contains(html, "<b>"));  // the refused value is quoted in its note, escaped
  CHECK(contains(html, "&lt;b&gt;"));
  CHECK(rv::html_escape("a&b<c>\"d'") == "a&amp;b&lt;c&gt;&quot;d&#39;");
}

TEST_CASE("text view: a finished lab run's summary is a table, one row per method") {
  Headless ui;
  ui.set_state("tab=lab&methods=learned,rope&train_len=2&steps=5&seeds=1");
  ui.frames(2);
  REQUIRE(rv::lab_start(ui.app, rv::lab_flags(ui.app)));
  ui.frames_while_lab_runs();
  const std::string html = rv::text_view_html(ui.app);
  CHECK(contains(html,
                 "<caption>Exact match by sequence size, L = 2; each method trains until every training size is at "
                 "the bar, so the step counts differ</caption>"));
  CHECK(contains(html, "<th scope=\"row\">learned</th>"));
  CHECK(contains(html, "<th scope=\"row\">rope</th>"));
}
