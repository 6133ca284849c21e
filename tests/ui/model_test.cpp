// Real models in the app: model= chooses a preset, the panels use its frequencies, its fields stay its own.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "app/state/export.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/text/report.hpp"
#include "core/base/json_value.hpp"
#include "core/models/context_budget.hpp"
#include "core/models/presets.hpp"
#include "core/rope/rope_analysis.hpp"
#include "headless.hpp"

using rv::test::Headless;
using rv::test::contains;

namespace {

rv::RopeModel preset_rope(const char* name, double seq_len) {
  auto info = rv::preset_model(name, seq_len);
  REQUIRE(info.ok());
  REQUIRE(info->rope.has_value());
  return *info->rope;
}

}  // namespace

TEST_CASE("model=llama-3.1-8b: its fields, its scaled frequencies in every RoPE panel, its name in the text") {
  Headless ui;
  CHECK(ui.set_state("model=llama-3.1-8b&position=100000").empty());
  ui.frame();
  const rv::Params& p = ui.app.params;
  const rv::Model& m = ui.app.model;
  CHECK(p.model == "llama-3.1-8b");
  CHECK(p.d_head == 128);
  CHECK(p.heads == 32);
  CHECK(p.base == 500000.0);
  CHECK(p.pairing == rv::Pairing::HalfSplit);
  CHECK(p.max_position == 131072);
  CHECK(p.scaling == rv::ScalingType::Llama3);  // the extension panel starts from its rope_scaling
  CHECK(p.original_max == 8192.0);
  const rv::RopeModel rope = preset_rope("llama-3.1-8b", 100001.0);
  REQUIRE(m.inv_freq.size() == 64);
  CHECK(m.inv_freq == rope.inv_freq);                     // the model's, after llama3 scaling
  CHECK(m.inv_freq != rv::rope_inv_freq(128, 500000.0));  // not the unscaled formula
  CHECK(m.base_inv_freq == rv::rope_inv_freq(128, 500000.0));
  CHECK(m.rotary_pairs == 64);
  CHECK(m.angles[63] == 100000.0 * rope.inv_freq[63]);
  CHECK(m.q_rot == rv::apply_rope(m.q, 100000.0, rope.inv_freq, rv::Pairing::HalfSplit));
  const std::string state = rv::state_json(ui.app);
  CHECK(contains(state, "\"model\":\"llama-3.1-8b\""));
  CHECK(contains(rv::describe(ui.app), "Model: llama-3.1-8b, from meta-llama/Llama-3.1-8B"));
  CHECK(contains(rv::describe(ui.app), "rope_type llama3"));
  // 131072 x 4096 rows are never built: rows come one at a time, the IndexError still at the edge
  CHECK_FALSE(m.table_built);
  CHECK(m.lookup_message.empty());
  CHECK(ui.set_state("position=131072").empty());
  ui.frame();
  CHECK(m.lookup_message == "IndexError: index 131072 is out of bounds for dimension 0 with size 131072");
}

TEST_CASE("the fields a model decides stay its own until model=none, and the model is applied first in a link") {
  Headless ui;
  std::vector<std::string> notes = ui.set_state("d_head=8&model=llama-3.1-8b");  // model first: d_head=8 refused
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "d_head='8': d_head is 128 in the model llama-3.1-8b; choose model=none to change it");
  CHECK(ui.app.params.d_head == 128);
  CHECK(ui.set_state("d_head=128&base=500000").empty());  // its own values pass silently
  notes = ui.set_state("pairing=interleaved");
  REQUIRE(notes.size() == 1);
  CHECK(contains(notes[0], "pairing is half_split in the model llama-3.1-8b"));
  CHECK(ui.set_state("model=none&d_head=8").empty());
  CHECK(ui.app.params.model.empty());
  CHECK(ui.app.params.d_head == 8);
  ui.frame();
  CHECK(contains(rv::state_json(ui.app), "\"model\":null"));
  CHECK(ui.app.model.inv_freq == rv::rope_inv_freq(8, 500000.0));
  notes = ui.set_state("model=llama-9");
  REQUIRE(notes.size() == 1);
  CHECK(contains(notes[0], "model='llama-9' is not none, config or one of lesson, gpt2,"));
  CHECK(ui.app.params.model.empty());
}

TEST_CASE("every preset: its link restores it exactly, with no note") {
  for (const rv::Preset& preset : rv::presets()) {
    CAPTURE(preset.name);
    rv::Params p;
    std::vector<std::string> notes;
    rv::apply_query(p, std::string("model=") + preset.name, notes);
    CHECK(notes.empty());
    CHECK(p.model == preset.name);
    rv::Params back;
    back.d_head = 64;  // a different starting point: the link alone decides
    rv::apply_query(back, rv::encode_query(p), notes);
    CHECK(notes.empty());
    CHECK(back == p);
  }
}

