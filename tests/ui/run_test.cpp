// The Run it panel (app/run): a demo model run on the held-out sample a pass per frame, its measured sentence, the
// shift test, Stop keeping what was done, and refusals by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "alloc_counter.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/run/run_session.hpp"
#include "app/state/registry.hpp"
#include "app/state/weights.hpp"
#include "headless.hpp"

using rv::test::Headless;

namespace {

const std::string kModels = RV_SOURCE_DIR "/web/models/";

void load(Headless& ui, const std::string& name) {
  REQUIRE(rv::load_weights_path(ui.app.params, kModels + name + "/model.safetensors", ui.app.ui.notes));
  ui.set_state("tab=run");
  ui.frame();
  ui.frame();
  INFO(ui.frame_text());
  REQUIRE(ui.app.ui.rects.count("run_button"));
}

}  // namespace

TEST_CASE("run it: llama-bytes past its 512 positions, a pass per frame, the sentence measured and the shift flat") {
  Headless ui;
  load(ui, "llama-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 768;
  s.settings.windows = 1;
  for (bool& r : s.settings.rope) r = false;
  s.settings.rope[int(rv::RunRope::None)] = s.settings.rope[int(rv::RunRope::Yarn)] = true;
  ui.click("run_button");
  INFO(s.error);
  REQUIRE(s.running);
  REQUIRE(s.jobs.size() == 2 + 4 + 1);  // two curves of one window, four shifts, attention
  ui.frame();
  CHECK(s.next >= 1);
  CHECK(s.next < s.jobs.size());  // one pass a frame: the UI draws between them
  for (int i = 0; i < 20 && s.running; ++i) ui.frame();
  REQUIRE_FALSE(s.running);
  CHECK(s.error.empty());
  const std::string sentence = rv::run_sentence(s);
  CHECK(sentence.find("Measured on model.safetensors (no scaling)") == 0);
  const std::vector<double> none = s.study.curves[0].mean();
  const double in = rv::loss_between(none, 64, 511), past = rv::loss_between(none, 512, 767);
  CHECK(past > 1.5 * in);  // the model trained at 512 is lost past it without scaling
  CHECK(rv::loss_between(s.study.curves[1].mean(), 512, 767) < past);  // YaRN rescues it
  REQUIRE(s.study.shifts.size() == 4);
  for (const rv::RunShift& sh : s.study.shifts) CHECK(std::abs(sh.loss - s.study.shifts[0].loss) < 1e-4);
  CHECK(s.study.sink.size() == 6);
  // the attention pass's activation pair norms: 16 rotated pairs of a 32-wide head, q over 8 heads, k over 4
  REQUIRE(s.study.q_pair_norms.size() == 6);
  CHECK(s.study.q_pair_norms[0].size() == 8);
  CHECK(s.study.k_pair_norms[0].size() == 4);
  REQUIRE(s.q_act.size() == 16);
  for (std::size_t i = 0; i < 16; ++i) CHECK((s.q_act[i] > 0 && s.k_act[i] > 0));
  // ... drawn beside the weights' gains in Frequencies in use, once its walk is done
  ui.set_state("tab=rope_usage");
  for (int i = 0; i < 20 && ui.app.usage.active; ++i) ui.frame();
  ui.frames(2);
  CHECK(rv::describe_panel(*rv::find_panel("rope_usage"), ui.app)
            .find("Activations on Run it's text: the largest mean pair norm (q x k) is pair ") != std::string::npos);
  ui.set_state("tab=run");
  ui.frames(2);
  CHECK(ui.frame_sentences().find("times") != std::string::npos);
  ui.frames(3);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK((rv::test::allocations() - before) / 10 == 0);  // the drawn curves are built once, when a pass lands
}

TEST_CASE("run it: gpt2-bytes's table ends at 1,024 rows: the shift there is PyTorch's IndexError") {
  Headless ui;
  load(ui, "gpt2-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 256;
  s.settings.windows = 1;
  INFO(s.error);
  REQUIRE(rv::run_start(ui.app));
  CHECK(s.learned);
  CHECK(s.plan.ropes.size() == 1);  // a learned table: no rope to choose
  for (int i = 0; i < 20 && s.running; ++i) ui.frame();
  REQUIRE(s.study.shifts.size() == 4);
  CHECK(s.study.shifts[1].error.empty());
  CHECK(std::abs(s.study.shifts[1].loss - s.study.shifts[0].loss) > 0.05);  // absolute positions: the loss moves
  CHECK(s.study.shifts[2].error == "IndexError: index 1024 is out of bounds for dimension 0 with size 1024");
}

TEST_CASE("run it: refused without a checkpoint, and Stop keeps the passes done") {
  Headless ui;
  ui.set_state("tab=run");
  ui.frame();
  CHECK_FALSE(rv::run_start(ui.app));
  CHECK(rv::run_session(ui.app).error.find("no checkpoint loaded") == 0);
  load(ui, "llama-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 128;
  REQUIRE(rv::run_start(ui.app));
  ui.frame();
  rv::run_stop(ui.app);
  const std::size_t done = s.next;
  ui.frames(3);
  CHECK(s.next == done);
  CHECK(s.stopped);
  CHECK(rv::run_status(s).find("stopped after") == 0);
  s.settings.length = 20000;
  CHECK_FALSE(rv::run_start(ui.app));
  CHECK(s.error.find("16384 tokens, fewer than a window of 20000") != std::string::npos);
}
