// The Run it panel (app/run): a demo model run on the held-out sample a pass per frame, its measured sentence, the
// shift test, Stop keeping what was done, and refusals by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "alloc_counter.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/run/run_session.hpp"
#include "app/run/run_torch.hpp"
#include "app/state/registry.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
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
  // ... and under the method Context extension shows, beside the formula's plot
  ui.set_state("tab=extension&scaling=yarn&factor=4");
  ui.frames(2);
  CHECK(rv::describe_panel(*rv::find_panel("extension"), ui.app)
            .find("Measured by Run it on model.safetensors (trained at 512), loss in nats per token at positions "
                  "64-511 / 512-767: YaRN x4 ") != std::string::npos);
  ui.set_state("scaling=linear");
  ui.frames(1);
  CHECK(rv::describe_panel(*rv::find_panel("extension"), ui.app).find("Measured by Run it") == std::string::npos);
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

TEST_CASE("run it: the passkey bench on llama-bytes, a cell per frame, its grids, sentence and state") {
  Headless ui;
  load(ui, "llama-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 1024;
  s.settings.loss = s.settings.shift = false;
  s.settings.bench = true;
  s.settings.bench_lengths = 2;  // 512 and 1,024 tokens
  s.settings.bench_depths = 2;   // the key at the start and at the end of the filler
  s.settings.bench_trials = 2;
  for (bool& r : s.settings.rope) r = false;
  s.settings.rope[int(rv::RunRope::None)] = s.settings.rope[int(rv::RunRope::Yarn)] = true;
  ui.frame();
  REQUIRE(ui.app.ui.rects.count("run_bench"));
  ui.click("run_button");
  INFO(s.error);
  REQUIRE(s.running);
  REQUIRE(s.jobs.size() == 2 * 2 * 2);  // two ropes of 2 x 2 cells, no loss passes
  CHECK(s.study.curves.empty());
  ui.frame();
  CHECK(s.study.grids[0].done >= 1);
  for (int i = 0; i < 20 && s.running; ++i) ui.frame();
  REQUIRE_FALSE(s.running);
  CHECK(s.error.empty());
  REQUIRE(s.study.grids.size() == 2);
  for (const rv::RunGrid& g : s.study.grids)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        CHECK(g.errors[i][j].empty());
        CHECK((g.accuracy[i][j] >= 0.0 && g.accuracy[i][j] <= 1.0));
        CHECK(g.key_logprob[i][j] < 0.0);
      }
  // the trained range's cells find their keys better than those past it without scaling (log-probability)
  const rv::RunGrid& none = s.study.grids[0];
  CHECK(none.key_logprob[0][0] + none.key_logprob[0][1] > none.key_logprob[1][0] + none.key_logprob[1][1]);
  CHECK(s.bench_sentence.find("Passkey, measured on model.safetensors (2 keys a cell") == 0);
  CHECK(s.bench_sentence.find("YaRN x4 ") != std::string::npos);
  const std::string state = rv::state_json(ui.app);
  CHECK(state.find("\"bench\":{\"lengths\":[512,1024],\"depths\":[0,1],\"trials\":2") != std::string::npos);
  CHECK(rv::describe_panel(*rv::find_panel("run"), ui.app).find("Passkey, measured on") != std::string::npos);
  ui.frames(3);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK((rv::test::allocations() - before) / 10 == 0);  // the grids draw from the study: no allocation a frame
}

TEST_CASE("run it: LongRoPE needs the config's factors, and a run with nothing ticked is refused") {
  Headless ui;
  load(ui, "llama-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 128;
  s.settings.rope[int(rv::RunRope::LongRope)] = true;
  ui.frame();
  CHECK_FALSE(s.settings.rope[int(rv::RunRope::LongRope)]);  // unticked: llama-bytes's config has no factors
  s.settings.loss = s.settings.shift = s.settings.bench = false;
  CHECK_FALSE(rv::run_start(ui.app));
  CHECK(s.error.find("nothing to run") != std::string::npos);
  const std::optional<rv::RunSettings> back = rv::run_settings_from(rv::run_settings_numbers(s.settings));
  REQUIRE(back);
  CHECK(rv::run_settings_numbers(*back) == rv::run_settings_numbers(s.settings));
  CHECK_FALSE(rv::run_settings_from({1, 2, 3}));
}

TEST_CASE("run it: the PyTorch button exports ropeviz_run.py and a request per rope for the settings") {
  Headless ui;
  load(ui, "llama-bytes");
  rv::RunSession& s = rv::run_session(ui.app);
  s.settings.length = 300;
  s.settings.bench = true;
  s.settings.bench_lengths = 1;
  s.settings.bench_depths = 1;
  for (bool& r : s.settings.rope) r = false;
  s.settings.rope[int(rv::RunRope::None)] = s.settings.rope[int(rv::RunRope::Yarn)] = true;
  s.settings.rope[int(rv::RunRope::Drop)] = true;
  ui.frame();
  REQUIRE(ui.app.ui.rects.count("run_torch"));
  const std::vector<rv::ExportFile> files = rv::run_torch(ui.app);
  REQUIRE(files.size() == 1 + 3 * 2);
  CHECK(files[0].name == "ropeviz_run.py");
  CHECK(files[0].content.find("def main(") != std::string::npos);
  const auto find = [&](const std::string& name) -> const std::string& {
    for (const rv::ExportFile& f : files)
      if (f.name == name) return f.content;
    FAIL("no " << name);
    return files[0].content;
  };
  CHECK(
      find("ropeviz-run-passkey-yarn.json") ==
      "{\"op\":\"passkey\",\"lengths\":[300],\"depths\":[0.5],\"trials\":2,\"seed\":0,\"rope_scaling\":{\"rope_type\":"
      "\"yarn\",\"factor\":4,\"original_max_position_embeddings\":512}}\n");
  CHECK(find("ropeviz-run-passkey-none.json").find("\"rope_scaling\":\"none\"}") != std::string::npos);
  CHECK(find("ropeviz-run-passkey-drop.json").find("\"rope\":\"drop\"}") != std::string::npos);
  // window 0's tokens: the held-out sample's first 300 bytes
  const std::string& loss = find("ropeviz-run-loss-none.json");
  CHECK(loss.find("{\"op\":\"forward\",\"tokens\":[" + std::to_string((unsigned char)rv::heldout_sample()[0]) + ",") ==
        0);
  CHECK(loss.find("],\"outputs\":[\"nll\"],\"rope_scaling\":\"none\"}") != std::string::npos);
  ui.click("run_torch");
  CHECK(rv::test::has_note(ui.app.ui.notes, "PyTorch export: ropeviz_run.py and 6 requests"));
}