TEST_CASE("partial rotary (phi-2): 16 of 40 pairs rotate, the rest pass through unchanged") {
  Headless ui;
  CHECK(ui.set_state("model=phi-2&position=777").empty());
  ui.frame();
  const rv::Model& m = ui.app.model;
  CHECK(ui.app.params.d_head == 80);
  CHECK(m.rotary_pairs == 16);
  CHECK(m.inv_freq.head(16) == preset_rope("phi-2", 778.0).inv_freq);
  CHECK(m.inv_freq.tail(24).isZero());
  for (int i = 16; i < 40; ++i) {  // half_split pairs (i, i + 40)
    CHECK(m.q_rot[i] == m.q[i]);
    CHECK(m.q_rot[i + 40] == m.q[i + 40]);
  }
  CHECK(m.q_rot[0] != m.q[0]);
  CHECK(contains(rv::describe(ui.app), "32 of 80 head dimensions rotate (the other 24 pairs pass through unchanged)"));
}

TEST_CASE("a learned-position model (gpt2) fills the learned side: its table size and the IndexError at 1024") {
  Headless ui;
  CHECK(ui.set_state("model=gpt2&position=1024").empty());
  ui.frame();
  const rv::Params& p = ui.app.params;
  CHECK(p.max_position == 1024);
  CHECK(p.d_model() == 768);
  CHECK(ui.app.model.table_built);
  CHECK(ui.app.model.lookup_message == "IndexError: index 1024 is out of bounds for dimension 0 with size 1024");
  CHECK(contains(rv::describe(ui.app), "a learned table of 1,024 rows"));
  // its table decides max_position, d_head and heads; base and pairing only shape the RoPE comparison: free
  CHECK(ui.set_state("base=500000&pairing=half_split").empty());
  CHECK(ui.app.params.base == 500000.0);
  CHECK(ui.set_state("d_head=8").size() == 1);
  // a link that chose a RoPE model, then gpt2, reads back the same (the fuzzer's find)
  rv::Params chosen, back;
  std::vector<std::string> notes;
  rv::apply_query(chosen, "model=qwen3-0.6b&model=gpt2-medium", notes);
  CHECK(chosen.base == 1000000.0);
  rv::apply_query(back, rv::encode_query(chosen), notes);
  CHECK(notes.empty());
  CHECK(back == chosen);
}

TEST_CASE("length-dependent scaling (dynamic NTK, internlm2.5-7b) follows the position past the context") {
  Headless ui;
  CHECK(ui.set_state("model=internlm2.5-7b&position=100").empty());
  ui.frame();
  const Eigen::VectorXd inside = ui.app.model.inv_freq;
  CHECK(inside == preset_rope("internlm2.5-7b", 101.0).inv_freq);
  const rv::ContextBudget budget = ui.app.model.budget;
  const int budget_builds = ui.app.model.caches.budget.builds;
  CHECK(ui.set_state("position=100000").empty());
  ui.frame();
  CHECK(ui.app.model.caches.budget.builds == budget_builds);  // the budget is the model as configured, not at m
  CHECK(ui.app.model.budget.first_negative_m == budget.first_negative_m);
  CHECK(ui.app.model.inv_freq == preset_rope("internlm2.5-7b", 100001.0).inv_freq);
  CHECK(ui.app.model.inv_freq != inside);  // base grew: slower pairs
}

TEST_CASE("context budget: the panel's figures are core's for the model, against its context") {
  Headless ui;
  CHECK(ui.set_state("model=llama-3.1-8b&tab_top=context_budget").empty());
  ui.frames(2);
  const rv::ContextBudget& b = ui.app.model.budget;
  CHECK(b.context == 131072);
  CHECK(b.original == 8192);
  CHECK(b.critical_dim == rv::rope_critical_dim(128, 500000.0, 8192.0));
  CHECK(b.first_negative_m == rv::rope_first_negative_m(128, 500000.0, 2 * 131072));
  CHECK(b.kept + b.blended + b.divided == 64);
  CHECK(b.learned_parameters == 131072LL * 4096);
  CHECK(b.fp16_overflow == 65520.0);
  CHECK(contains(rv::describe(ui.app), "Context budget panel:"));
  // free parameters read as a model whose context is max_position
  CHECK(ui.set_state("model=none&max_position=4096&d_head=128&base=10000").empty());
  ui.frame();
  CHECK(ui.app.model.budget.critical_dim == rv::rope_critical_dim(128, 10000.0, 4096.0));
}

