// Run it's text and tokens (app/run/run_text.hpp): a checkpoint's tokenizer.json encodes the held-out sample or a
// given text exactly as the tokenize op does, the strip shows the tokens, and what cannot run is said before any pass.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "alloc_counter.hpp"
#include "app/run/run_session.hpp"
#include "app/run/run_text.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"
#include "core/tokenize/tokenizer.hpp"
#include "headless.hpp"

using rv::test::contains;
using rv::test::has_note;
using rv::test::Headless;

namespace {

const std::string kTokenized = RV_SOURCE_DIR "/tests/fixtures/tokenized_llama/";
const std::string kByteModels = RV_SOURCE_DIR "/web/models/";

std::string whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void open_run_tab(Headless& ui) {
  ui.set_state("tab=run");
  ui.frames(2);
}

}  // namespace

TEST_CASE("run it text: tokenizer.json beside the checkpoint encodes the sample as the tokenize op, and runs") {
  Headless ui;
  REQUIRE(rv::load_weights_path(ui.app.params, kTokenized + "model.safetensors", ui.app.ui.notes));
  REQUIRE(ui.app.params.weights->tokenizer);
  CHECK(has_note(ui.app.ui.notes, "tokenizer.json beside it"));
  open_run_tab(ui);
  const rv::tokenize::Tokenizer t = rv::tokenize::parse_tokenizer(whole_file(kTokenized + "tokenizer.json")).value();
  const std::vector<long long> want = rv::tokenize::encode(t, rv::heldout_sample()).ids;
  rv::RunSession& s = rv::run_session(ui.app);
  CHECK(s.tokens.ids == want);
  CHECK(want.size() < rv::heldout_sample().size() / 2);  // real tokens, not bytes
  CHECK(contains(s.tokens.summary,
                 "16,384 bytes, " + rv::format_count((long long)want.size()) + " tokens through tokenizer.json"));
  REQUIRE(s.tokens.labels.size() == rv::kStripTokens);
  CHECK(s.tokens.ids_text[1] == std::to_string(want[1]));
  CHECK(ui.app.ui.rects.count("run_tokens"));
  // a given text: its own tokens, and the run reads exactly them
  std::vector<std::string> notes;
  const std::string text = "The cat sat on the mat. 12345 cats\n\tand Ünïcödé, \xE4\xB8\xAD\xE6\x96\x87!";
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += text + " ";
  REQUIRE(rv::set_run_text(ui.app, long_text, "pasted text", notes));
  ui.frames(2);
  const std::vector<long long> ids = rv::tokenize::encode(t, long_text).ids;
  CHECK(s.tokens.ids == ids);
  CHECK(s.tokens.labels[0] == "The");
  CHECK(s.tokens.labels[1].rfind("\xC2\xB7"
                                 "c",
                                 0) == 0);  // " c...": the space shown as a middle dot
  CHECK(contains(ui.frame_text(), "Text: pasted text."));
  s.settings.length = 128;
  s.settings.windows = 1;
  s.settings.shift = false;
  INFO(s.error);
  REQUIRE(rv::run_start(ui.app));
  CHECK(std::vector<long long>(s.plan.text) == ids);
  for (int i = 0; i < 30 && s.running; ++i) ui.frame();
  CHECK_FALSE(s.running);
  CHECK(s.error.empty());
  REQUIRE_FALSE(s.study.curves.empty());
  CHECK(s.study.curves[0].windows == 1);
  // hovering the first token says its position, id and vocabulary string
  const rv::Rect r = ui.app.ui.rects.at("run_tokens");
  ui.mouse_move(r.x + 12, r.y + 12);
  ui.frames(2);
  CHECK(contains(ui.frame_text(), "position 0: token id " + std::to_string(ids[0]) + ", 'The' in tokenizer.json"));
  // steady frames with the strip drawn allocate nothing
  ui.mouse_move(1, 1);
  ui.frames(3);
  const long long before = rv::test::allocations();
  ui.frames(10);
  CHECK((rv::test::allocations() - before) / 10 == 0);
  // back to the held-out sample
  ui.click("run_heldout");
  ui.frames(2);
  CHECK(s.tokens.ids == want);
}

