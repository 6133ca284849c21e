// RoPE context extension inside the tiny decoder (DecoderConfig's inv_freq / attention_factor override) and the lab's
// --rope-scaling evaluation of rope's final weights.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_cache.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "core/lab/lab.hpp"
#include "core/rope/scaling.hpp"
#include "test_util.hpp"

using namespace rv;

namespace {

// vocab 7, d_model 16, heads 2 (d_head 8), `layers` layers, d_ff 12, rope.
DecoderConfig rope_config(int layers = 1, Pairing p = Pairing::Interleaved) {
  DecoderConfig c;
  c.vocab = 7;
  c.d_model = 16;
  c.heads = 2;
  c.layers = layers;
  c.d_ff = 12;
  c.position = PositionMethod::Rope;
  c.pairing = p;
  return c;
}

template <class S>
DecoderWeightsT<S> random_weights(const DecoderConfig& c, std::uint64_t seed) {
  DecoderWeightsT<S> w = init_decoder_weights<S>(c, seed);
  NormalRng rng(seed + 1);
  for (WeightRef<S>& r : weight_refs(c, w))
    for (long long i = 0; i < r.size; ++i) r.data[i] += static_cast<S>(0.5 * rng.normal());
  return w;
}

// c with core's scaled frequencies as its override.
DecoderConfig scaled(DecoderConfig c, const RopeScaling& s) {
  const Expected<ScaledFreq> f = rope_scaled_inv_freq(c.d_head(), c.base, s);
  REQUIRE(f);
  c.inv_freq.assign(f->inv_freq.data(), f->inv_freq.data() + f->inv_freq.size());
  c.attention_factor = f->attention_factor;
  return c;
}

RopeScaling linear(double factor) {
  RopeScaling s;
  s.type = ScalingType::Linear;
  s.factor = factor;
  return s;
}

const TokenRows kScalingTokens = {{1, 4, 6, 0, 3, 2, 5, 1, 1, 6, 0, 2}};
const TokenRows kScalingTargets = {{4, 6, 0, 3, 2, 5, 1, 1, 6, 0, 2, 3}};

using rv::test::contains;

int count_of(const std::string& s, const std::string& part) {
  int n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("rope override: factor-1 position interpolation is the unscaled model bit for bit, in float64 and float32") {
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    const DecoderConfig c = rope_config(2, p), one = scaled(c, linear(1.0));
    REQUIRE(!check_decoder_config(one));
    REQUIRE(one.inv_freq.size() == 4);
    const auto w64 = random_weights<double>(c, 3);
    const auto a = decoder_loss_and_grad(c, w64, kScalingTokens, kScalingTargets),
               b = decoder_loss_and_grad(one, w64, kScalingTokens, kScalingTargets);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->loss == b->loss);
    CHECK(a->grads.layer[0].wq == b->grads.layer[0].wq);
    CHECK(a->grads.tok_emb == b->grads.tok_emb);
    const auto w32 = random_weights<float>(c, 3);
    const auto f = decoder_forward(c, w32, kScalingTokens, kScalingTargets),
               g = decoder_forward(one, w32, kScalingTokens, kScalingTargets);
    REQUIRE(f);
    REQUIRE(g);
    CHECK(f->logits[0] == g->logits[0]);
    // and the override is read: factor 4 changes the logits (past position 0)
    const auto h = decoder_forward(scaled(c, linear(4.0)), w32, kScalingTokens, kScalingTargets);
    REQUIRE(h);
    CHECK(h->logits[0].row(0) == f->logits[0].row(0));
    CHECK((h->logits[0] - f->logits[0]).cwiseAbs().maxCoeff() > 1e-3f);
    // float32 and float64 from the same code agree on the scaled model
    const DecoderConfig four = scaled(c, linear(4.0));
    DecoderWeightsT<double> w32as64 = zero_weights<double>(c);
    auto from = weight_refs(c, w32);
    auto to = weight_refs(c, w32as64);
    for (std::size_t k = 0; k < from.size(); ++k)
      for (long long i = 0; i < from[k].size; ++i) to[k].data[i] = from[k].data[i];
    const auto h64 = decoder_forward(four, w32as64, kScalingTokens, kScalingTargets);
    REQUIRE(h64);
    CHECK((h64->logits[0].cast<float>() - h->logits[0]).cwiseAbs().maxCoeff() < 1e-4f);
  }
}

