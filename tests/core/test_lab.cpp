// The lab: task generators, option parser, learning-rate schedule, determinism, learned's null accuracy, training,
// stopping at the bar, no allocation in a training step.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "core/lab/lab.hpp"
#include "lab_test_options.hpp"
#include "malloc_counter.hpp"
#include "test_util.hpp"

using namespace rv;
using rv::test::learnable;
using rv::test::small;

namespace {

Expected<LabOptions> parse(std::vector<std::string> args) {
  return parse_lab_options(args);
}

// The parser's message for these tokens (empty if they parse).
std::string parse_error(std::vector<std::string> args) {
  const auto o = parse(std::move(args));
  return o ? std::string() : o.error().message;
}

using rv::test::contains;

}  // namespace

TEST_CASE("lab tasks: copy and reverse shapes, targets, determinism") {
  for (LabTask t : {LabTask::Copy, LabTask::Reverse}) {
    const LabBatch b = make_lab_batch(t, 4, 5, 7);
    REQUIRE(b.tokens.size() == 5);
    REQUIRE(b.targets.size() == 5);
    for (std::size_t r = 0; r < 5; ++r) {
      const auto& x = b.tokens[r];
      const auto& y = b.targets[r];
      REQUIRE(x.size() == 8);
      REQUIRE(y.size() == 8);
      CHECK(lab_input_len(t, 4) == 8);
      CHECK(x[4] == kLabSep);
      for (int i = 0; i < 4; ++i) {
        CHECK(x[i] >= 0);
        CHECK(x[i] < kLabSymbols);
        CHECK(y[i] == -1);  // no loss on the prompt
      }
      for (int i = 0; i < 4; ++i) {
        const long long want = t == LabTask::Copy ? x[i] : x[3 - i];
        CHECK(y[4 + i] == want);                       // answer i is predicted at the token before it
        if (i < 3) CHECK(x[5 + i] == y[4 + i]);        // and fed back as the next input
      }
    }
    const LabBatch again = make_lab_batch(t, 4, 5, 7);
    CHECK(again.tokens == b.tokens);
    CHECK(again.targets == b.targets);
    CHECK(make_lab_batch(t, 4, 5, 8).tokens != b.tokens);
  }
}

TEST_CASE("lab tasks: repeat answers are the token 3 places back") {
  const LabBatch b = make_lab_batch(LabTask::Repeat, 6, 4, 3);
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& x = b.tokens[r];
    const auto& y = b.targets[r];
    REQUIRE(x.size() == 8);  // n + 2
    CHECK(y[0] == -1);
    CHECK(y[1] == -1);
    int answers = 0;
    for (std::size_t t = 2; t < x.size(); ++t) {
      CHECK(y[t] == x[t - 2]);  // the next token equals the one 3 places before it
      ++answers;
    }
    CHECK(answers == 6);
    for (long long v : x) CHECK(v < kLabSymbols);
  }
  const LabBatch one = make_lab_batch(LabTask::Repeat, 1, 1, 3);
  CHECK(one.tokens[0].size() == 3);
  CHECK(one.targets[0] == std::vector<long long>{-1, -1, one.tokens[0][0]});
}

TEST_CASE("lab options: defaults") {
  const auto o = parse({});
  REQUIRE(o);
  CHECK(o->task == LabTask::Copy);
  CHECK(o->methods.size() == 6);
  CHECK(o->train_len == 3);
  CHECK(o->steps == 2000);
  CHECK(o->seed == 0);
  CHECK(o->seeds == 3);
  CHECK(o->d_model == 32);
  CHECK(o->heads == 4);
  CHECK(o->layers == 3);
  CHECK(o->d_ff == 64);
  CHECK(o->batch == 128);
  CHECK(o->lr == 6e-3);
  CHECK(o->weight_decay == 0.01);
  CHECK(o->warmup == 100);
  CHECK(o->eval_count == 100);
  CHECK(o->check_every == 50);
  CHECK(o->table_len == 0);
  CHECK(lab_trained_positions(*o) == 6);
  CHECK(lab_table_len(*o) == 6);
  CHECK(lab_decoder_config(*o, PositionMethod::Learned).max_position == 6);
  const auto longer = parse({"--task", "repeat", "--train-len", "4", "--table-len", "24"});
  REQUIRE(longer);
  CHECK(lab_trained_positions(*longer) == 6);  // 4 + 2
  CHECK(lab_decoder_config(*longer, PositionMethod::Learned).max_position == 24);
  CHECK(parse({"--table-len", "6"}));  // exactly the training inputs, spelled out
  CHECK(lab_decoder_config(*o, PositionMethod::Learned).vocab == kLabVocab);
}