TEST_CASE("compare models: one row per preset, each derived by core, and the CSV has them all") {
  Headless ui;
  CHECK(ui.set_state("tab_bottom=models").empty());
  ui.frames(2);
  const std::vector<rv::CatalogRow>& rows = rv::model_catalog(ui.app.model);
  REQUIRE(rows.size() == rv::presets().size());
  for (const rv::CatalogRow& r : rows) {
    CAPTURE(r.name);
    CHECK(r.error.empty());
    REQUIRE(r.info.has_value());
    auto direct = rv::preset_model(r.name);
    REQUIRE(direct.ok());
    CHECK(r.info->rope.has_value() == direct->rope.has_value());
    if (r.info->rope) CHECK(r.budget.rotary_dims == direct->rope->rotary_dims);
  }
  const rv::ExportFile csv = rv::export_models_csv(ui.app, rows);
  CHECK(contains(csv.content,
            "\nllama-3.1-8b,\"meta-llama/Llama-3.1-8B\",rope,500000,128,128,half_split,llama3,1,131072,8192,"));
  CHECK(contains(csv.content, "\ngpt2,\"openai-community/gpt2\",learned,,,,,,,1024,,,,786432\n"));
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("a loaded config.json becomes model=config, with the same frequencies as its preset") {
  Headless ui;
  const std::string text = read_file(RV_SOURCE_DIR "/tests/fixtures/configs/llama-3.1-8b.json");
  std::vector<std::string> notes;
  CHECK(rv::load_config(ui.app.params, text, "llama-3.1-8b.json", text.size(), notes));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "loaded llama-3.1-8b.json");
  ui.frame();
  CHECK(ui.app.params.model == "config");
  CHECK(ui.app.model.inv_freq == preset_rope("llama-3.1-8b", 6.0).inv_freq);
  const std::string state = rv::state_json(ui.app);
  CHECK(contains(state, "\"model\":null"));  // not a preset
  CHECK(contains(state, "\"model_label\":\"llama-3.1-8b.json\""));
  CHECK(contains(rv::describe(ui.app), "Model: llama-3.1-8b.json, from loaded config.json"));
  // its link names model=config; elsewhere (no file loaded) that is a note, and the free parameters stay
  rv::Params elsewhere;
  rv::apply_query(elsewhere, rv::encode_query(ui.app.params), notes);
  CHECK(elsewhere.model.empty());
  CHECK(contains(notes.back(), "model=config names a config.json loaded on this page"));
  // a preset, then the loaded file again from the picker (set_param model=config)
  CHECK(ui.set_state("model=gpt2").empty());
  CHECK(ui.set_state("model=config").empty());
  ui.frame();
  CHECK(ui.app.model.inv_freq == preset_rope("llama-3.1-8b", 6.0).inv_freq);
}

TEST_CASE("configs transformers 5 wrote (rope_parameters): dropped, they give their legacy spelling's frequencies") {
  Headless ui;
  CHECK(ui.set_state("tab_top=context_budget").empty());
  std::vector<std::string> notes;
  const std::string pi4 = read_file(RV_SOURCE_DIR "/tests/fixtures/configs_v5/llama-bytes-pi4.json");
  CHECK(rv::load_config(ui.app.params, pi4, "config.json", pi4.size(), notes));
  ui.frame();
  REQUIRE(ui.app.model.real.has_value());
  REQUIRE(ui.app.model.real->info.rope.has_value());
  CHECK(ui.app.model.real->info.rope->rope_type == "linear");  // linear x4, which the reader once dropped
  CHECK(ui.app.model.inv_freq[0] == 0.25);
  CHECK(ui.app.model.budget.context == 2048);
  CHECK_FALSE(ui.app.model.budget_local.has_value());
  // Gemma 3 by layer type: the Context budget has both bases, as the v4 spelling (rope_local_base_freq) gives
  for (const char* path : {RV_SOURCE_DIR "/tests/fixtures/configs_v5/gemma-3-4b.json",
                           RV_SOURCE_DIR "/tests/fixtures/configs/gemma-3-4b.json"}) {
    CAPTURE(path);
    const std::string text = read_file(path);
    CHECK(rv::load_config(ui.app.params, text, "config.json", text.size(), notes));
    ui.frame();
    REQUIRE(ui.app.model.real.has_value());
    REQUIRE(ui.app.model.real->info.rope_local.has_value());
    CHECK(ui.app.model.real->info.rope->base == 1e6);
    CHECK(ui.app.model.real->info.rope_local->base == 10000.0);
    REQUIRE(ui.app.model.budget_local.has_value());
    CHECK(ui.app.model.budget_local->critical_dim == rv::rope_critical_dim(256, 10000.0, 131072.0));
    CHECK(ui.app.model.budget.critical_dim == rv::rope_critical_dim(256, 1e6, 131072.0));
    CHECK(contains(rv::describe(ui.app), "Its sliding-attention layers rotate at their own base 10,000 (default; the "
                                         "figures above are the full-attention layers', at base 1,000,000)"));
  }
  CHECK(ui.set_state("model=gemma-3-4b&tab_top=context_budget").empty());
  ui.frames(2);
  CHECK(ui.app.model.budget_local.has_value());
  CHECK(ui.set_state("model=llama-3.1-8b").empty());
  ui.frame();
  CHECK_FALSE(ui.app.model.budget_local.has_value());
}

