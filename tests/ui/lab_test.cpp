// The Lab panel: its link keys, a run time-sliced across frames that equals core's run_lab, Stop, the CSV, the
// options object of window.ropeviz.lab, and the panel drawn mid-run and finished on every display.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "app/lab/lab_export.hpp"
#include "app/lab/lab_views.hpp"
#include "app/state/export.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "core/base/format.hpp"
#include "core/base/json_value.hpp"
#include "core/lab/lab_torch.hpp"
#include "headless.hpp"
#include "imgui.h"

using rv::test::Headless;

namespace rv {
std::string describe_lab(const App& app);  // the panel's text layer (registry)
}

namespace {

constexpr const char* kSmallRun = "tab=lab&task=reverse&train_len=3&steps=7&methods=rope,learned&lab_seed=5&seeds=1";

void check_same_curves(const rv::LabResult& a, const rv::LabResult& b) {
  REQUIRE(a.methods.size() == b.methods.size());
  for (std::size_t i = 0; i < a.methods.size(); ++i) {
    CHECK(a.methods[i].method == b.methods[i].method);
    CHECK(a.methods[i].first().train_loss == b.methods[i].first().train_loss);
    CHECK(a.methods[i].accuracy == b.methods[i].accuracy);
    CHECK(a.methods[i].token_accuracy == b.methods[i].token_accuracy);
    CHECK(a.methods[i].error == b.methods[i].error);
  }
}

}  // namespace

TEST_CASE("lab: a link selects the panel and its settings, and the canonical hash carries them") {
  Headless ui;
  CHECK(ui.set_state(kSmallRun).empty());
  const rv::Params& p = ui.app.params;
  CHECK(std::string(rv::selected_panel(p, rv::Bar::Bottom).key) == "lab");
  CHECK(p.task == rv::LabTask::Reverse);
  CHECK(p.train_len == 3);
  CHECK(p.steps == 7);
  CHECK(p.lab_seed == 5);
  const std::string hash = rv::encode_query(p);
  CHECK(hash.find("methods=rope,learned") == std::string::npos);  // written in the lab's order
  CHECK(hash.find("methods=learned,rope") != std::string::npos);
  rv::Params back;
  std::vector<std::string> notes;
  rv::apply_query(back, hash, notes);
  CHECK(notes.empty());
  CHECK(back == p);
  const std::vector<std::string> flags = rv::lab_flags(p);
  CHECK(flags == std::vector<std::string>{"--task", "reverse", "--methods", "learned,rope", "--train-len", "3",
                                          "--table-len", "0", "--steps", "7", "--seeds", "1", "--seed", "5"});
}

TEST_CASE(
    "lab: table_len gives the learned table rows no training reaches, and a train_len that outgrows it resets it") {
  Headless ui;
  CHECK(ui.set_state("tab=lab&methods=learned&train_len=3&table_len=12&steps=5&seeds=1").empty());
  CHECK(ui.app.params.table_len == 12);
  CHECK(rv::lab_options(ui.app.params).table_len == 12);
  CHECK(rv::encode_query(ui.app.params).find("table_len=12") != std::string::npos);
  auto notes = ui.set_state("train_len=8");  // 16 training positions do not fit 12 rows
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("table_len 12 is shorter than the longest training input (16 positions") != std::string::npos);
  CHECK(ui.app.params.table_len == 0);
  CHECK(ui.app.params.train_len == 8);
  notes = ui.set_state("table_len=4097");  // clamped to the parser's bound, with a note
  CHECK(notes.size() == 1);
  CHECK(ui.app.params.table_len == rv::kLabTableLenMax);
}

TEST_CASE("lab: bad link values leave the settings and say why") {
  Headless ui;
  const rv::Params before = ui.app.params;
  auto notes = ui.set_state("methods=rope,bogus&task=sort&train_len=0&steps=1e9&tab=nowhere");
  CHECK(notes.size() == 5);
  const rv::Params& p = ui.app.params;
  CHECK(p.methods == before.methods);
  CHECK(p.task == before.task);
  CHECK(p.train_len == 1);             // clamped to the parser's range
  CHECK(p.steps == rv::kLabStepsMax);  // clamped
  CHECK(p.tab_bottom == before.tab_bottom);
  CHECK(ui.set_state("methods=").size() == 1);  // at least one method
  CHECK(p.methods == before.methods);
}