TEST_CASE("lab options: flags parse, both --flag value and --flag=value") {
  const auto o = parse({"--task", "reverse", "--methods", "rope,learned", "--train-len=5", "--steps", "12",
                        "--seed", "42", "--lr", "0.01"});
  REQUIRE(o);
  CHECK(o->task == LabTask::Reverse);
  CHECK(o->methods == std::vector<PositionMethod>{PositionMethod::Rope, PositionMethod::Learned});
  CHECK(o->train_len == 5);
  CHECK(o->steps == 12);
  CHECK(o->seed == 42);
  CHECK(o->lr == 0.01);
  CHECK(parse({"--task", "repeat"})->task == LabTask::Repeat);
}

TEST_CASE("lab options: every error names its flag") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus", "1"}, "--bogus"},
      {{"stray"}, "stray"},
      {{"--task", "sort"}, "--task"},
      {{"--methods", "rope,cope"}, "--methods"},
      {{"--methods", "rope,rope"}, "--methods"},
      {{"--methods", ""}, "--methods"},
      {{"--train-len", "0"}, "--train-len"},
      {{"--train-len", "65"}, "--train-len"},
      {{"--train-len", "8x"}, "--train-len"},
      {{"--steps", "1.5"}, "--steps"},
      {{"--steps", "100001"}, "--steps"},
      {{"--steps", "99999999999999999999"}, "--steps"},
      {{"--seed", "-1"}, "--seed"},
      {{"--seed", "abc"}, "--seed"},
      {{"--lr", "0"}, "--lr"},
      {{"--lr", "nan"}, "--lr"},
      {{"--batch", "0"}, "--batch"},
      {{"--heads", "3"}, "--heads"},  // 64 is not divisible by 3
      {{"--steps"}, "--steps"},       // no value
      {{"--check-every", "-1"}, "--check-every"},
      {{"--check-every", "x"}, "--check-every"},
      {{"--table-len", "5"}, "--table-len"},  // copy at --train-len 3 reads 6 positions
      {{"--train-len", "4", "--table-len", "7"}, "--table-len"},
      {{"--table-len", "4097"}, "--table-len"},
      {{"--table-len", "-6"}, "--table-len"},
  };
  for (const auto& c : cases) {  // not a structured binding: clang's doctest INFO cannot capture one
    const std::string msg = parse_error(c.first);
    INFO(c.first[0], " -> ", msg);
    CHECK(!msg.empty());
    CHECK(contains(msg, c.second));
  }
}

TEST_CASE("lab learning rate: linear warm-up, then cosine to zero") {
  LabOptions o;
  o.steps = 300;
  o.lr = 3e-3;
  o.warmup = 100;
  CHECK(lab_learning_rate(o, 0) == doctest::Approx(3e-3 / 100));
  CHECK(lab_learning_rate(o, 99) == doctest::Approx(3e-3));
  CHECK(lab_learning_rate(o, 100) == doctest::Approx(3e-3));
  CHECK(lab_learning_rate(o, 200) == doctest::Approx(1.5e-3));
  CHECK(lab_learning_rate(o, 299) < 1e-6);
  o.steps = 10;  // warm-up capped at steps / 2
  CHECK(lab_learning_rate(o, 4) == doctest::Approx(3e-3));
}

