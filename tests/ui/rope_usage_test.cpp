// The "Frequencies in use" panel and its walk (app/rope_usage/usage.hpp): generated llama-shaped checkpoints with a
// planted pair, one layer per frame with progress and Stop, refusals by name, the page's ask-supply protocol holding
// one layer at a time, the text layer's numbers, and steady frames that allocate nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "alloc_counter.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/state/registry.hpp"
#include "app/rope_usage/usage.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
#include "headless.hpp"
#include "planted_checkpoint.hpp"

using rv::test::Headless;
using rv::test::contains;
using rv::test::has_note;
using rv::test::PlantedShape;

namespace {

std::shared_ptr<const rv::LoadedWeights> open_llama(const std::vector<std::uint8_t>& bytes, const std::string& config) {
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  files.config_text = config;
  files.config_bytes = config.size();
  const rv::SourceOpener open = [bytes](const std::string&) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(bytes));
  };
  auto w = rv::open_weights(files, open, rv::next_weights_serial());
  REQUIRE(w.ok());
  return w.value();
}

// open_llama of a planted checkpoint and its llama config, installed in the app.
bool install_planted(rv::App& app, const PlantedShape& shape, const std::string& dtype = "F32") {
  return rv::install_weights(app.params,
                             open_llama(rv::test::planted_checkpoint(shape, dtype), rv::test::planted_config(shape)),
                             app.ui.notes);
}

}  // namespace

TEST_CASE("rope_usage walk: one layer per frame, the planted pair strongest, in F32 and BF16") {
  for (const char* dtype : {"F32", "BF16"}) {
    CAPTURE(dtype);
    PlantedShape shape;
    shape.layers = 4;
    Headless ui;
    rv::App& app = ui.app;
    ui.set_state("tab_bottom=rope_usage");
    REQUIRE(install_planted(app, shape, dtype));
    CHECK(app.usage.q_grid.empty());
    ui.frame();
    CHECK(app.usage.total == 4);
    CHECK(app.usage.usage.q.size() == 1);  // one layer per frame
    CHECK(app.usage.active);
    const std::string mid = ui.frame_sentences();
    CHECK(app.usage.usage.q.size() == 2);
    CHECK(contains(mid, "reading: 2 of 4 layers measured"));
    CHECK(contains(mid, "Stop"));
    ui.frames(3);
    CHECK(!app.usage.active);
    CHECK(app.usage.usage.q.size() == 4);
    CHECK(app.usage.strongest == shape.planted_pair);
    CHECK(app.usage.usage.kv_heads == 2);
    const std::string text = ui.frame_sentences();
    CHECK(contains(text, "done: 4 of 4 layers measured"));
    CHECK(contains(text, "Strongest (q gain × k gain): pair 3"));
    CHECK(contains(text, "Read from the weights, not from activations"));
    CHECK(contains(text, "Barbero et al. 2025"));
    const std::string json = rv::state_json(app);
    CHECK(contains(json, "\"rope_usage\":{\"layers\":4,\"heads\":4,\"kv_heads\":2,\"pairs\":4,\"total\":4"));
    CHECK(contains(json, "\"strongest\":3"));
  }
}

TEST_CASE("rope_usage walk: the context and the pairs past it are the Context budget's") {
  PlantedShape shape;
  shape.head_dim = 16;  // 8 pairs, base 10,000: the slowest wavelengths exceed a 512-position context
  shape.hidden = 64;
  shape.max_position = 512;
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab_bottom=rope_usage");
  REQUIRE(install_planted(app, shape));
  ui.frames(5);
  REQUIRE(!app.usage.active);
  CHECK(app.usage.context == 512);
  CHECK(app.model.budget.context == 512);
  const long long beyond = std::count(app.usage.beyond.begin(), app.usage.beyond.end(), true);
  CHECK(beyond == app.model.budget.scaled_pairs_without_turn);
  CHECK(beyond > 0);
  CHECK(contains(ui.frame_sentences(), "exceed the 512-position context"));
}