TEST_CASE("lab: Run trains across frames and gives exactly core's run_lab curves, and the state holds the document") {
  Headless ui;
  ui.set_state(kSmallRun);
  ui.frames(2);
  ui.click("lab_run");
  CHECK(ui.app.lab.running);
  CHECK(ui.app.lab.serial == 1);
  const int frames = ui.frames_while_lab_runs();
  CHECK(frames >= 1);
  REQUIRE(!ui.app.lab.running);
  CHECK(!ui.app.lab.stopped);
  const rv::LabResult direct = rv::run_lab(rv::lab_options(ui.app.params));
  check_same_curves(ui.app.lab.run->result(), direct);
  const auto& learned = ui.app.lab.run->result().methods[0];
  CHECK(learned.method == rv::PositionMethod::Learned);
  REQUIRE(learned.error);  // sizes past the table (input 2n > 6) fail with the real error
  CHECK(learned.error->find("index 6 is out of bounds for dimension 0 with size 6") != std::string::npos);
  CHECK(learned.accuracy[2].has_value());   // n = 3 (6 tokens) fits
  CHECK(!learned.accuracy[3].has_value());  // n = 4 (8 tokens) does not
  const std::string state = rv::state_json(ui.app);
  CHECK(state.find("\"lab\":{\"running\":false,\"stopped\":false,\"serial\":1") != std::string::npos);
  CHECK(state.find(ui.app.lab.result_json) != std::string::npos);
  CHECK(ui.app.lab.result_json.find("\"task\": \"reverse\"") != std::string::npos);
  ui.frames(2);  // the finished panel draws
}

TEST_CASE("lab: Stop keeps the partial curves, says so in the CSV, and Run starts afresh") {
  Headless ui;
  ui.set_state("tab=lab&train_len=4&steps=400&methods=rope,none&seeds=1");
  ui.frames(2);
  rv::lab_start(ui.app, rv::lab_flags(ui.app.params));
  ui.frames(2);
  REQUIRE(ui.app.lab.running);
  ui.click("lab_stop");
  CHECK(!ui.app.lab.running);
  CHECK(ui.app.lab.stopped);
  const rv::LabResult& r = ui.app.lab.run->result();
  REQUIRE(r.methods.size() == 1);
  const std::size_t steps = r.methods[0].first().train_loss.size();
  CHECK(steps > 0);
  CHECK(steps < 400);
  ui.frames(3);  // no more training after Stop
  CHECK(ui.app.lab.run->result().methods[0].first().train_loss.size() == steps);
  const rv::ExportFile csv = rv::export_lab_csv(ui.app);
  CHECK(csv.content.find("(stopped early)") != std::string::npos);
  CHECK(csv.content.find("--train-len 4 --steps 400") != std::string::npos);
  std::istringstream lines(csv.content);
  std::string line;
  int loss_rows = 0;
  while (std::getline(lines, line)) loss_rows += line.rfind("rope,0,train_loss,", 0) == 0;
  CHECK(loss_rows == int(steps));
  ui.click("lab_run");
  CHECK(ui.app.lab.running);
  CHECK(ui.app.lab.serial == 2);
  CHECK(ui.app.lab.run->result().methods[0].first().train_loss.empty());
}

TEST_CASE("lab: the PyTorch button exports the script and its data file for the panel's settings or the last run") {
  Headless ui;
  ui.set_state("tab=lab&train_len=5&steps=30&methods=rope,alibi&lab_seed=7&seeds=1");
  ui.frames(2);
  ui.click("lab_torch");  // before any run: the panel's settings
  REQUIRE(ui.app.ui.pending_exports.size() == 2);
  const rv::ExportFile script = ui.app.ui.pending_exports[0], data = ui.app.ui.pending_exports[1];
  CHECK(script.name == "ropeviz_lab.py");
  CHECK(data.name == "ropeviz_lab_data.json");
  CHECK(script.content.find("\"train_len\": 5, \"table_len\": 0, \"steps\": 30, \"seed\": 7, ") !=
        std::string::npos);  // on the DEFAULTS line
  CHECK(script.content.find("import torch") != std::string::npos);
  const rv::Expected<rv::JsonValue> doc = rv::parse_json(data.content);
  REQUIRE(doc);
  CHECK(doc->find("options")->find("train_len")->number == 5);
  CHECK(doc->find("batches")->array.size() == std::size_t(rv::kLabTorchBatches));
  CHECK(doc->find("methods")->find("alibi") != nullptr);
  CHECK(doc->find("methods")->find("none") == nullptr);
  ui.app.ui.pending_exports.clear();
  rv::lab_start(ui.app, {"--methods", "none", "--train-len", "2", "--steps", "3"});  // a run's options win
  ui.frames_while_lab_runs();
  ui.frames(1);  // the finished run's buttons drawn where they now are, as a user sees them before clicking
  ui.click("lab_torch");
  REQUIRE(ui.app.ui.pending_exports.size() == 2);
  CHECK(ui.app.ui.pending_exports[0].content.find("\"methods\": \"none\", \"train_len\": 2, \"table_len\": 0, "
                                                  "\"steps\": 3, ") != std::string::npos);
}

