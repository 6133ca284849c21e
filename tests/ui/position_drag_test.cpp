// Dragging the position slider past max_position: the learned table fails with PyTorch's exact
// IndexError while RoPE keeps producing angles m * theta_i.
#include <doctest/doctest.h>

#include <cmath>

#include "app/text/report.hpp"
#include "app/ui/widgets.hpp"
#include "headless.hpp"

using rv::test::Headless;

TEST_CASE("dragging position past max_position flips the learned table to IndexError, RoPE stays valid") {
  Headless ui;
  ui.frames(2);
  REQUIRE(ui.app.params.max_position == 10);

  const rv::PositionScale scale = rv::PositionScale::for_table(10);
  ui.drag("position", 0.0, scale.to_u(4.0));
  CHECK(ui.app.params.position == 4);
  CHECK_FALSE(ui.app.model.lookup_error.has_value());
  REQUIRE(ui.app.model.row.has_value());
  CHECK(ui.app.model.row->size() == 32);

  // Mouse positions are whole pixels, so the drag lands near 100, not necessarily on it.
  ui.drag("position", scale.to_u(4.0), scale.to_u(100.0), 12);
  const long long m = ui.app.params.position;
  CHECK(m > 80);
  CHECK(m < 120);
  const std::string message = "index " + std::to_string(m) + " is out of bounds for dimension 0 with size 10";
  REQUIRE(ui.app.model.lookup_error.has_value());
  CHECK(ui.app.model.lookup_error->full() == "IndexError: " + message);
  CHECK_FALSE(ui.app.model.row.has_value());

  REQUIRE(ui.app.model.angles.size() == 4);
  const double theta[4] = {1.0, 0.1, 0.01, 0.001};
  for (int i = 0; i < 4; ++i) CHECK(ui.app.model.angles[i] == doctest::Approx(double(m) * theta[i]).epsilon(1e-12));
  CHECK(std::isfinite(ui.app.model.score));

  const std::string text = rv::describe(ui.app);
  CHECK(text.find("cannot serve position " + std::to_string(m)) != std::string::npos);
  CHECK(text.find(message) != std::string::npos);
}

TEST_CASE("the slider reaches far past the table: 20 x max_position and 10^6") {
  Headless ui;
  ui.frame();
  ui.drag("position", 0.3, 1.05, 8);  // past the track's end: the far end of the reach
  CHECK(ui.app.params.position == 1000000);
  CHECK(ui.app.model.lookup_error.has_value());
  for (int i = 0; i < ui.app.model.angles.size(); ++i) CHECK(std::isfinite(ui.app.model.angles[i]));
}

TEST_CASE("arrow keys step the position, shift by 10") {
  Headless ui;
  ui.frame();
  const long long m0 = ui.app.params.position;
  ui.key(ImGuiKey_RightArrow);
  CHECK(ui.app.params.position == m0 + 1);
  ui.key(ImGuiKey_RightArrow, true);
  CHECK(ui.app.params.position == m0 + 11);
  ui.key(ImGuiKey_LeftArrow, true);
  ui.key(ImGuiKey_LeftArrow, true);
  CHECK(ui.app.params.position == 0);  // clamped at 0, never negative
}