TEST_CASE("run it text: a byte-level model reads bytes, a tokenizer whose ids do not fit is said before any pass") {
  Headless ui;
  REQUIRE(rv::load_weights_path(ui.app.params, kByteModels + "llama-bytes/model.safetensors", ui.app.ui.notes));
  open_run_tab(ui);
  rv::RunSession& s = rv::run_session(ui.app);
  const std::string_view sample = rv::heldout_sample();
  REQUIRE(s.tokens.ids.size() == sample.size());
  CHECK(s.tokens.ids[0] == (unsigned char)sample[0]);
  CHECK(contains(s.tokens.summary, "the model reads bytes"));
  // invalid UTF-8 is bytes too, for a byte-level model
  std::vector<std::string> notes;
  REQUIRE(rv::set_run_text(ui.app, std::string(600, '\xFF'), "bytes.txt", notes));
  ui.frames(2);
  CHECK(s.tokens.ids == std::vector<long long>(600, 255));
  // a tokenizer of 1,200 ids for an embedding of 256 rows: a note at once, and Run refuses with it
  ui.app.ui.notes.clear();
  REQUIRE(rv::load_tokenizer_path(ui.app.params, kTokenized + "tokenizer.json", ui.app.ui.notes));
  CHECK(has_note(ui.app.ui.notes, "tokenizer.json gives ids up to 1,199; the model's embedding has 256 rows"));
  CHECK_FALSE(rv::run_start(ui.app));
  CHECK(contains(s.error, "gives ids up to 1,199"));
  CHECK(s.jobs.empty());
  ui.frames(2);
  CHECK(contains(ui.frame_text(), "gives ids up to 1,199"));
}

TEST_CASE("run it text: refusals keep what was there: no tokenizer for a token model, a bad tokenizer, bad texts") {
  Headless ui;
  std::vector<std::string> notes;
  CHECK_FALSE(rv::load_tokenizer_path(ui.app.params, kTokenized + "tokenizer.json", notes));
  CHECK(has_note(notes, "no checkpoint is loaded"));
  // the vocabulary-1,536 checkpoint alone (copied without its tokenizer.json): no bytes to fall back on
  const std::string dir = "/tmp/ropeviz-run-text-" + std::to_string(::getpid());
  REQUIRE(std::system(
              ("mkdir -p " + dir + " && cp " + kTokenized + "model.safetensors " + kTokenized + "config.json " + dir)
                  .c_str()) == 0);
  REQUIRE(rv::load_weights_path(ui.app.params, dir + "/model.safetensors", ui.app.ui.notes));
  open_run_tab(ui);
  rv::RunSession& s = rv::run_session(ui.app);
  CHECK(s.tokens.ids.empty());
  CHECK(contains(s.tokens.error, "vocabulary of 1,536, not bytes: give its tokenizer.json"));
  CHECK_FALSE(rv::run_start(ui.app));
  CHECK(contains(s.error, "give its tokenizer.json"));
  // a tokenizer.json with a component core does not read is refused by name
  std::ofstream(dir + "/tokenizer.json") << R"({"model": {"type": "WordPiece", "vocab": {}}})";
  notes.clear();
  CHECK_FALSE(rv::load_tokenizer_path(ui.app.params, dir + "/tokenizer.json", notes));
  REQUIRE(notes.size() == 1);
  CHECK(contains(notes[0], "tokenizer.json: "));
  CHECK(contains(notes[0], "WordPiece"));
  CHECK_FALSE(ui.app.params.weights->tokenizer);
  CHECK(rv::load_tokenizer_path(ui.app.params, kTokenized + "tokenizer.json", notes));
  ui.frames(2);
  CHECK(s.tokens.error.empty());
  CHECK_FALSE(s.tokens.ids.empty());
  // empty and over-limit texts: refused, the text stays
  const std::vector<long long> before = s.tokens.ids;
  notes.clear();
  CHECK_FALSE(rv::set_run_text(ui.app, "", "empty.txt", notes));
  CHECK(has_note(notes, "empty.txt is empty: Run it keeps the held-out sample"));
  CHECK_FALSE(rv::set_run_text(ui.app, std::string(rv::kMaxRunTextBytes + 1, 'a'), "big.txt", notes));
  CHECK(has_note(notes, "big.txt: 4,194,305 bytes is over Run it's 4,194,304-byte limit"));
  CHECK_FALSE(rv::load_run_text_path(ui.app, dir + "/missing.txt", notes));
  CHECK(has_note(notes, "missing.txt: cannot open"));
  ui.frames(2);
  CHECK(s.tokens.ids == before);
  std::system(("rm -rf " + dir).c_str());
}
