// Checkpoints in the app (docs/real-weights.md): a loaded learned table is the app's table and frame, the refusals
// keep the state, weights=none and a model change unload it, the desktop's path opener and the page's
// ask-supply-retry protocol (SuppliedSource) read only the header and the table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "app/lab/lab_export.hpp"
#include "app/state/export.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/model.hpp"
#include "app/state/notes.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "core/weights/safetensors.hpp"
#include "headless.hpp"

using rv::test::has_note;
using rv::test::Headless;

namespace {

// A smooth, low-rank table [rows, dim]: the shape training gives GPT-2's wpe.
std::vector<double> cos_table(int rows, int dim) {
  std::vector<double> v(std::size_t(rows) * dim);
  for (int t = 0; t < rows; ++t)
    for (int j = 0; j < dim; ++j) v[std::size_t(t) * dim + j] = 0.1 * std::cos(t * 3.14159 / rows * (1 + j % 3) + j);
  return v;
}

std::vector<std::uint8_t> checkpoint(int rows, int dim, const std::string& dtype = "F32") {
  std::vector<rv::TensorToWrite> tensors = {{"wpe.weight", {rows, dim}, cos_table(rows, dim)},
                                            {"wte.weight", {50, dim}, std::vector<double>(std::size_t(50) * dim, 0.5)}};
  return rv::write_safetensors(tensors, dtype, {}).value();
}

rv::SourceOpener memory_opener(std::vector<std::uint8_t> bytes) {
  return [bytes](const std::string&) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(bytes));
  };
}

std::shared_ptr<const rv::LoadedWeights> open(const std::vector<std::uint8_t>& bytes, const char* config = nullptr) {
  rv::WeightsFiles files;
  files.label = "model.safetensors";
  files.file = "model.safetensors";
  if (config) {
    files.config_text = config;
    files.config_bytes = std::char_traits<char>::length(config);
  }
  auto w = rv::open_weights(files, memory_opener(bytes), rv::next_weights_serial());
  REQUIRE(w.ok());
  return w.value();
}

}  // namespace

TEST_CASE("a loaded learned table is the app's table: its frame, its rows, its IndexError") {
  Headless ui;
  rv::App& app = ui.app;
  std::vector<std::string> notes;
  REQUIRE(rv::install_weights(app.params, open(checkpoint(96, 48)), notes));
  CHECK(has_note(notes, "the learned table is wpe.weight [96, 48]"));
  ui.set_state("position=95");
  ui.frame();
  const rv::Model& m = app.model;
  CHECK(app.params.max_position == 96);
  CHECK(app.params.d_model() == 48);
  REQUIRE(m.table.P.rows() == 96);
  CHECK(m.table.P(7, 5) == doctest::Approx(float(0.1 * std::cos(7 * 3.14159 / 96 * (1 + 5 % 3) + 5))));
  CHECK(m.row.has_value());
  ui.set_state("position=96");
  ui.frame();
  REQUIRE(m.lookup_error.has_value());
  CHECK(m.lookup_error->full() == "IndexError: index 96 is out of bounds for dimension 0 with size 96");
  ui.set_state("tab_bottom=learned_table");
  const std::string seen = ui.frame_sentences();
  CHECK(seen.find("model.safetensors's wpe.weight: its trained values (F32)") != std::string::npos);
  CHECK(seen.find("seeded, not its trained") == std::string::npos);
  // The frame is the table's: another max_position is refused by name.
  const std::vector<std::string> refused = ui.set_state("max_position=10");
  CHECK(app.params.max_position == 96);
  CHECK(has_note(refused, "model.safetensors's learned table; choose weights=none"));
  // weights=none: the seeded random table again, the frame free.
  ui.set_state("weights=none");
  CHECK(!app.params.weights);
  ui.set_state("max_position=10");
  ui.frame();
  CHECK(app.params.max_position == 10);
  CHECK(m.table.P.rows() == 10);
  CHECK(has_note(ui.set_state("weights=model.safetensors"), "only weights=none is a value"));
}

TEST_CASE("weights with their config.json: model=config, OPT's two offset rows, and a model change unloads them") {
  Headless ui;
  rv::App& app = ui.app;
  std::vector<std::string> notes;
  const char* opt = R"({"model_type": "opt", "hidden_size": 48, "num_attention_heads": 4,
                        "max_position_embeddings": 94, "word_embed_proj_dim": 48})";
  const auto w = open(checkpoint(96, 48), opt);
  REQUIRE(w->table);
  CHECK(w->table->offset == 2);
  CHECK(w->table->P.rows() == 94);
  REQUIRE(rv::install_weights(app.params, w, notes));
  CHECK(app.params.model == rv::kLoadedModel);
  CHECK(app.params.max_position == 94);
  CHECK(app.params.heads == 4);
  CHECK(app.params.d_head == 12);
  ui.set_state("model=config");  // the same model again (a link re-applied): kept
  CHECK(app.params.weights);
  ui.set_state("model=gpt2");
  CHECK(!app.params.weights);
  CHECK(app.params.max_position == 1024);
}

