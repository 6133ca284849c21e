// The link-key table drives parsing, the hash, Params equality and docs/link-keys.md's key list; the
// Model rebuilds each cached piece only when its own inputs change, once per frame at most.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "core/decoder/decoder.hpp"
#include "headless.hpp"
#include "imgui_config.hpp"

using rv::test::Headless;

namespace {

std::vector<std::string> table_keys() {
  std::vector<std::string> keys;
  for (const rv::ParamField& f : rv::param_fields()) keys.push_back(f.key);
  return keys;
}

// docs/link-keys.md's table: the backticked key that starts each row, in the file's order.
std::vector<std::string> documented_keys() {
  std::ifstream in(RV_SOURCE_DIR "/docs/link-keys.md");
  REQUIRE(in);
  std::vector<std::string> keys;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| `", 0) == 0) keys.push_back(line.substr(3, line.find('`', 3) - 3));
  return keys;
}

std::string one_note(rv::Params& p, const char* key, const char* value) {
  std::vector<std::string> notes;
  rv::set_param(p, key, value, notes);
  return notes.size() == 1 ? notes[0] : "(" + std::to_string(notes.size()) + " notes)";
}

std::map<std::string, int> builds(const rv::Model& m) {
  std::map<std::string, int> out;
  for (const auto& [name, n] : rv::cache_builds(m)) out[name] = n;
  return out;
}

// The pieces whose build count changed from before to after, with the number of rebuilds.
std::map<std::string, int> rebuilt(const std::map<std::string, int>& before, const rv::Model& m) {
  std::map<std::string, int> out;
  for (const auto& [name, n] : builds(m))
    if (n != before.at(name)) out[name] = n - before.at(name);
  return out;
}

}  // namespace

TEST_CASE("params: docs/link-keys.md lists exactly the table's link keys, in hash order") {
  CHECK(documented_keys() == table_keys());
}

TEST_CASE("params: the default hash starts with the one links have always carried (new keys go last)") {
  CHECK(rv::encode_query(rv::Params{})
            .rfind("position=5&key_position=3&max_position=10&d_head=8&heads=4&batch=2&seq_len=5&vocab=100&base=10000"
                   "&pairing=interleaved&seed=123&offsets=64&tab_top=rotations&tab_bottom=learned_table&scaling=none&"
                   "factor=8&original_max=4096"
                   "&low_freq=1&high_freq=4&beta_fast=32&beta_slow=1",
                   0) == 0);
}

TEST_CASE("params: every row has a unique key and help, is found by name, and takes part in == and the hash") {
  std::set<std::string> seen;
  for (const rv::ParamField& f : rv::param_fields()) {
    CAPTURE(f.key);
    CHECK(seen.insert(f.key).second);
    CHECK(std::string(f.help).size() > 10);
    CHECK(rv::find_field(f.key) == &f);
    // Some value the row accepts without a note that differs from the default.
    const rv::Params defaults;
    bool changed = false;
    for (const char* text :
         {"2", "3", "half_split", "yarn", "0.5", "7", "lesson", "reverse", "rope", "12", "ones", "random", "64"}) {
      rv::Params p;
      std::vector<std::string> notes;
      if (!f.parse(f, p, rv::text_input(text), notes) || !notes.empty() || f.encode(p) == f.encode(defaults)) continue;
      rv::enforce_limits(p, notes);  // and the limits across rows (table_len 2 is too short for the lab's inputs)
      if (!notes.empty()) continue;
      changed = true;
      CHECK(p != defaults);  // == sees the member
      CHECK(f.equal(p, p));
      CHECK(!f.equal(p, defaults));
      rv::Params back;
      rv::apply_query(back, rv::encode_query(p), notes);
      CHECK(notes.empty());
      CHECK(back == p);  // the hash carries it
      break;
    }
    CHECK(changed);
  }
  CHECK(rv::find_field("no_such_key") == nullptr);
  rv::Params p;
  std::vector<std::string> notes;
  CHECK(rv::set_param(p, "no_such_key", "1", notes));  // ignored: newer links may carry more
  CHECK(notes.empty());
  CHECK(p == rv::Params{});
}

TEST_CASE("params: the methods key's choices are core's position methods, in their order") {
  std::string names;
  for (rv::PositionMethod m : rv::kAllPositionMethods)
    names += std::string(names.empty() ? "" : ", ") + rv::position_method_name(m);
  const rv::ParamField* methods = rv::find_field("methods");
  REQUIRE(methods);
  CHECK(std::string(methods->choices) == names);  // a new method in core is named here too
}