TEST_CASE("lab run: same seed, same document apart from timing; learned is null past its table") {
  const LabOptions o = small({PositionMethod::Learned, PositionMethod::Rope}, 4);
  const LabResult a = run_lab(o), b = run_lab(o);
  auto strip = [](std::string s) {  // drop "seconds" and "tokens_per_s"
    const std::size_t from = s.find("\"seconds\""), to = s.find("\"methods\"");
    return s.erase(from, to - from);
  };
  CHECK(strip(lab_json(a)) == strip(lab_json(b)));
  REQUIRE(a.methods.size() == 2);
  const LabMethodResult& learned = a.methods[0];
  CHECK(learned.first().train_loss.size() == 4);
  REQUIRE(learned.accuracy.size() == 12);  // n = 1..4*3
  for (int n = 1; n <= 12; ++n) {
    CHECK(learned.accuracy[n - 1].has_value() == (n <= 3));  // inputs of 2n tokens, table of 6 rows
    CHECK(learned.token_accuracy[n - 1].has_value() == (n <= 3));
    CHECK(a.methods[1].accuracy[n - 1].has_value());
  }
  REQUIRE(learned.error);
  CHECK(*learned.error == "IndexError: index 6 is out of bounds for dimension 0 with size 6");
  CHECK(!a.methods[1].error);
  const std::string doc = lab_json(a);
  CHECK(contains(doc, "\"error\": \"IndexError: index 6 is out of bounds for dimension 0 with size 6\""));
  CHECK(contains(doc, "\"accuracy\": [") );
  CHECK(contains(doc, "null"));
  CHECK(contains(doc, "\"eval_lengths\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"));
  CHECK(run_lab(small({PositionMethod::Rope}, 4)).methods[0].first().train_loss == a.methods[1].first().train_loss);
  LabOptions checked = learnable({PositionMethod::Alibi}, 200);  // with bar checks, and a stop between them
  checked.check_every = 20;
  const LabResult c = run_lab(checked), d = run_lab(checked);
  CHECK(strip(lab_json(c)) == strip(lab_json(d)));
  CHECK(c.methods[0].first().steps_run < 200);
}

TEST_CASE("lab run: a longer learned table runs on rows no training input reached, which only weight decay moved") {
  LabOptions o = small({PositionMethod::Learned}, 30);
  o.table_len = 12;  // trained positions 0..5 (copy at train_len 3), rows 6..11 never read in training
  const LabResult r = run_lab(o);
  const LabMethodResult& m = r.methods[0];
  for (int n = 1; n <= 12; ++n) CHECK(m.accuracy[n - 1].has_value() == (n <= 6));  // 2n positions, 12 rows
  REQUIRE(m.error);
  CHECK(*m.error == "IndexError: index 12 is out of bounds for dimension 0 with size 12");
  REQUIRE(m.first().table_row_change.size() == 12);
  const double decay = lab_decay_only_change(o, m.first().steps_run);
  CHECK(decay > 0);
  CHECK(decay < 1e-3);
  for (int row = 0; row < 12; ++row) {
    INFO("row ", row, ": moved ", m.first().table_row_change[row], ", decay alone ", decay);
    if (row < 6)
      CHECK(m.first().table_row_change[row] > 10 * decay);  // gradients moved it
    else
      CHECK(m.first().table_row_change[row] == doctest::Approx(decay).epsilon(1e-3));  // float32 weights
  }
  const std::string doc = lab_json(r);
  CHECK(contains(doc, "\"max_position\": 12, \"trained_positions\": 6"));
  CHECK(contains(doc, "\"table_row_change\": ["));
  const auto again = parse_lab_options(lab_option_flags(o));  // Re-run repeats the table too
  REQUIRE(again);
  CHECK(again->table_len == 12);
  // the other methods have no table: no row changes in their entries
  CHECK(!contains(lab_json(run_lab(small({PositionMethod::Rope}, 2))), "table_row_change"));
}

TEST_CASE("lab run: time-sliced steps reach done() and match run_lab") {
  const LabOptions o = small({PositionMethod::Alibi, PositionMethod::T5}, 3, 2);
  LabRun run(o);
  int steps = 0;
  while (!run.done()) {
    CHECK(run.progress() < 1.0);
    run.step();
    ++steps;
  }
  CHECK(steps == 2 * (3 + 8));  // per method: 3 training steps, then 8 evaluation lengths
  CHECK(run.progress() == 1.0);
  CHECK(run.result().methods[1].accuracy == run_lab(o).methods[1].accuracy);
  LabOptions checked = learnable({PositionMethod::Rope, PositionMethod::T5}, 300);  // checks, and stops before the cap
  checked.check_every = 20;
  LabRun sliced(checked);
  double last = 0;
  bool monotone = true;
  while (!sliced.done()) {
    sliced.step();
    monotone = monotone && sliced.progress() >= last && (sliced.done() || sliced.progress() < 1.0);
    last = sliced.progress();
  }
  CHECK(monotone);
  CHECK(sliced.progress() == 1.0);
  CHECK(sliced.result().methods[0].first().steps_run < 300);
}