TEST_CASE("refusals name what is wrong and keep the state") {
  Headless ui;
  rv::App& app = ui.app;
  std::vector<std::string> notes;
  REQUIRE(rv::install_weights(app.params, open(checkpoint(32, 16)), notes));
  const auto before = app.params.weights;
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  std::vector<rv::TensorToWrite> ints = {{"wpe.weight", {4, 2}, std::vector<double>(8, 1.0)}};
  std::vector<std::uint8_t> f64 = rv::write_safetensors(ints, "F64", {}).value();
  const std::string header(f64.begin() + 8, f64.begin() + 8 + std::ptrdiff_t(f64[0]));
  std::string as_int = header;
  as_int.replace(as_int.find("F64"), 3, "I64");
  std::vector<std::uint8_t> bad(f64);
  std::copy(as_int.begin(), as_int.end(), bad.begin() + 8);
  const auto refused = rv::open_weights(files, memory_opener(bad), rv::next_weights_serial());
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("wpe.weight") != std::string::npos);
  CHECK(refused.error().message.find("I64") != std::string::npos);
  const auto short_file = rv::open_weights(files, memory_opener({1, 2, 3}), rv::next_weights_serial());
  REQUIRE(!short_file.ok());
  CHECK(short_file.error().message.find("shorter than the 8-byte") != std::string::npos);
  files.config_text = "{\"model_type\": 3}";
  const auto bad_config = rv::open_weights(files, memory_opener(checkpoint(8, 4)), rv::next_weights_serial());
  REQUIRE(!bad_config.ok());
  CHECK(bad_config.error().message.find("model_type") != std::string::npos);
  CHECK(app.params.weights == before);
  // An odd width has no even heads: refused, the table kept.
  std::vector<std::string> odd_notes;
  CHECK(!rv::install_weights(app.params, open(checkpoint(8, 5)), odd_notes));
  CHECK(has_note(odd_notes, "does not fit this app"));
  CHECK(app.params.weights == before);
  // A checkpoint without a table (a RoPE model's) says what was looked for and what it holds.
  std::vector<rv::TensorToWrite> rope = {
      {"model.layers.0.self_attn.q_proj.weight", {4, 4}, std::vector<double>(16, 0.1)}};
  files.config_text.reset();
  const auto none = rv::open_weights(files, memory_opener(rv::write_safetensors(rope, "BF16", {}).value()), 1);
  REQUIRE(none.ok());
  CHECK(!none.value()->table);
  CHECK(none.value()->no_table.find("looked for wpe.weight") != std::string::npos);
  CHECK(none.value()->no_table.find("q_proj") != std::string::npos);
  std::vector<std::string> rope_notes;
  rv::NoteDetailsMap rope_details;
  REQUIRE(rv::install_weights(app.params, none.value(), rope_notes, &rope_details));
  REQUIRE(rope_notes.size() == 1);
  CHECK(has_note(rope_notes, "1 tensors, read"));
  CHECK(has_note(rope_notes, "; no learned position table"));
  CHECK(!has_note(rope_notes, "q_proj"));  // the note is one line; what it holds is beside it
  REQUIRE(rope_details.count(rope_notes[0]) == 1);
  const rv::NoteDetails& d = rope_details.at(rope_notes[0]);
  CHECK(d.label == "tensors (1)");
  CHECK(d.text.find("looked for wpe.weight") != std::string::npos);
  CHECK(d.lines == std::vector<std::string>{"model.layers.0.self_attn.q_proj.weight"});
  CHECK(!rv::loaded_table(app.params));
  // with its config.json (a llama): the one line names RoPE, and the tensors are behind the disclosure all the same
  files.config_text = R"({"model_type":"llama","hidden_size":4,"num_attention_heads":1,"max_position_embeddings":16})";
  const auto llama = rv::open_weights(files, memory_opener(rv::write_safetensors(rope, "BF16", {}).value()), 2);
  REQUIRE(llama.ok());
  std::vector<std::string> llama_notes;
  rv::NoteDetailsMap llama_details;
  REQUIRE(rv::install_weights(app.params, llama.value(), llama_notes, &llama_details));
  REQUIRE(llama_notes.size() == 1);
  CHECK(has_note(llama_notes, "; no learned position table (llama uses RoPE)"));
  REQUIRE(llama_details.count(llama_notes[0]) == 1);
  CHECK(llama_details.at(llama_notes[0]).label == "tensors (1)");
}

