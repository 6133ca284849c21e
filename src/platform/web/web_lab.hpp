// The lab in Web Workers (docs/window-ropeviz.md, lab(options)): the page's engine, whose runs
// (one per method and seed) train in workers that web/page.js starts, each with its own instance of this wasm, and
// hands back through the rv_web_lab_* functions; the workers' side is rv_lab_worker_*.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

class WebLab;
struct Window;

// The page's side of the workers, one per page: page.js holds its address (rvStarted) and passes it back.
struct WebLabs {
  App* app = nullptr;
  Window* window = nullptr;    // woken to draw the frames that show what arrived
  WebLab* current = nullptr;   // the engine the page's workers train for (a replaced one stops its workers)
  std::uint64_t last_id = 0;
  int workers = 0;  // the next run's workers (lab(options)'s "workers"); 0: the page's default (web/page.js)
  std::vector<std::uint8_t> bytes;  // a run's JSON and weights, written by the page before rv_web_lab_run
};

// Makes app.lab's runs train in the page's workers (LabSession::engine).
void install_web_lab(WebLabs& labs);

}  // namespace rv
