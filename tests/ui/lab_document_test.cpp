// The desktop app's lab document is the CLI's (docs/lab.md): a run started as
// window.ropeviz.lab starts one (lab_start) and trained a slice per frame gives the bytes `ropeviz-cli lab` prints
// for the same flags (its LabRun stepped to the end, then lab_json), once `seconds` and `tokens_per_s` are out.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/lab/lab_session.hpp"
#include "core/lab/lab.hpp"
#include "headless.hpp"

using rv::test::without_times;  // the document without its two times ("seconds" and "tokens_per_s")

TEST_CASE("lab: the app's document for every method is the CLI's, byte for byte but for its times") {
  const std::string methods = "--methods=learned,sinusoidal,rope,alibi,t5,none";
  const std::vector<std::string> flags = {methods, "--train-len=2", "--steps=60", "--eval-count=10", "--seeds=1"};
  rv::test::Headless ui;
  REQUIRE(rv::lab_start(ui.app, flags));
  ui.frames_while_lab_runs();
  REQUIRE(!ui.app.lab.running);
  const rv::Expected<rv::LabOptions> o = rv::parse_lab_options(flags);
  REQUIRE(o);
  rv::LabRun cli(*o);
  while (!cli.done()) cli.step();
  const std::string app_doc = without_times(ui.app.lab.result_json);
  CHECK(app_doc.find("\"none\": {\"train_loss\"") != std::string::npos);
  CHECK(app_doc == without_times(rv::lab_json(cli.result())));
}