TEST_CASE("bad config.json files (tests/fixtures/bad_configs.jsonl): a note naming the field, nothing changes") {
  std::ifstream in(RV_SOURCE_DIR "/tests/fixtures/bad_configs.jsonl");
  std::string line;
  int cases = 0;
  Headless ui;
  CHECK(ui.set_state("model=llama-3.1-8b&position=4242").empty());
  ui.frame();
  const rv::Params before = ui.app.params;
  while (std::getline(in, line)) {
    const rv::Expected<rv::JsonValue> row = rv::parse_json(line);  // {"text": "...", "field": "..."}
    REQUIRE(row.ok());
    const std::string text = row->find("text")->string, field = row->find("field")->string;
    CAPTURE(text);
    std::vector<std::string> notes;
    CHECK_FALSE(rv::load_config(ui.app.params, text, "bad.json", text.size(), notes));
    REQUIRE(notes.size() == 1);
    CHECK(contains(notes[0], field));
    CHECK(contains(notes[0], "bad.json: "));
    CHECK(contains(notes[0], "kept the current model"));
    CHECK(ui.app.params == before);
    CHECK(ui.app.params.loaded == before.loaded);
    ++cases;
  }
  CHECK(cases >= 25);
  std::vector<std::string> notes;  // a 50 MB file: refused by its size before any parsing
  CHECK_FALSE(rv::load_config(ui.app.params, "{", "huge.json", 50u << 20, notes));
  CHECK(notes.at(0) ==
        "huge.json: 52,428,800 bytes is over the 1,048,576-byte limit for a config.json; kept the "
        "current model");
  ui.frame();
  CHECK(ui.app.params == before);
  CHECK(ui.app.model.real->name == "llama-3.1-8b");
}

TEST_CASE("the attention factor (phi-3.5-mini, longrope) scales every score by its square, as on cos and sin") {
  Headless ui;
  CHECK(ui.set_state("model=phi-3.5-mini&position=9000&key_position=100").empty());
  ui.frame();
  const rv::Model& m = ui.app.model;
  const rv::RopeModel rope = preset_rope("phi-3.5-mini", 9001.0);
  REQUIRE(rope.attention_factor > 1.1);  // sqrt(1 + ln(32) / ln(4096)) = 1.19
  CHECK(m.attention_factor_model == rope.attention_factor);
  const double af2 = rope.attention_factor * rope.attention_factor;
  // HF: q' = q cos(m θ) af + rotate_half(q) sin(m θ) af, the same for k
  const Eigen::VectorXd q = rv::apply_rope(m.q, 9000.0, rope.inv_freq, rv::Pairing::HalfSplit) * rope.attention_factor;
  const Eigen::VectorXd k = rv::apply_rope(m.k, 100.0, rope.inv_freq, rv::Pairing::HalfSplit) * rope.attention_factor;
  CHECK(m.score == doctest::Approx(q.dot(k)).epsilon(1e-12));
  std::vector<double> plain;
  rv::rope_score_curve(m.q, m.k, m.inv_freq, rv::Pairing::HalfSplit, 100.0, -64, 64, plain);
  REQUIRE(plain.size() == m.curve_a.size());
  for (std::size_t j = 0; j < plain.size(); ++j) CHECK(m.curve_a[j] == af2 * plain[j]);
  for (std::size_t j = 0; j < plain.size(); ++j) CHECK(std::abs(m.curve_a[j]) <= m.bound[j] * (1 + 1e-12));
}

TEST_CASE("precision at the model's context: llama-3.1-8b's 131,072 overflows float16, bfloat16 keeps it") {
  Headless ui;
  CHECK(ui.set_state("model=llama-3.1-8b&position=5").empty());
  ui.frame();
  const rv::PrecisionReport(&c)[2][3] = ui.app.model.precision_context;
  CHECK(c[0][0].position == 131072.0);
  CHECK(std::isinf(c[0][1].position_in_format));  // float16
  CHECK(c[0][2].position_in_format == 131072.0);  // a power of two: exact in bfloat16
  CHECK(c[0][0].max_angle_err ==
        rv::rope_precision(128, 500000.0, 131072.0, rv::FloatFormat::F32, rv::AngleRecipe::Naive).max_angle_err);
  CHECK(ui.app.model.precision[0][0].position == 5.0);  // the panel's main figures stay at m
}