TEST_CASE("rope_usage walk, Gemma 3: sliding layers at rope_local_base_freq, full layers at rope_theta, apart") {
  PlantedShape shape;
  shape.layers = 6;  // sliding_window_pattern 2: layers 1, 3 and 5 are full attention
  shape.head_dim = 16;
  shape.hidden = 64;
  shape.max_position = 512;
  shape.qk_norm = true;
  std::string config = rv::test::planted_config(shape, "gemma3_text");
  config.insert(config.size() - 1, ", \"rope_local_base_freq\": 100.0, \"sliding_window_pattern\": 2");
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab_bottom=rope_usage");
  REQUIRE(rv::install_weights(app.params, open_llama(rv::test::planted_checkpoint(shape), config), app.ui.notes));
  ui.frames(8);
  REQUIRE(!app.usage.active);
  const rv::RopeUsage& r = app.usage.usage;
  CHECK(r.local == std::vector<bool>{true, false, true, false, true, false});
  CHECK(r.base == 10000.0);
  CHECK(r.base_local == 100.0);
  REQUIRE(r.wavelength_local.size() == 8);
  CHECK(r.wavelength_local[1] == doctest::Approx(2 * 3.141592653589793 * std::pow(100.0, 2.0 / 16)));
  CHECK(app.usage.sliding_layers == 3);
  REQUIRE(app.usage.q_sliding.size() == 8);
  CHECK(app.usage.q_sliding.maxCoeff() == doctest::Approx(app.usage.q_sliding[shape.planted_pair]));
  CHECK(app.usage.q_full[shape.planted_pair] > 5 * app.usage.q_full[0]);  // the planted pair, in both kinds
  CHECK(contains(ui.frame_sentences(), "Two bases: 3 sliding-attention layers rotate at base 100 (wavelengths"));
  REQUIRE(app.model.budget_local.has_value());
  CHECK(app.model.budget_local->first_negative_m.has_value());
}

TEST_CASE("rope_usage walk: Stop keeps the layers done and says so") {
  PlantedShape shape;
  shape.layers = 6;
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab_bottom=rope_usage");
  REQUIRE(install_planted(app, shape));
  ui.frames(2);
  REQUIRE(app.usage.active);
  ui.click("usage_stop");  // three frames: the walk takes a layer in each; the next takes Stop
  ui.frame();
  CHECK(!app.usage.active);
  CHECK(app.usage.stopped);
  const std::size_t kept = app.usage.usage.q.size();
  CHECK(kept >= 2);
  CHECK(kept < 6);
  ui.frames(3);
  CHECK(app.usage.usage.q.size() == kept);
  const std::string text = ui.frame_sentences();
  CHECK(contains(text, "stopped: " + std::to_string(kept) + " of 6 layers measured"));
  CHECK(contains(text, "every figure is over those layers only"));
  CHECK(contains(rv::state_json(app), "\"stopped\":true"));
}

TEST_CASE("rope_usage walk: a model type it does not know is refused by name, a missing tensor is named") {
  PlantedShape shape;
  {
    Headless ui;
    rv::App& app = ui.app;
    ui.set_state("tab_bottom=rope_usage");
    // bloom: ALiBi, not RoPE for the app; olmo: RoPE, but rope_usage has no layout for it
    REQUIRE(rv::install_weights(
        app.params, open_llama(rv::test::planted_checkpoint(shape), rv::test::planted_config(shape, "olmo")),
        app.ui.notes));
    ui.frames(2);
    CHECK(!app.usage.active);
    CHECK(contains(app.usage.note, "rope_usage does not know model_type \"olmo\""));
    CHECK(has_note(app.ui.notes, "does not know model_type \"olmo\""));
    const std::string text = ui.frame_sentences();
    CHECK(contains(text, "does not know model_type \"olmo\""));
    CHECK(contains(text, "Nothing this panel can measure. Load a model's weights with its config.json"));
    CHECK(contains(rv::state_json(app), "\"rope_usage\":null"));
  }
  {
    shape.skip = "model.layers.1.self_attn.k_proj.weight";
    Headless ui;
    rv::App& app = ui.app;
    ui.set_state("tab_bottom=rope_usage");
    REQUIRE(install_planted(app, shape));
    ui.frames(4);
    CHECK(!app.usage.active);
    CHECK(app.usage.usage.q.size() == 1);
    CHECK(has_note(app.ui.notes, "layer 1: the checkpoint holds no tensor \"model.layers.1.self_attn.k_proj.weight\""));
    CHECK(contains(ui.frame_sentences(), "model.layers.1.self_attn.k_proj.weight"));
  }
}

TEST_CASE("rope_usage panel: without a RoPE checkpoint it says what to do and draws nothing") {
  Headless ui;
  ui.set_state("tab_bottom=rope_usage");
  ui.frame();
  const std::string text = ui.frame_sentences();
  CHECK(contains(text, "No RoPE checkpoint loaded"));
  CHECK(contains(text, "config.json"));
  CHECK(!contains(text, "layer x pair"));
  CHECK(contains(rv::state_json(ui.app), "\"weights\":null"));
}