TEST_CASE("params: each kind keeps its notes and clamping") {
  rv::Params p;
  CHECK(one_note(p, "position", "x") == "position='x' is not a whole number; kept 5");
  CHECK(one_note(p, "heads", "300") == "heads='300' is outside [1, 256]; using 256");
  CHECK(p.heads == 256);
  CHECK(one_note(p, "d_head", "7") == "d_head='7' is odd: RoPE rotates pairs; using 8");
  CHECK(p.d_head == 8);
  CHECK(one_note(p, "d_head", "1") == "d_head='1' is outside [2, 1024]; using 2");
  CHECK(p.d_head == 2);
  CHECK(one_note(p, "base", "0.5") == "base='0.5' must be a number greater than 1; kept 10000");
  CHECK(one_note(p, "factor", "5000") == "factor='5000' is above 1000; using that");
  CHECK(p.factor == 1000.0);
  CHECK(one_note(p, "original_max", "1.5") == "original_max='1.5' is not a whole number; kept 4096");
  CHECK(one_note(p, "original_max", "2e9") == "original_max='2e9' is outside [1, 1000000000]; using 1000000000");
  CHECK(p.original_max == 1e9);
  CHECK(one_note(p, "scaling", "foo") == "scaling='foo' is not none, linear, dynamic, yarn or llama3; kept none");
  CHECK(one_note(p, "pairing", "x") == "pairing='x' is not 'interleaved' or 'half_split'; kept interleaved");
  CHECK(one_note(p, "seed", "1e16") == "seed='1e16' is outside [0, 9007199254740991]; using 9007199254740991");
  CHECK(p.seed == 9007199254740991ULL);
  const std::string last = std::to_string(rv::bar_panels(rv::Bar::Top).size() - 1);
  CHECK(one_note(p, "tab_top", "9") == "tab_top='9' is outside [0, " + last + "]; using " + last);
  const rv::ParamField* d = rv::find_field("d_head");
  REQUIRE(d);
  CHECK(d->kind == rv::FieldKind::EvenInteger);
  CHECK(d->hi == rv::Limits::kDHeadMax);
}

TEST_CASE("model: steady frames rebuild nothing, a change rebuilds exactly its dependents once") {
  Headless ui;
  ui.frames(2);
  rv::Model& m = ui.app.model;
  for (const auto& piece : builds(m)) {  // (clang: CAPTURE's lambda cannot capture a structured binding)
    CAPTURE(piece.first);
    CHECK(piece.second == 1);  // built once, by the first frame
  }
  auto before = builds(m);
  const int updates = m.updates;
  ui.frames(10);
  CHECK(rebuilt(before, m).empty());
  CHECK(m.updates - updates <= 2 * 10);  // at the start of frame() and after the controls, no more

  // Moving m: its lookup, rotation, token, precision, PE[m] and probes; not the curves, table or field.
  std::vector<std::string> notes;
  rv::set_param(ui.app.params, "position", "6", notes);
  ui.frames(3);
  CHECK(rebuilt(before, m) ==
        std::map<std::string, int>{
            {"lookup", 1}, {"rotate", 1}, {"token", 1}, {"precision", 1}, {"sinus_at_m", 1}, {"probes", 1}});

  before = builds(m);
  rv::set_param(ui.app.params, "offsets", "128", notes);
  ui.frames(3);
  CHECK(rebuilt(before, m) == std::map<std::string, int>{{"curves", 1}, {"decay", 1}});

  before = builds(m);
  rv::set_param(ui.app.params, "factor", "4", notes);
  ui.frames(3);
  CHECK(rebuilt(before, m) == std::map<std::string, int>{{"scaling", 1}});

  before = builds(m);
  rv::set_param(ui.app.params, "heads", "2", notes);  // d changes: the table, the sinusoidal PE and what reads them
  ui.frames(3);
  CHECK(rebuilt(before, m) == std::map<std::string, int>{{"table", 1},
                                                         {"lookup", 1},
                                                         {"token", 1},
                                                         {"sinusoidal", 1},
                                                         {"sinus_at_m", 1},
                                                         {"shapes", 1},
                                                         {"probes", 1},
                                                         {"budget", 1},
                                                         {"alibi", 1}});
  CHECK(notes.empty());

  before = builds(m);
  ui.app.params.tab_top = 2;  // the view only: no model piece reads tabs
  ui.frames(3);
  CHECK(rebuilt(before, m).empty());
}