TEST_CASE("lab: the options object of window.ropeviz.lab becomes the CLI flags, and bad shapes are refused by name") {
  const auto flags = rv::lab_flags_from_json(
      R"({"task": "copy", "methods": ["rope", "alibi"], "train_len": 16, "steps": 2000, "seed": 1, "lr": 0.002})");
  REQUIRE(flags);
  CHECK(*flags == std::vector<std::string>{"--task", "copy", "--methods", "rope,alibi", "--train-len", "16", "--steps",
                                           "2000", "--seed", "1", "--lr", "0.002"});
  const auto options = rv::parse_lab_options(*flags);
  REQUIRE(options);
  CHECK(options->train_len == 16);
  CHECK(options->methods.size() == 2);
  for (const char* bad : {R"({"steps": {"n": 3}})", R"({"steps": NaN})", R"({"methods": ["rope", 3]})",
                          R"({"task": null})", R"(["--steps", "3"])", R"({"steps": )"}) {
    CAPTURE(bad);
    const auto f = rv::lab_flags_from_json(bad);
    REQUIRE(!f);
    CHECK(f.error().type == "BadRequest");
  }
  CHECK(rv::lab_flags_from_json(R"({"steps": true})").error().message.find("\"steps\"") != std::string::npos);
  Headless ui;
  CHECK(!rv::lab_start(ui.app, *rv::lab_flags_from_json(R"({"train_len": 0})")));
  CHECK(ui.app.lab.error.find("--train-len") != std::string::npos);
  CHECK(!ui.app.lab.run);
  CHECK(!rv::lab_start(ui.app, *rv::lab_flags_from_json(R"({"colour": "red"})")));
  CHECK(ui.app.lab.error.find("unknown flag \"--colour\"") != std::string::npos);
}

TEST_CASE("lab: a run's flags read back to the same options (Re-run and the CSV header repeat it exactly)") {
  rv::LabOptions o;
  o.task = rv::LabTask::Repeat;
  o.methods = {rv::PositionMethod::T5, rv::PositionMethod::Alibi};
  o.train_len = 11;
  o.steps = 123;
  o.seed = 9007199254740991ULL;  // the largest seed: room for one run
  o.seeds = 1;
  o.lr = 0.0031;
  o.d_model = 48;
  o.heads = 3;
  o.check_every = 7;
  o.rope_scaling = rv::ScalingType::Yarn;
  o.rope_factor = 2.75;
  const auto back = rv::parse_lab_options(rv::lab_option_flags(o));
  REQUIRE(back);
  CHECK(rv::lab_option_flags(*back) == rv::lab_option_flags(o));
  CHECK(back->check_every == 7);
  CHECK(back->rope_scaling == rv::ScalingType::Yarn);
  CHECK(back->rope_factor == 2.75);
  CHECK(back->lr == o.lr);
  CHECK(back->seed == o.seed);
  CHECK(back->methods == o.methods);
}

TEST_CASE("lab: the panel draws before, during and after a run on every display") {
  rv::test::for_each_setting({kSmallRun, "tab=lab&methods=none&train_len=1&steps=2&seeds=1"}, [](Headless& ui) {
    ui.frames(2);
    rv::lab_start(ui.app, rv::lab_flags(ui.app.params));
    ui.frames(1);
    ui.frames_while_lab_runs();
    ui.frames(2);
    CHECK(!ui.app.lab.running);
  });
}