TEST_CASE("rope_usage walk on the page's protocol: wants one range at a time, holds the headers and one layer") {
  PlantedShape shape;
  shape.layers = 3;
  shape.extra_rows = 4000;  // a 512 KB embedding the walk never reads
  const std::vector<std::uint8_t> bytes = rv::test::planted_checkpoint(shape, "BF16");
  auto store = std::make_shared<rv::SuppliedBytes>();
  store->sizes["model.safetensors"] = bytes.size();
  const rv::SourceOpener open = [store](const std::string& file) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::SuppliedSource(store, file, store->sizes.at(file)));
  };
  const auto serve = [&](const rv::SuppliedBytes::Want& want) {
    store->supply(want.file, want.offset,
                  std::vector<std::uint8_t>(bytes.begin() + std::ptrdiff_t(want.offset),
                                            bytes.begin() + std::ptrdiff_t(want.offset + want.length)));
  };
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  files.config_text = rv::test::planted_config(shape);
  files.config_bytes = files.config_text->size();
  auto w = rv::open_weights(files, open, rv::next_weights_serial());
  while (!w.ok() && w.error().type == rv::kNeedBytes) {
    const rv::SuppliedBytes::Want want = *store->wanted;
    store->wanted.reset();
    serve(want);
    w = rv::open_weights(files, open, rv::next_weights_serial());
  }
  REQUIRE(w.ok());
  auto loaded = std::make_shared<rv::LoadedWeights>(*w.value());
  loaded->supplied = store;  // as rv_web_weights_step does
  Headless ui;
  rv::App& app = ui.app;
  REQUIRE(rv::install_weights(app.params, loaded, app.ui.notes));
  REQUIRE(rv::sync_usage(app));
  REQUIRE(rv::usage_walking(app));
  const std::uint64_t header = store->held();
  ui.frames(3);  // the frame never steps a supplied walk: the page's loop does
  CHECK(app.usage.usage.q.empty());
  int wants = 0;
  for (rv::UsageStep s = rv::usage_step(app); s.kind != rv::UsageStepKind::Done; s = rv::usage_step(app)) {
    REQUIRE(s.kind != rv::UsageStepKind::Error);
    if (s.kind == rv::UsageStepKind::Want) {
      serve(s.want);
      ++wants;
    }
    REQUIRE(wants < 20);
  }
  // q, k and the norm of each layer; layer 0's norm was read with the load when it read layer 0's q and k for the
  // dot product's default tokens (LoadedWeights::first_qk, row reads: not the whole projections)
  const bool norm0_read = loaded->first_qk.has_value();
  CHECK(wants == 9 - norm0_read);
  CHECK(app.usage.usage.q.size() == 3);
  CHECK(app.usage.strongest == shape.planted_pair);
  const std::uint64_t layer = std::uint64_t(shape.heads + shape.kv_heads) * shape.head_dim * shape.hidden * 2 +
                              std::uint64_t(shape.hidden) * 2;
  CHECK(app.usage.held_max == header + layer);
  CHECK(store->held() == header);
  CHECK(app.usage.bytes_read == 3 * layer - (norm0_read ? std::uint64_t(shape.hidden) * 2 : 0));
  CHECK(store->supplied < bytes.size() / 2);  // the embedding was never read
}

TEST_CASE("rope_usage: the desktop's --weights path walks the layers of the file beside its config.json") {
  const std::string dir = "/tmp/ropeviz-usage-test-" + std::to_string(::getpid());
  REQUIRE((std::system(("mkdir -p " + dir).c_str()) == 0));
  PlantedShape shape;
  shape.layers = 5;
  const std::vector<std::uint8_t> bytes = rv::test::planted_checkpoint(shape, "BF16");
  std::ofstream(dir + "/model.safetensors", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::ofstream(dir + "/config.json") << rv::test::planted_config(shape);
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab_bottom=rope_usage");
  REQUIRE(rv::load_weights_path(app.params, dir + "/model.safetensors", app.ui.notes));
  CHECK(rv::app_animating(app) == false);  // the walk starts with the next frame
  ui.frame();
  CHECK(rv::app_animating(app));  // a layer per frame: the loops keep drawing
  ui.frames(5);
  CHECK(!rv::app_animating(app));
  CHECK(app.usage.usage.q.size() == 5);
  CHECK(app.usage.strongest == shape.planted_pair);
  CHECK(contains(rv::describe_panel(*rv::find_panel("rope_usage"), app), "done: 5 of 5 layers measured"));
  std::remove((dir + "/model.safetensors").c_str());
  std::remove((dir + "/config.json").c_str());
}

TEST_CASE("rope_usage panel: steady frames allocate nothing, the head picker rebuilds once") {
  PlantedShape shape;
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab_bottom=rope_usage");
  REQUIRE(install_planted(app, shape));
  ui.frames(8);
  REQUIRE(!app.usage.active);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK(rv::test::allocations() - before == 0);
  app.usage.head = 3;
  ui.frame();
  CHECK(app.usage.head_built == 3);
  const float first = app.usage.head_q_grid[0];
  CHECK(first == float(app.usage.usage.q[0][3][0]));
  const long long after = rv::test::allocations();
  ui.frames(10);
  CHECK(rv::test::allocations() - after == 0);
}