TEST_CASE("model: a link applied outside a frame is in the state once update_model runs (as state() does)") {
  Headless ui;
  ui.frames(1);
  ui.set_state("position=42&d_head=16");
  rv::update_model(ui.app.params, ui.app.model);  // what rv_web_state does before state_json
  const rv::Model& m = ui.app.model;
  CHECK(m.precision[0][0].position == 42.0);
  CHECK(m.inv_freq.size() == 8);
  CHECK(m.probes[rv::Model::kProbeCount - 1].position == 42);  // the last probe is m
  CHECK(rv::state_json(ui.app).find("\"position\":42") != std::string::npos);
}

TEST_CASE("model: a size changed by a control mid-frame reaches the panels in that same frame") {
  // Clicks the '+' step button of the heads box (d = h x d_head grows): the update after the
  // controls must rebuild the table before the panels index it, with no assertion.
  Headless ui;
  ui.app.params.tab_bottom = 0;  // the learned table panel
  ui.frames(2);
  const rv::Rect r = ui.rect("heads+");
  REQUIRE(r.y + r.h < 800.0f);
  ui.mouse_move(r.x + r.w * 0.5f, r.y + r.h * 0.5f);
  ui.frame();
  const int before = rv::imgui_assert_count();
  bool changed = false;
  for (bool down : {true, false}) {
    ui.mouse_down(down);
    ui.frame();
    if (ui.app.params.heads == 5 && !changed) {
      changed = true;
      // No update_model since the frame ended: this is what the panels drew from.
      const rv::Model& m = ui.app.model;
      CHECK(m.table.P.cols() == ui.app.params.d_model());
      CHECK(m.e_row.size() == ui.app.params.d_model());
      CHECK(m.counts.learned_position == (long long)ui.app.params.max_position * ui.app.params.d_model());
    }
  }
  CHECK(changed);
  CHECK(rv::imgui_assert_count() == before);
}

TEST_CASE("number fields apply typed text on Enter or when focus leaves, never per keystroke, never lost") {
  Headless ui;
  ui.frames(2);
  ui.click("max_position");  // the click selects the whole text, so typing replaces it
  for (const char* digit : {"2", "0", "4", "8"}) {
    ui.type(digit);
    CHECK(ui.app.params.max_position == 10);  // no IndexError flashing through 2 and 20
  }
  ui.key(ImGuiKey_Enter);
  CHECK(ui.app.params.max_position == 2048);
  CHECK(ui.app.ui.notes.empty());

  ui.click("base");  // typed, then focus leaves (a click on another field): applied, as with Enter
  ui.type("500000");
  CHECK(ui.app.params.base == 10000.0);
  ui.click("d_head");
  CHECK(ui.app.params.base == 500000.0);

  ui.type("64");  // Escape restores the field: nothing applies
  ui.key(ImGuiKey_Escape);
  ui.click("base");
  CHECK(ui.app.params.d_head == 8);

  ui.type("abc");  // a scientific-number field keeps out letters; Enter with nothing new changes nothing
  ui.key(ImGuiKey_Enter);
  CHECK(ui.app.params.base == 500000.0);
  CHECK(ui.app.ui.notes.empty());
}

TEST_CASE("params: each typed key names its own row, and set() keeps the link's rules with no text on the way") {
  for (int i = 0; i < rv::kKeyCount; ++i) CHECK(&rv::field(rv::Key(i)) == rv::param_fields().begin() + i);
  CHECK(std::string(rv::field(rv::Key::position).key) == "position");
  CHECK(std::string(rv::field(rv::Key::qk_head).key) == "qk_head");
  rv::Params p;
  std::vector<std::string> notes;
  CHECK(rv::set(p, rv::keys::base, 500000, notes));
  CHECK(p.base == 500000.0);
  CHECK(notes.empty());
  CHECK(rv::set(p, rv::keys::position, 2e9, notes));  // clamped, with the link's note
  CHECK(p.position == rv::Limits::kPositionMax);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "position='2000000000' is outside [0, 1000000000]; using 1000000000");
  notes.clear();
  CHECK(rv::set(p, rv::keys::d_head, 7, notes));
  CHECK(p.d_head == 8);
  CHECK(notes.size() == 1);
  notes.clear();
  CHECK(rv::set(p, rv::keys::pairing, rv::Pairing::HalfSplit, notes));
  CHECK(p.pairing == rv::Pairing::HalfSplit);
  CHECK_FALSE(rv::set(p, rv::keys::scaling, rv::ScalingType::Longrope, notes));  // a link could not carry it
  CHECK(p.scaling == rv::ScalingType::None);
  notes.clear();
  CHECK(rv::set(p, rv::keys::model, "llama-3.1-8b", notes));
  CHECK_FALSE(rv::set(p, rv::keys::base, 10000, notes));  // the model's base stays, with a note saying why
  CHECK(p.base == 500000.0);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("choose model=none to change it") != std::string::npos);
}