TEST_CASE("lab run: the training loss falls on a tiny run") {
  LabOptions o = learnable({PositionMethod::Rope, PositionMethod::None}, 100);
  o.check_every = 0;  // all 100 steps
  for (const LabMethodResult& m : run_lab(o).methods) {
    INFO(position_method_name(m.method));
    double first = 0, last = 0;
    for (int i = 0; i < 10; ++i) {
      first += m.first().train_loss[i];
      last += m.first().train_loss[m.first().train_loss.size() - 1 - i];
    }
    CHECK(last < 0.7 * first);
  }
}

TEST_CASE("lab run: rope and learned learn to copy at the training lengths") {
  const LabOptions o = learnable({PositionMethod::Rope, PositionMethod::Learned}, 300);
  for (const LabMethodResult& m : run_lab(o).methods) {
    INFO(position_method_name(m.method));
    for (int n = 1; n <= 2; ++n) CHECK(m.accuracy[n - 1].value_or(0) >= 0.9);
  }
}

TEST_CASE("lab run: a method stops once every training length is at the bar, and says so") {
  LabOptions o = learnable({PositionMethod::Rope, PositionMethod::Learned}, 600);
  o.check_every = 20;
  const LabResult r = run_lab(o);
  for (const LabMethodResult& m : r.methods) {
    INFO(position_method_name(m.method));
    CHECK(m.reached_bar);
    CHECK(m.first().steps_run < 600);
    CHECK(m.first().steps_run % 20 == 0);
    CHECK(m.first().train_loss.size() == static_cast<std::size_t>(m.first().steps_run));
    for (int n = 1; n <= 2; ++n) CHECK(m.accuracy[n - 1].value_or(0) >= kLabBar);  // the check's sequences
  }
  o.check_every = 0;  // without checks: every step, and reached_bar from the final evaluation
  o.steps = 40;
  o.methods = {PositionMethod::None};
  const LabMethodResult none = run_lab(o).methods[0];
  CHECK(none.first().steps_run == 40);
  CHECK(none.reached_bar == (none.accuracy[0].value_or(0) >= kLabBar && none.accuracy[1].value_or(0) >= kLabBar));
  const std::string doc = lab_json(r);
  CHECK(contains(doc, "\"steps_run\": " + std::to_string(r.methods[0].first().steps_run) + ", \"reached_bar\": true"));
  CHECK(contains(doc, "\"check_every\": 20, \"bar\": 0.95"));
}

TEST_CASE("lab run: a training step allocates nothing after the first, at sequential and at random positions") {
  for (PositionMethod m : kAllPositionMethods)
  for (LabPositions placement : {LabPositions::Sequential, LabPositions::Random}) {
    LabOptions o = small({m}, 50);
    o.check_every = 0;
    o.positions = placement;
    LabRun run(o);
    run.step();
    const long long news = test::allocations(), mallocs = test::mallocs();
    for (int i = 0; i < 20; ++i) run.step();
    const long long new_calls = test::allocations() - news, malloc_calls = test::mallocs() - mallocs;
    INFO(position_method_name(m), " ", lab_positions_name(placement), ": ", new_calls, " operator new, ", malloc_calls,
         " malloc");
    CHECK(run.result().methods[0].first().train_loss.size() == 21);
    CHECK(new_calls == 0);
    CHECK(malloc_calls == 0);
  }
  CHECK(test::mallocs_counted() == (test::mallocs() > 0));  // the counter sees the allocations it should
}

TEST_CASE("lab seeds: neighbouring steps and lengths get unrelated streams") {
  // NormalRng steps its state by the splitmix64 increment: seeds one increment apart would be one stream shifted by
  // a draw, and consecutive training steps would reuse almost all of each other's draws.
  for (std::uint64_t stream : {1, 2})
    for (std::uint64_t i = 0; i < 10; ++i) {
      NormalRng a(lab_seed(7, stream, i)), b(lab_seed(7, stream, i + 1));
      std::vector<std::uint64_t> xs, ys;
      for (int k = 0; k < 64; ++k) {
        xs.push_back(a.next_u64());
        ys.push_back(b.next_u64());
      }
      int shared = 0;
      for (std::uint64_t y : ys) shared += std::count(xs.begin(), xs.end(), y) > 0;
      CHECK(shared == 0);
    }
  CHECK(lab_seed(7, 1, 3) == lab_seed(7, 1, 3));
  CHECK(lab_seed(7, 1, 3) != lab_seed(8, 1, 3));
}
