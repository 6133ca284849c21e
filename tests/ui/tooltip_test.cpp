// Every tooltip fits the display: the mouse sweeps every panel on a phone (390 x 844) and a small window, and each
// tooltip drawn lies inside the screen (a long read-out such as the angle field's ran off a phone's right edge).
#include <doctest/doctest.h>

#include <string>

#include "app/state/registry.hpp"
#include "headless.hpp"
#include "imgui_internal.h"

using rv::test::Headless;

namespace {

struct TipSweep {
  int tips = 0;     // tooltips seen
  int outside = 0;  // of them, past an edge of the display
};

// Moves the mouse over a grid of points on the display (the panel's tab already chosen) and checks every tooltip.
void sweep(Headless& ui, float w, float h, const char* panel, TipSweep& seen) {
  for (float y = 8; y < h; y += 56)
    for (float x = 6; x < w; x += 32) {
      ui.mouse_move(x, y);
      ui.frames(2);  // a tooltip is sized on its first frame and placed on the next
      for (const ImGuiWindow* win : ImGui::GetCurrentContext()->Windows) {
        if (!(win->Flags & ImGuiWindowFlags_Tooltip) || !win->Active || win->Hidden) continue;
        ++seen.tips;
        const bool inside = win->Pos.x >= 0 && win->Pos.x + win->Size.x <= w + 0.5f;
        if (!inside) {
          ++seen.outside;
          INFO(std::string(panel) << ": mouse (" << x << ", " << y << "), tooltip from x " << win->Pos.x << " to "
                     << win->Pos.x + win->Size.x << " on a display " << w << " wide");
          CHECK(inside);
        }
      }
    }
}

}  // namespace

TEST_CASE("tooltips: on a phone and a small window every tooltip of every panel lies inside the display") {
  for (const rv::test::Display d : {rv::test::Display{390, 844, 1}, rv::test::Display{800, 600, 1}}) {
    Headless ui(d.w, d.h, d.scale);
    TipSweep seen;
    for (rv::Bar bar : {rv::Bar::Top, rv::Bar::Bottom})
      for (const rv::Panel* panel : rv::bar_panels(bar)) {
        ui.set_state(std::string("tab=") + panel->key);
        ui.frames(2);
        sweep(ui, d.w, d.h, panel->key, seen);
      }
    INFO(d.w << " x " << d.h << ": " << seen.tips << " tooltips seen");
    CHECK(seen.tips >= 50);  // the sweep reaches the read-outs, so the check above has something to check
    CHECK(seen.outside == 0);
  }
}
