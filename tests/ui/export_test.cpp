// Exports: the buttons hand the platform a file whose numbers are core's, exactly.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/state/export.hpp"
#include "app/state/params.hpp"
#include "core/rope/rope.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

// Data rows of a CSV (comment and header lines skipped), as numbers.
std::vector<std::vector<double>> csv_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream lines(text);
  std::string line;
  int header = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || header++ == 0) continue;
    std::vector<double> row;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) row.push_back(std::strtod(cell.c_str(), nullptr));
    rows.push_back(row);
  }
  return rows;
}

void open_state(Headless& ui, const char* state) {
  ui.set_state(state);
  ui.frames(2);
}

}  // namespace

TEST_CASE("angles.csv holds theta_i, m*theta_i and the rotated pairs exactly as core computes them") {
  Headless ui;
  open_state(ui, "position=100&d_head=8&pairing=half_split");
  ui.click("export_angles");
  REQUIRE(ui.app.ui.pending_exports.size() == 1);
  const rv::ExportFile& file = ui.app.ui.pending_exports.front();
  CHECK(file.name == "ropeviz-angles-m100-d8.csv");
  CHECK(file.mime == "text/csv");
  CHECK(file.content.find("# ropeviz") == 0);
  const auto rows = csv_rows(file.content);
  REQUIRE(rows.size() == 4);
  const Eigen::VectorXd theta = rv::rope_inv_freq(8, 10000.0);
  const Eigen::VectorXd q_rot = rv::apply_rope(ui.app.model.q, 100.0, theta, rv::Pairing::HalfSplit);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(rows[i].size() == 11);
    CHECK(rows[i][0] == i);
    CHECK(rows[i][1] == theta[i]);  // exact: the CSV text round-trips
    CHECK(rows[i][2] == 100.0 * theta[i]);
    CHECK(rows[i][7] == q_rot[i]);  // half_split pair i is (x[i], x[i + d/2])
    CHECK(rows[i][8] == q_rot[i + 4]);
  }
}

TEST_CASE("score.csv is the curve against the offset, equal at both anchors") {
  Headless ui;
  open_state(ui, "offsets=16&position=40&key_position=7");
  ui.click("export_score");
  REQUIRE(ui.app.ui.pending_exports.size() == 1);
  const auto rows = csv_rows(ui.app.ui.pending_exports.front().content);
  REQUIRE(rows.size() == 33);
  const rv::Model& m = ui.app.model;
  for (const auto& row : rows) {
    const double r = row[0];
    const double direct = rv::rope_score(m.q, m.k, m.anchor_a + r, m.anchor_a, m.inv_freq, ui.app.params.pairing);
    CHECK(row[1] == doctest::Approx(direct).epsilon(1e-12));
    CHECK(row[2] == doctest::Approx(row[1]).epsilon(1e-9));
  }
  CHECK(rows.front()[0] == -16);
  CHECK(rows.back()[0] == 16);
}

TEST_CASE("state.json is state() and names the IndexError past the table") {
  Headless ui;
  open_state(ui, "position=100");
  ui.click("export_state");
  REQUIRE(ui.app.ui.pending_exports.size() == 1);
  const std::string& json = ui.app.ui.pending_exports.front().content;
  CHECK(json.find("\"error\":\"IndexError: index 100 is out of bounds for dimension 0 with size 10\"") !=
        std::string::npos);
  CHECK(ui.app.ui.pending_exports.front().name == "ropeviz-state-m100-d8.json");
}

TEST_CASE("copy link asks the platform to copy, once") {
  Headless ui;
  open_state(ui, "position=42");
  CHECK_FALSE(ui.app.ui.pending_copy_link);
  ui.click("copy_link");
  CHECK(ui.app.ui.pending_copy_link);  // headless has no platform to take it
}

TEST_CASE("export: a bar's PNG button asks for a picture of the panel it shows, picture.png for the whole window") {
  Headless ui;
  ui.set_state("position=100&tab=lab&tab_top=angle_field");
  ui.frames(3);
  ui.click("png_bottom");
  REQUIRE(ui.app.ui.pending_picture);
  CHECK(ui.app.ui.picture_panel == "lab");
  const std::optional<rv::Rect> region = rv::picture_region(ui.app);
  REQUIRE(region.has_value());
  const rv::Rect panel = ui.app.ui.rects.at("panel_bottom");
  CHECK(region->x == panel.x);
  CHECK(region->y == panel.y);
  CHECK(region->w == panel.w);
  CHECK(region->h == panel.h);
  CHECK(panel.w > 100);
  CHECK(panel.h > 100);
  CHECK(panel.y > ui.app.ui.rects.at("panel_top").y);  // the bottom bar's panel, not the top one
  CHECK(rv::picture_name(ui.app, ui.app.ui.picture_panel) == "ropeviz-lab-m100-d8.png");
  ui.app.ui.pending_picture = false;
  ui.click("png_top");
  CHECK(ui.app.ui.picture_panel == "angle_field");
  ui.app.ui.pending_picture = false;
  ui.click("export_picture");
  REQUIRE(ui.app.ui.pending_picture);
  CHECK(ui.app.ui.picture_panel.empty());
  CHECK(!rv::picture_region(ui.app).has_value());
}