TEST_CASE("rope override: position interpolation by s at position t is the unscaled model at position t / s") {
  const DecoderConfig c = rope_config(), pi = scaled(c, linear(4.0));
  const auto w = random_weights<double>(c, 5);
  const TokenRows x = {std::vector<long long>(13, 3)}, y = {std::vector<long long>(13, 1)};
  const auto plain = detail::run_forward(c, w, x, y), interp = detail::run_forward(pi, w, x, y);
  REQUIRE(interp.pos.cos.rows() == 13);
  for (int t = 0; t <= 3; ++t) {  // scaled position 4t is unscaled position t (factor 4: exact in binary)
    INFO("t = ", t);
    CHECK(interp.pos.cos.row(4 * t) == plain.pos.cos.row(t));
    CHECK(interp.pos.sin.row(4 * t) == plain.pos.sin.row(t));
  }
  CHECK(interp.pos.cos.row(1) != plain.pos.cos.row(1));
  // in the model: with one repeated token, q at scaled position 4t against k at 0 scores as unscaled t against 0
  const detail::LayerCache<double>&A = plain.seq[0].layer[0], &B = interp.seq[0].layer[0];
  for (int t = 1; t <= 3; ++t)
    CHECK(B.q.row(4 * t).dot(B.k.row(0)) == doctest::Approx(A.q.row(t).dot(A.k.row(0))).epsilon(1e-12));
  // the KV-cache decode reads the same config: cached keys are the override's rotation, logits the full recompute's
  const auto kv = kv_cache_check(pi, w, {1, 4, 6, 0}, 6);
  REQUIRE(kv);
  CHECK(kv->worst_key_diff < 1e-12);
  CHECK(kv->worst_logit_diff < 1e-10);
}

TEST_CASE("rope override: YaRN's attention factor multiplies cos and sin, so every score by its square") {
  RopeScaling y;
  y.type = ScalingType::Yarn;
  y.factor = 4.0;
  y.original_max_position_embeddings = 6;
  const DecoderConfig c = rope_config(), yarn = scaled(c, y);
  CHECK(yarn.attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1.0));
  DecoderConfig plain_freq = yarn;
  plain_freq.attention_factor = 1.0;
  const auto w = random_weights<double>(c, 7);
  const auto a = detail::run_forward(plain_freq, w, kScalingTokens, kScalingTargets),
             b = detail::run_forward(yarn, w, kScalingTokens, kScalingTargets);
  const detail::LayerCache<double>&A = a.seq[0].layer[0], &B = b.seq[0].layer[0];
  const double f2 = yarn.attention_factor * yarn.attention_factor;
  for (int i = 0; i < 12; i += 3)
    for (int j = 0; j <= i; ++j)
      CHECK(B.q.row(i).dot(B.k.row(j)) == doctest::Approx(f2 * A.q.row(i).dot(A.k.row(j))).epsilon(1e-12));
  CHECK((B.p[0] - A.p[0]).cwiseAbs().maxCoeff() > 1e-6);  // sharper softmax
}

TEST_CASE("rope override: check_decoder_config refuses a wrong length, non-finite numbers, other methods") {
  DecoderConfig c = rope_config();
  c.inv_freq = {1, 0.1, 0.01};
  REQUIRE(check_decoder_config(c));
  CHECK(contains(check_decoder_config(c)->message, "\"inv_freq\" must have d_head/2 = 4 entries, got 3"));
  c.inv_freq = {1, 0.1, NAN, 0.001};
  REQUIRE(check_decoder_config(c));
  CHECK(contains(check_decoder_config(c)->message, "\"inv_freq\" must hold finite numbers"));
  c.inv_freq = {1, INFINITY, 0.01, 0.001};
  CHECK(check_decoder_config(c));
  c.inv_freq = {1, 0.1, 0.01, 0.001};
  CHECK(!check_decoder_config(c));
  c.attention_factor = NAN;
  REQUIRE(check_decoder_config(c));
  CHECK(contains(check_decoder_config(c)->message, "\"attention_factor\""));
  c.attention_factor = 0;
  CHECK(check_decoder_config(c));
  c.attention_factor = 1.2;
  CHECK(!check_decoder_config(c));
  c.position = PositionMethod::Alibi;
  REQUIRE(check_decoder_config(c));
  CHECK(contains(check_decoder_config(c)->message, "rope only"));
  const auto w = random_weights<double>(rope_config(), 1);
  DecoderConfig bad = rope_config();
  bad.inv_freq = {1};
  const auto out = decoder_forward(bad, w, kScalingTokens, kScalingTargets);
  REQUIRE(!out);
  CHECK(out.error().type == "BadRequest");
}

