// Every drawn claim true: checks that follow the table size, PyTorch's real behaviour, which width is which,
// notes counted and coloured by kind, and a pairing box that shows its whole label.
#include <doctest/doctest.h>

#include <string>

#include "app/state/notes.hpp"
#include "app/text/report.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"

using rv::test::Display;
using rv::test::Headless;
using rv::test::contains;

namespace {
}  // namespace

TEST_CASE("truth: no table size turns a check red, the probes follow max_position") {
  for (int n : {1, 2, 10, 11, 100, 101, 1024, 1 << 20}) {
    Headless ui;
    // 1 << 20 rows need a narrow d to stay within the table-entry limit
    ui.set_state("max_position=" + std::to_string(n) + "&tab_bottom=2" + (n > 100000 ? "&heads=1&d_head=8" : ""));
    const int before = rv::imgui_assert_count();
    ui.frames(3);
    CHECK(rv::imgui_assert_count() == before);
    const rv::Model& m = ui.app.model;
    REQUIRE(ui.app.params.max_position == n);
    CHECK(m.probes[0].position == std::min(5, n - 1));
    CHECK(m.probes[1].position == n - 1);
    CHECK(m.probes[2].position == std::max(100, n));
    for (const rv::Probe& p : m.probes) {
      INFO("max_position " << n << ", probe at " << p.position << ": " << p.learned);
      CHECK(p.holds());
    }
    CHECK(m.probes[1].learned_ok);        // the last row exists
    CHECK_FALSE(m.probes[2].learned_ok);  // the first row past the table does not
    for (const rv::Check& c : m.checks) {
      INFO("max_position " << n << ", " << c.name << ": " << c.detail);
      CHECK(c.ok);
    }
  }
}

TEST_CASE("truth: the lesson's own probes stay 5 and 100 with its 10 rows") {
  Headless ui;
  ui.frames(2);
  const rv::Model& m = ui.app.model;
  CHECK(m.probes[0].position == 5);
  CHECK(m.probes[1].position == 9);
  CHECK(m.probes[2].position == 100);
  CHECK(m.probes[2].learned == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
}

TEST_CASE("truth: no text says PyTorch rejects P[-1], the tensor P[-1] is the last row") {
  Headless ui;
  ui.set_state("position=100&tab_bottom=0");
  ui.frames(3);
  for (const rv::Check& c : ui.app.model.checks) {
    CHECK_FALSE(contains(c.name, "not wrapped"));
    if (contains(c.name, "P[-1]")) CHECK(contains(c.detail, "pos_table[-1] returns P[9] (-1 wraps to 9)"));
  }
  CHECK_FALSE(contains(rv::describe(ui.app), "not wrapped"));
}

TEST_CASE("truth: a width says whose table it is, the app's [max_position, d] or the lesson's [10, d_head]") {
  Headless ui;
  ui.set_state("tab_bottom=2");
  ui.frames(2);
  const rv::Model& m = ui.app.model;
  CHECK(m.probes[0].learned == "P[5]: row of width d = 32 (the app's table [10, 32])");
  bool lesson_width = false;
  for (const rv::Check& c : m.checks) {
    CHECK_FALSE(contains(c.detail, "row of width 8"));
    lesson_width = lesson_width || contains(c.detail, "row of width d_head = 8 (the lesson's table");
  }
  CHECK(lesson_width);
}

TEST_CASE("truth: the same note twice is shown once with its count") {
  Headless ui;
  ui.frames(1);
  ui.app.ui.notes.push_back("copied the link to this view");
  ui.frames(1);
  ui.app.ui.notes.push_back("copied the link to this view");
  ui.frames(2);
  REQUIRE(ui.app.ui.notes.size() == 1);
  CHECK(ui.app.ui.note_repeats["copied the link to this view"] == 2);
  ui.app.ui.notes.push_back("copied the link to this view");
  ui.app.ui.notes.push_back("d_head=\"x\" is not a whole number; kept 8");
  ui.frames(1);
  CHECK(ui.app.ui.notes.size() == 2);
  CHECK(ui.app.ui.note_repeats["copied the link to this view"] == 3);
  ui.app.ui.notes.clear();
  ui.frames(1);
  CHECK(ui.app.ui.note_repeats.empty());
}

TEST_CASE("truth: a confirmation is info, a refused value a warning") {
  CHECK(rv::note_kind("copied the link to this view") == rv::NoteKind::Info);
  CHECK(rv::note_kind("copied: ropeviz --state 'position=5'") == rv::NoteKind::Info);
  CHECK(rv::note_kind("saved angles.csv in the working directory") == rv::NoteKind::Info);
  CHECK(rv::note_kind("could not write angles.csv") == rv::NoteKind::Warning);
  Headless ui;
  const std::vector<std::string> notes = ui.set_state("d_head=abc&max_position=0");
  REQUIRE(notes.size() == 2);
  for (const std::string& n : notes) CHECK(rv::note_kind(n) == rv::NoteKind::Warning);
}

TEST_CASE("truth: the pairing box is wide enough for its label at every display") {
  for (Display d : {Display{800, 600, 1}, Display{1280, 800, 1}, Display{800, 600, 2}, Display{1280, 800, 2}}) {
    for (const char* pairing : {"interleaved", "half_split"}) {
      Headless ui(d.w, d.h, d.scale);
      ui.set_state(std::string("pairing=") + pairing);
      ui.app.ui.sheet_open = true;  // 800 x 600 at scale 2 is phone width: the controls are a sheet
      ui.frames(3);
      const rv::Rect box = ui.rect("pairing"), full = ui.rect("position");
      const ImGuiStyle& st = ImGui::GetStyle();
      const float frame_w = ui.rect("pairing_frame").w;  // the box alone; "pairing" is the box and its name
      const float need = ImGui::CalcTextSize(rv::pairing_name(ui.app.params.pairing)).x + 2 * st.FramePadding.x +
                         ImGui::GetFrameHeight();
      INFO(d.w << "x" << d.h << " @" << d.scale << ", " << pairing << ": frame " << frame_w << ", needs " << need);
      CHECK(frame_w >= need);
      CHECK(box.x + box.w <= full.x + full.w + 1.0f);  // and the label still inside the controls
    }
  }
}

TEST_CASE("truth: past the table, the learned panel shows what P[m] does in every framework, next to the IndexError") {
  Headless ui;
  ui.set_state("position=100&tab_bottom=learned_table");
  ui.frames(3);
  const rv::Model& m = ui.app.model;
  REQUIRE(m.elsewhere.size() == 7);
  int errors = 0, silent = 0;
  for (const rv::FrameworkLookup& f : m.elsewhere) (f.silent() ? silent : errors) += 1;
  CHECK(errors == 4);  // PyTorch P[t], nn.Embedding on CPU and CUDA, tf.gather on CPU
  CHECK(silent == 3);  // tf.gather on GPU (zeros), jnp.take (NaN), JAX P[t] (clamped to the last row)
  CHECK(m.elsewhere[0].text == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
  CHECK(m.elsewhere.back().row == 9);
  const rv::Rect r = ui.rect("elsewhere");  // the last item, drawn in the panel without scrolling at 1280x800
  CHECK(r.w > 0.0f);
  CHECK(r.y > 400.0f);  // the bottom bar
  CHECK(r.y + r.h <= 800.0f);
  ui.set_state("position=5");
  ui.frames(2);
  CHECK(ui.app.model.elsewhere.empty());  // inside the table there is nothing to compare
}