TEST_CASE("lab: inside a trained model, attention maps per head and a KV-cache decode equal to a full recompute") {
  Headless ui;
  ui.set_state("tab=lab&task=copy&train_len=3&steps=30&methods=learned,rope&lab_seed=2&seeds=1");
  ui.frames(2);
  ui.click("lab_run");
  ui.frames_while_lab_runs();
  REQUIRE(ui.app.lab.run->trained().size() == 2);
  rv::LabInspect& in = ui.app.lab.inspect;
  in.method = 1;  // rope
  in.n = 3;
  ui.click("lab_attention");
  ui.frames(2);
  REQUIRE(in.error.empty());
  REQUIRE(in.maps.size() == std::size_t(rv::LabOptions{}.layers));
  REQUIRE(in.maps[0].size() == 4);   // heads
  CHECK(in.maps[0][0].rows() == 6);  // copy of 3: x1 x2 x3 SEP x1 x2
  for (const auto& layer : in.maps)
    for (const auto& map : layer)
      for (Eigen::Index i = 0; i < map.rows(); ++i) CHECK(std::abs(map.row(i).sum() - 1.0f) < 1e-5f);
  ui.click("lab_kv");
  ui.frames(2);
  REQUIRE(in.kv);
  CHECK(in.kv->prompt_length == 4);
  CHECK(in.kv->tokens.size() == 7);
  CHECK(in.kv->worst_logit_diff < 1e-5);
  CHECK(in.kv->worst_key_diff < 1e-5);
  CHECK(in.kv->steps.back().rotated_twice > 1e-3);
  in.method = 0;  // learned: its table has 6 rows, a size-4 copy needs 8
  in.n = 4;
  ui.frames(2);
  REQUIRE(in.kv);  // the decode runs until the table ends, and says so
  REQUIRE(in.kv->error);
  CHECK(in.kv->error->full() == "IndexError: index 6 is out of bounds for dimension 0 with size 6");
  CHECK(in.kv->tokens.size() == 7);  // x1..x4 SEP, then two generated before position 6
  ui.click("lab_attention");
  ui.frames(2);
  CHECK(in.error == "IndexError: index 6 is out of bounds for dimension 0 with size 6");
}

TEST_CASE(
    "lab: the rope scaling combo and factor go to Run, a scripted run's scaling shows, and the CSV has the curve") {
  Headless ui;
  ui.set_state("tab=lab&task=copy&train_len=2&steps=20&methods=rope,alibi&lab_seed=1&seeds=1");
  ui.frames(2);
  CHECK(ui.rect("lab_scaling").w > 0);
  CHECK(ui.app.ui.rects.count("lab_factor") == 0);  // no factor field without scaling
  CHECK(rv::lab_flags(ui.app) == rv::lab_flags(ui.app.params));
  ui.app.lab.rope_scaling = rv::ScalingType::Linear;  // the combo's choice
  ui.app.lab.rope_factor = 2.5;
  ui.frames(2);
  CHECK(ui.rect("lab_factor").w > 0);
  const std::vector<std::string> flags = rv::lab_flags(ui.app);
  CHECK(std::vector<std::string>(flags.end() - 4, flags.end()) ==
        std::vector<std::string>{"--rope-scaling", "linear", "--rope-factor", "2.5"});
  ui.click("lab_run");
  REQUIRE(ui.app.lab.running);
  CHECK(ui.app.lab.run->result().options.rope_scaling == rv::ScalingType::Linear);
  CHECK(ui.app.lab.run->result().options.rope_factor == 2.5);
  ui.frames_while_lab_runs();
  const rv::LabResult& r = ui.app.lab.run->result();
  REQUIRE(r.methods.size() == 2);
  CHECK(r.methods[0].accuracy_scaled.size() == 8);  // rope
  CHECK(r.methods[1].accuracy_scaled.empty());      // alibi
  ui.frames(2);                                     // the scaled curve, its row and readout draw
  const rv::ExportFile csv = rv::export_lab_csv(ui.app);
  CHECK(csv.content.find("--rope-scaling linear --rope-factor 2.5") != std::string::npos);
  CHECK(csv.content.find("\nrope,mean,accuracy_scaled,8,") != std::string::npos);
  CHECK(csv.content.find("alibi,accuracy_scaled") == std::string::npos);
  CHECK(rv::describe_lab(ui.app).find("rope + linear x2.5") != std::string::npos);
  // window.ropeviz.lab({...}) with scaling: the panel shows the run's choice
  const auto js =
      rv::lab_flags_from_json(R"({"methods": ["rope"], "steps": 5, "rope_scaling": "yarn", "rope_factor": 8})");
  REQUIRE(js);
  REQUIRE(rv::lab_start(ui.app, *js));
  CHECK(ui.app.lab.rope_scaling == rv::ScalingType::Yarn);
  CHECK(ui.app.lab.rope_factor == 8.0);
  ui.frames_while_lab_runs();
  CHECK(ui.app.lab.result_json.find("\"accuracy_scaled\": [") != std::string::npos);
  CHECK(!rv::lab_start(ui.app, *rv::lab_flags_from_json(R"({"rope_scaling": "llama3"})")));  // not the lab's
  CHECK(ui.app.lab.error.find("--rope-scaling") != std::string::npos);
  CHECK(ui.app.lab.rope_scaling == rv::ScalingType::Yarn);  // a refused run changes nothing
  // an old script's name: pi is linear
  REQUIRE(
      rv::lab_start(ui.app, *rv::lab_flags_from_json(R"({"methods": ["rope"], "steps": 2, "rope_scaling": "pi"})")));
  CHECK(ui.app.lab.rope_scaling == rv::ScalingType::Linear);
  ui.frames_while_lab_runs();
  CHECK(ui.app.lab.result_json.find("\"rope_scaling\": \"linear\"") != std::string::npos);
}