TEST_CASE("lab --rope-scaling: the frequencies of linear, dynamic and yarn") {
  LabOptions o;
  o.rope_scaling = ScalingType::Linear;
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  auto c = lab_scaled_config(o);
  REQUIRE(c);
  for (int i = 0; i < 4; ++i) CHECK(c->inv_freq[i] == theta[i] / 4);
  CHECK(c->attention_factor == 1.0);
  o.rope_scaling = ScalingType::Dynamic;  // dynamic NTK at the longest eval input (24) over the training input (6)
  c = lab_scaled_config(o);
  REQUIRE(c);
  const Eigen::VectorXd ntk = rope_inv_freq(8, 10000.0 * std::pow(4.0 * 24 / 6 - 3, 8.0 / 6));
  for (int i = 0; i < 4; ++i) CHECK(c->inv_freq[i] == doctest::Approx(ntk[i]).epsilon(1e-12));
  o.rope_scaling = ScalingType::Yarn;
  c = lab_scaled_config(o);
  REQUIRE(c);
  CHECK(c->attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1));
  CHECK(c->inv_freq[0] == theta[0]);  // the fastest pair kept, the rest interpolated (original length 6)
  for (int i = 1; i < 4; ++i) CHECK(c->inv_freq[i] == doctest::Approx(theta[i] / 4).epsilon(1e-12));
}

TEST_CASE("lab --rope-scaling linear: rope's final weights evaluated again at every length, deterministic") {
  LabOptions o;
  o.methods = {PositionMethod::Alibi, PositionMethod::Rope};
  o.steps = 60;
  o.train_len = 2;
  o.d_model = 16;
  o.heads = 2;
  o.layers = 1;
  o.d_ff = 32;
  o.batch = 8;
  o.warmup = 10;
  o.lr = 1e-2;
  o.eval_count = 20;
  o.seeds = 1;
  o.check_every = 0;
  const LabResult unscaled = run_lab(o);
  CHECK(!contains(lab_json(unscaled), "scaled"));
  CHECK(!contains(lab_json(unscaled), "rope_scaling"));
  o.rope_scaling = ScalingType::Linear;
  LabRun run(o);
  int steps = 0;
  while (!run.done()) {
    run.step();
    ++steps;
  }
  CHECK(steps == (60 + 8) + (60 + 16));  // alibi: steps + 8 lengths; rope: steps + 8 lengths twice
  const LabResult& r = run.result();
  REQUIRE(r.methods.size() == 2);
  CHECK(r.methods[0].accuracy_scaled.empty());
  const LabMethodResult& rope = r.methods[1];
  REQUIRE(rope.accuracy_scaled.size() == 8);
  REQUIRE(rope.token_accuracy_scaled.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    REQUIRE(rope.accuracy_scaled[i]);
    CHECK(*rope.accuracy_scaled[i] >= 0.0);
    CHECK(*rope.accuracy_scaled[i] <= 1.0);
    CHECK(*rope.token_accuracy_scaled[i] >= 0.0);
    CHECK(*rope.token_accuracy_scaled[i] <= 1.0);
  }
  CHECK(rope.accuracy == unscaled.methods[1].accuracy);      // the unscaled curve is the same run's
  CHECK(rope.token_accuracy_scaled != rope.token_accuracy);  // the scaled frequencies were used
  auto strip = [](std::string s) {                           // drop "seconds" and "tokens_per_s"
    const std::size_t from = s.find("\"seconds\""), to = s.find("\"methods\"");
    return s.erase(from, to - from);
  };
  const std::string doc = lab_json(r);
  CHECK(strip(doc) == strip(lab_json(run_lab(o))));
  CHECK(count_of(doc, "\"accuracy_scaled\": [") == 2);  // rope's mean and its one run's
  CHECK(count_of(doc, "\"token_accuracy_scaled\": [") == 2);
  CHECK(contains(doc, "\"rope_scaling\": \"linear\", \"rope_factor\": 4, \"rope_inv_freq_scaled\": [0.25, "));
}

