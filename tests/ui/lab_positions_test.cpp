// The Lab at random positions: the positions and position_range link keys and their limits, and the sequential vs
// random view, which runs the other placement and sets the two side by side.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "app/lab/lab_views.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "headless.hpp"

using rv::test::contains;
using rv::test::Headless;

namespace rv {
std::string describe_lab(const App& app);  // the panel's text layer (registry)
}

TEST_CASE("lab positions: the link keys, their limits, and the flags a Run takes") {
  Headless ui;
  CHECK(ui.set_state("tab=lab&positions=random&position_range=50&train_len=2").empty());
  CHECK(ui.app.params.positions == rv::LabPositions::Random);
  CHECK(contains(rv::encode_query(ui.app.params), "positions=random&position_range=50"));
  const std::vector<std::string> flags = rv::lab_flags(ui.app.params);
  const auto at = std::find(flags.begin(), flags.end(), "--positions");
  REQUIRE(at != flags.end());
  CHECK(*(at + 1) == "random");
  CHECK(*(at + 3) == "50");
  const rv::LabOptions o = rv::lab_options(ui.app.params);
  CHECK(o.positions == rv::LabPositions::Random);
  CHECK(rv::lab_table_len(o) == 50);  // the learned table has R rows
  Headless table;                     // a table length is for sequential positions
  CHECK(!table.set_state("positions=random&table_len=12").empty());
  CHECK(table.app.params.table_len == 0);
  Headless shorter;  // copy at train_len 3 tests inputs up to 24 tokens: a range of 20 cannot hold them
  CHECK(!shorter.set_state("positions=random&position_range=20").empty());
  CHECK(shorter.app.params.position_range == 0);
  Headless bad;
  CHECK(!bad.set_state("positions=shuffled").empty());
  CHECK(bad.app.params.positions == rv::LabPositions::Sequential);
  Headless seq;  // sequential positions ignore a kept range: a Run's flags still parse
  seq.set_state("position_range=60");
  CHECK(rv::parse_lab_options(rv::lab_flags(seq.app.params)));
}

TEST_CASE("lab positions: the sequential vs random view runs the other placement and sets the two side by side") {
  Headless ui;
  ui.set_state("tab=lab&task=copy&train_len=2&steps=40&methods=rope,none&seeds=2&lab_seed=3");
  ui.frames(2);
  ui.click("lab_run");
  ui.frames_while_lab_runs();
  ui.frames(2);
  ui.click("lab_remedy");
  ui.frames(2);
  CHECK(!rv::lab_remedy_ready(ui.app));
  CHECK(contains(ui.frame_sentences(), "This run trained at positions 0 to T-1."));
  ui.click("lab_remedy_run");  // the same experiment at random positions
  CHECK(ui.app.lab.running);
  CHECK(ui.app.params.positions == rv::LabPositions::Random);  // the link follows the run
  ui.frames_while_lab_runs();
  ui.frames(3);
  REQUIRE(rv::lab_remedy_ready(ui.app));
  const rv::LabResult& r = ui.app.lab.run->result();
  CHECK(r.options.positions == rv::LabPositions::Random);
  CHECK(ui.app.lab.previous->options.positions == rv::LabPositions::Sequential);
  const std::string text = ui.frame_sentences();
  INFO(text);
  CHECK(contains(text, "Solid: trained at 0 to T-1. Dashed: trained at random positions in [0, 64)"));
  const std::string described = rv::describe_lab(ui.app);
  CHECK(contains(described, "Sequential against random positions, exact match just past training (sizes 3 to 4):"));
  CHECK(contains(described, " none: trained at 0 to T-1 "));
  // NoPE reads no position: its random run gives the same numbers at random positions and at 0..T-1
  CHECK(r.methods[1].accuracy == r.methods[1].accuracy_sequential);
}