TEST_CASE("phone: a checkpoint without a table says so in one line, its tensors behind a disclosure under it") {
  constexpr float kScale = 3.0f;  // 390 x 844 CSS pixels, as phone_test.cpp
  Headless ui(390 * kScale, 844 * kScale, kScale);
  std::vector<rv::TensorToWrite> tensors;
  for (int layer = 0; layer < 4; ++layer)
    for (const char* part : {"self_attn.q_proj", "self_attn.k_proj", "mlp.gate_proj"})
      tensors.push_back(
          {"model.layers." + std::to_string(layer) + "." + part + ".weight", {2, 2}, std::vector<double>(4, 0.1)});
  rv::App& app = ui.app;
  ui.frames(2);
  REQUIRE(rv::install_weights(app.params, open(rv::write_safetensors(tensors, "F32", {}).value()), app.ui.notes,
                              &app.ui.note_details));
  ui.frames(2);
  const std::string text = ui.frame_text();
  INFO(text);
  CHECK(text.find("no learned position table") != std::string::npos);
  CHECK(text.find("proj") == std::string::npos);  // no tensor names
  CHECK(text.find("looked for") == std::string::npos);
  // the note's lines: from its "Done:" to the disclosure under it
  const size_t note = text.find("Done: loaded model.safetensors");
  const size_t disclosure = text.find("tensors (12)");
  REQUIRE(note != std::string::npos);
  REQUIRE(disclosure != std::string::npos);
  REQUIRE(note < disclosure);
  const std::string note_lines = text.substr(note, disclosure - note);
  const size_t lines = size_t(std::count(note_lines.begin(), note_lines.end(), '\n'));
  CHECK(lines >= 1);
  CHECK(lines <= 2);  // one sentence: "...: 12 tensors, read N bytes; no learned position table" at 390 px
  // opened, it lists what was looked for and every tensor, one a line
  ui.click("note_details");
  ui.frames(2);
  const std::string open_text = ui.frame_text();
  INFO(open_text);
  CHECK(open_text.find("looked for wpe.weight") != std::string::npos);
  CHECK(open_text.find("\nmodel.layers.0.self_attn.q_proj.weight\n") != std::string::npos);
  CHECK(open_text.find("\nmodel.layers.3.mlp.gate_proj.weight\n") != std::string::npos);
  // the text layer says the note in full
  const std::string described = rv::note_in_full(app.ui, app.ui.notes.back());
  CHECK(described.find("no learned position table: looked for wpe.weight") != std::string::npos);
  CHECK(described.find("model.layers.3.mlp.gate_proj.weight") != std::string::npos);
  // closed again, and gone with the note
  ui.click("note_details");
  ui.frames(2);
  CHECK(ui.frame_text().find("q_proj") == std::string::npos);
  app.ui.notes.clear();
  ui.frames(1);
  CHECK(app.ui.note_details.empty());
}

TEST_CASE("the page's protocol: ask, supply, run again, and only the header and the table are read") {
  const std::vector<std::uint8_t> bytes = checkpoint(128, 64, "BF16");
  auto store = std::make_shared<rv::SuppliedBytes>();
  store->sizes["model.safetensors"] = bytes.size();
  const rv::SourceOpener open = [store](const std::string& file) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
    return std::unique_ptr<rv::ByteSource>(new rv::SuppliedSource(store, file, store->sizes.at(file)));
  };
  rv::WeightsFiles files;
  files.label = files.file = "model.safetensors";
  int rounds = 0;
  rv::Expected<std::shared_ptr<const rv::LoadedWeights>> w = rv::open_weights(files, open, 1);
  while (!w.ok() && w.error().type == rv::kNeedBytes && rounds < 10) {
    REQUIRE(store->wanted);
    const rv::SuppliedBytes::Want want = *store->wanted;
    store->wanted.reset();
    store->supply(want.file, want.offset,
                  std::vector<std::uint8_t>(bytes.begin() + std::ptrdiff_t(want.offset),
                                            bytes.begin() + std::ptrdiff_t(want.offset + want.length)));
    ++rounds;
    w = rv::open_weights(files, open, 1);
  }
  REQUIRE(w.ok());
  CHECK(rounds == 3);  // the header's length, the header, the table
  const std::uint64_t header = 8 + w.value()->header_bytes;
  CHECK(store->supplied == header + 128 * 64 * 2);
  CHECK(store->supplied < bytes.size());  // wte was never read
  CHECK(w.value()->table->P.rows() == 128);
}