TEST_CASE("lab --rope-scaling / --rope-factor: parsed, refused by name, written back") {
  const auto o = parse_lab_options({"--rope-scaling", "yarn", "--rope-factor=2.5"});
  REQUIRE(o);
  CHECK(o->rope_scaling == ScalingType::Yarn);
  CHECK(o->rope_factor == 2.5);
  CHECK(parse_lab_options({"--rope-scaling", "dynamic"})->rope_scaling == ScalingType::Dynamic);
  CHECK(parse_lab_options({"--rope-scaling", "linear"})->rope_scaling == ScalingType::Linear);
  CHECK(parse_lab_options({"--rope-scaling", "none"})->rope_scaling == ScalingType::None);
  CHECK(parse_lab_options({})->rope_scaling == ScalingType::None);
  CHECK(parse_lab_options({})->rope_factor == 4.0);
  CHECK(parse_lab_options({"--rope-factor", "64"}));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--rope-scaling", "llama3"}, "--rope-scaling"}, {{"--rope-scaling", "longrope"}, "--rope-scaling"},
      {{"--rope-scaling", "PI"}, "--rope-scaling"},     {{"--rope-scaling", "ntk-by-parts"}, "--rope-scaling"},
      {{"--rope-scaling", ""}, "--rope-scaling"},       {{"--rope-scaling"}, "--rope-scaling"},
      {{"--rope-factor", "1"}, "--rope-factor"},        {{"--rope-factor", "0.5"}, "--rope-factor"},
      {{"--rope-factor", "64.5"}, "--rope-factor"},     {{"--rope-factor", "nan"}, "--rope-factor"},
      {{"--rope-factor", "inf"}, "--rope-factor"},      {{"--rope-factor", "4x"}, "--rope-factor"},
      {{"--rope-factor", ""}, "--rope-factor"},
  };
  for (const auto& c : cases) {
    const auto r = parse_lab_options(c.first);
    INFO(c.first[0], " ", c.first.size() > 1 ? c.first[1] : "");
    REQUIRE(!r);
    CHECK(r.error().type == "BadRequest");
    CHECK(contains(r.error().message, c.second));
  }
  LabOptions d;
  const std::vector<std::string> flags = lab_option_flags(d);
  for (const std::string& f : flags) CHECK(f.rfind("--rope", 0) != 0);  // defaults: not written
  d.rope_scaling = ScalingType::Dynamic;
  d.rope_factor = 3.25;
  const auto back = parse_lab_options(lab_option_flags(d));
  REQUIRE(back);
  CHECK(back->rope_scaling == ScalingType::Dynamic);
  CHECK(back->rope_factor == 3.25);
  d.rope_scaling = ScalingType::None;  // a factor without scaling still reads back
  CHECK(parse_lab_options(lab_option_flags(d))->rope_factor == 3.25);
}

TEST_CASE("lab --rope-scaling: Hugging Face's rope_type names, the old pi and ntk still read") {
  for (ScalingType t : {ScalingType::None, ScalingType::Linear, ScalingType::Dynamic, ScalingType::Yarn}) {
    INFO(scaling_name(t));
    CHECK(std::string(lab_scaling_name(t)) == scaling_name(t));  // one vocabulary: the Extension panel's, the link's
    CHECK(parse_lab_scaling(scaling_name(t)) == t);
  }
  CHECK(std::string(lab_scaling_name(ScalingType::Linear)) == "linear");
  CHECK(std::string(lab_scaling_name(ScalingType::Dynamic)) == "dynamic");
  CHECK(!parse_lab_scaling("llama3"));  // types the lab does not offer
  CHECK(!parse_lab_scaling("longrope"));
  CHECK(!parse_lab_scaling("default"));
  // Old flags, links and scripts: pi and ntk read as linear and dynamic, and are written back under the new names.
  CHECK(parse_lab_scaling("pi") == ScalingType::Linear);
  CHECK(parse_lab_scaling("ntk") == ScalingType::Dynamic);
  const auto pi = parse_lab_options({"--rope-scaling", "pi", "--rope-factor", "2"});
  REQUIRE(pi);
  CHECK(pi->rope_scaling == ScalingType::Linear);
  const std::vector<std::string> flags = lab_option_flags(*pi);
  CHECK(std::vector<std::string>(flags.end() - 4, flags.end()) ==
        std::vector<std::string>{"--rope-scaling", "linear", "--rope-factor", "2"});
  const auto ntk = parse_lab_options({"--rope-scaling=ntk"});
  REQUIRE(ntk);
  CHECK(ntk->rope_scaling == ScalingType::Dynamic);
  CHECK(lab_scaled_config(*ntk)->inv_freq ==
        lab_scaled_config(*parse_lab_options({"--rope-scaling", "dynamic"}))->inv_freq);
  const auto bad = parse_lab_options({"--rope-scaling", "llama3"});
  REQUIRE(!bad);
  CHECK(contains(bad.error().message, "(none, linear, dynamic, yarn; pi and ntk"));
}