TEST_CASE("lab: a run with rope scaling draws on every display") {
  rv::test::for_each_setting({"tab=lab&methods=rope&train_len=1&steps=2&seeds=1"}, [](Headless& ui) {
    ui.app.lab.rope_scaling = rv::ScalingType::Yarn;
    ui.frames(2);
    rv::lab_start(ui.app, rv::lab_flags(ui.app));
    ui.frames_while_lab_runs();
    for (int view : {0, 1}) {
      ui.app.ui.lab_view = view;
      ui.frames(2);
    }
    CHECK(ui.app.lab.run->result().methods[0].accuracy_scaled.size() == 4);
  });
}

TEST_CASE("lab: the learned rows view shows rows no training reached, which only weight decay moved") {
  Headless ui;
  CHECK(ui.set_state("tab=lab&methods=learned,rope&train_len=2&table_len=8&steps=20&seeds=1").empty());
  ui.frames(2);
  ui.click("lab_run");
  ui.app.ui.lab_view = 5;  // nothing trained yet: the view falls back to exact match
  ui.frame();
  CHECK(ui.app.ui.lab_view == 0);
  ui.frames_while_lab_runs();
  ui.frames(2);
  ui.click("lab_table");
  ui.frames(2);
  CHECK(ui.app.ui.lab_view == 5);
  const rv::LabSeedRun& m = ui.app.lab.run->result().methods[0].first();
  REQUIRE(m.table_row_change.size() == 8);  // positions 0..3 trained (copy at train_len 2)
  const std::string text = rv::describe_lab(ui.app);
  CHECK(text.find("Its table has 8 rows; rows 4 to 7 were never trained") != std::string::npos);
  CHECK(text.find("weight decay alone: " +
                  rv::format_sig(100 * rv::lab_decay_only_change(ui.app.lab.run->result().options, m.steps_run), 3) +
                  "%") != std::string::npos);
  // a run without learned has no such view: exact match again
  ui.set_state("methods=rope&steps=2&seeds=1");
  ui.click("lab_run");
  ui.frames_while_lab_runs();
  ui.frames(2);
  CHECK(ui.app.ui.lab_view == 0);
}

TEST_CASE("lab: the explanation wraps only between words at every width (no '1.' / '.train_len' split)") {
  Headless ui;  // a font to measure with
  const std::string text = rv::lab_intro();
  CHECK(text.find("1–train_len") != std::string::npos);
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  for (float width = 120.0f; width <= 1600.0f; width += 7.0f) {
    const char* s = text.c_str();
    const char* end = s + text.size();
    while (s < end) {
      const char* brk = font->CalcWordWrapPositionA(1.0f, s, end, width);
      if (brk == s) brk = s + 1;
      if (brk < end) {
        INFO("width " << width << ": a line ends with \"" << std::string(s, brk) << "\"");
        CHECK_FALSE((brk[-1] == '.' && brk[0] == '.'));
        CHECK_FALSE((brk[0] == '.' && brk > s && brk[-1] != ' '));
      }
      s = brk;
      while (s < end && *s == ' ') ++s;
    }
  }
}