TEST_CASE("the desktop's --weights path: the file and the config.json beside it") {
  const std::string dir = "/tmp/ropeviz-weights-test-" + std::to_string(::getpid());
  std::remove((dir + "/model.safetensors").c_str());
  REQUIRE((std::system(("mkdir -p " + dir).c_str()) == 0));
  const std::vector<std::uint8_t> bytes = checkpoint(40, 24);
  std::ofstream(dir + "/model.safetensors", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::ofstream(dir + "/config.json") << R"({"model_type": "gpt2", "n_embd": 24, "n_head": 2, "n_positions": 40})";
  Headless ui;
  rv::App& app = ui.app;
  REQUIRE(rv::load_weights_path(app.params, dir + "/model.safetensors", app.ui.notes));
  CHECK(app.params.max_position == 40);
  CHECK(app.params.heads == 2);
  CHECK(app.params.weights->model_type == "gpt2");
  CHECK(!rv::load_weights_path(app.params, dir + "/missing.safetensors", app.ui.notes));
  CHECK(has_note(app.ui.notes, "missing.safetensors: cannot open"));
  CHECK(app.params.max_position == 40);
  CHECK(rv::is_weights_file("model-00001-of-00002.safetensors"));
  CHECK(rv::is_weights_file("model.safetensors.index.json"));
  CHECK(!rv::is_weights_file("config.json"));
}

TEST_CASE("the lesson on a loaded table: measured numbers in step 1, the offset test past the real table's end") {
  Headless ui;
  rv::App& app = ui.app;
  std::vector<std::string> notes;
  ui.set_state("lesson=1");
  ui.frame();
  CHECK(ui.frame_sentences().find("Measured on this untrained table: neighbouring rows' cosine") != std::string::npos);
  REQUIRE(rv::install_weights(app.params, open(checkpoint(96, 48)), notes));
  ui.set_state("lesson=1");
  const rv::WeightsTable& t = *app.params.weights->table;
  char expected[160];
  std::snprintf(expected, sizeof expected,
                "Measured on wpe.weight (trained): neighbouring rows' cosine %.2f on average",
                t.analysis.neighbour_cos.mean());
  ui.frame();
  CHECK(t.analysis.neighbour_cos.mean() > 0.9);
  CHECK(ui.frame_sentences().find(expected) != std::string::npos);
  CHECK(app.params.max_position == 96);  // the step kept the table's frame
  ui.set_state("lesson=4");              // section 3, the position-offset test: m = 100 past the toy's 10 rows
  ui.frame();
  CHECK(app.params.position == 96 + 90);
  REQUIRE(app.model.lookup_error.has_value());
  CHECK(app.model.lookup_error->full() == "IndexError: index 186 is out of bounds for dimension 0 with size 96");
  ui.set_state("lesson=7");  // the last step opens a real model: the checkpoint's frame is not its
  CHECK(!app.params.weights);
}

TEST_CASE("the lab's trained tables: save weights writes each decoder, and open its table makes it the app's table") {
  Headless ui;
  rv::App& app = ui.app;
  ui.set_state("tab=lab&train_len=3&steps=200&methods=learned,rope&seeds=1");
  ui.frames(2);
  CHECK(rv::lab_weights(app).empty());  // no run yet
  CHECK(!rv::load_lab_table(app.params, app.lab, app.ui.notes));
  CHECK(has_note(app.ui.notes, "no trained learned table yet"));
  rv::lab_start(app, rv::lab_flags(app.params));
  ui.frames_while_lab_runs();
  REQUIRE(!app.lab.running);
  const std::vector<rv::ExportFile> files = rv::lab_weights(app);
  REQUIRE(files.size() == 4);
  CHECK(files[0].name == "ropeviz-lab-learned-model.safetensors");
  CHECK(files[1].name == "ropeviz-lab-learned-config.json");
  CHECK(files[1].content.find("\"model_type\": \"ropeviz_lab\"") != std::string::npos);
  // The saved file opens through the same reader, and its table is the lab's pos_emb.
  const std::vector<std::uint8_t> bytes(files[0].content.begin(), files[0].content.end());
  const auto w = open(bytes, files[1].content.c_str());  // with the lab's config.json: not a Hugging Face model's
  CHECK(w->model_type == "ropeviz_lab");
  CHECK(!w->config);
  REQUIRE(w->table);
  CHECK(w->table->tensor == "pos_emb");
  ui.click("lab_open_table");
  ui.frame();
  REQUIRE(app.params.weights);
  CHECK(app.params.weights->label == "the lab's learned decoder");
  CHECK(app.params.max_position == w->table->P.rows());
  CHECK(app.params.d_model() == w->table->P.cols());
  CHECK(app.model.table.P.isApprox(w->table->P));
}
