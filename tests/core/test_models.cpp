// Real models: config.json -> RoPE parameters, presets == their published fixtures, validation, analyze numbers.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/base/json_value.hpp"
#include "core/models/hf_config.hpp"
#include "core/models/json_config.hpp"
#include "core/models/presets.hpp"
#include "core/rope/rope_analysis.hpp"

using namespace rv;

namespace {
std::string read_fixture(const std::string& name) {
  std::ifstream f(std::string(RV_FIXTURES_DIR) + "/configs/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Expected<ModelInfo> from_text(const std::string& text, std::optional<double> seq_len = std::nullopt) {
  auto c = parse_hf_config(text);
  if (!c) return c.error();
  return derive_model(*c, seq_len);
}

bool same(const ModelInfo& a, const ModelInfo& b) {
  if (a.rope.has_value() != b.rope.has_value() || a.absolute.has_value() != b.absolute.has_value()) return false;
  if (a.absolute)
    return a.absolute->max_position == b.absolute->max_position && a.absolute->d == b.absolute->d &&
           a.absolute->parameters == b.absolute->parameters;
  const RopeModel &x = *a.rope, &y = *b.rope;
  return x.head_dim == y.head_dim && x.rotary_dims == y.rotary_dims && x.base == y.base && x.pairing == y.pairing &&
         x.rope_type == y.rope_type && x.inv_freq == y.inv_freq && x.attention_factor == y.attention_factor &&
         x.max_position_embeddings == y.max_position_embeddings &&
         x.original_max_position_embeddings == y.original_max_position_embeddings;
}

std::string error_of(const std::string& text) {
  auto m = from_text(text);
  return m ? std::string("(no error)") : m.error().message;
}
}  // namespace

TEST_CASE("every preset row is config.json text that the shared reader parses; a bad row is an error, not a skip") {
  std::set<std::string> names;
  for (const Preset& p : presets()) {
    CAPTURE(p.name);
    CHECK(names.insert(p.name).second);            // unique
    auto direct = parse_hf_config(p.config_json);  // the reader of dropped files and CLI configs
    REQUIRE_MESSAGE(direct.ok(), (direct ? std::string() : direct.error().message));
    CHECK(direct->hidden_size.has_value());
    CHECK(direct->num_attention_heads.has_value());
    CHECK(direct->max_position_embeddings.has_value());
    CHECK(preset_config(p).ok());
    CHECK(preset_config(p)->pairing == p.pairing);
    CHECK((p.pairing.has_value() == (std::string(p.name) == "lesson")));
  }
  CHECK(names.size() == presets().size());
  const Preset broken{"broken", "a test row", "", R"({"model_type":"llama","hidden_size":64,)"};
  auto e = preset_config(broken);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().type == "BadRequest");
  CHECK(e.error().message.find("preset \"broken\"") != std::string::npos);
  const Preset wrong_type{"wrong", "a test row", "", R"({"hidden_size":"64"})"};
  REQUIRE_FALSE(preset_config(wrong_type).ok());
  CHECK(preset_config(wrong_type).error().message.find("hidden_size") != std::string::npos);
}

TEST_CASE("every preset with a fixture derives exactly what its fixture derives, at several seq_len") {
  int with_fixture = 0;
  for (const Preset& p : presets()) {
    CAPTURE(p.name);
    auto c = preset_config(p);
    REQUIRE_MESSAGE(c.ok(), (c ? std::string() : c.error().message));
    REQUIRE(derive_model(*c).ok());
    if (std::string(p.fixture).empty()) continue;
    ++with_fixture;
    const std::string text = read_fixture(p.fixture);
    REQUIRE_FALSE(text.empty());
    for (std::optional<double> seq : {std::optional<double>(), std::optional<double>(1000.0),
                                      std::optional<double>(5000.0), std::optional<double>(1e6)}) {
      auto a = preset_model(p.name, seq);
      auto b = from_text(text, seq);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CHECK(same(*a, *b));
    }
  }
  CHECK(with_fixture >= 23);
  CHECK(presets().size() >= 27);
  CHECK(find_preset("lesson") != nullptr);
  CHECK_FALSE(preset_model("llama-9").ok());
}

TEST_CASE("every preset derives its golden model in preset_models.jsonl (read with parse_json) bit for bit") {
  std::ifstream f(std::string(RV_FIXTURES_DIR) + "/preset_models.jsonl");
  const auto member = [](const JsonValue& v, const char* key) -> const JsonValue& {
    const JsonValue* m = v.find(key);
    REQUIRE_MESSAGE(m != nullptr, key);
    return *m;
  };
  const auto optional_integer = [](const JsonValue& v) {
    return v.kind == JsonValue::Kind::Null ? std::nullopt : std::optional<long long>(v.number);
  };
  int lines = 0;
  for (std::string line; std::getline(f, line); ++lines) {
    auto golden = parse_json(line);
    REQUIRE_MESSAGE(golden.ok(), (golden ? std::string() : golden.error().message));
    const JsonValue& request = member(*golden, "request");
    const JsonValue* seq_len = request.find("seq_len");
    const std::string name = member(request, "preset").string;
    CAPTURE(name);
    auto m = preset_model(name, seq_len ? std::optional<double>(seq_len->number) : std::nullopt);
    REQUIRE(m.ok());
    const JsonValue& rope = member(member(*golden, "response"), "rope");
    const JsonValue& absolute = member(member(*golden, "response"), "absolute");
    REQUIRE(m->rope.has_value() == (rope.kind == JsonValue::Kind::Object));
    REQUIRE(m->absolute.has_value() == (absolute.kind == JsonValue::Kind::Object));
    if (m->absolute) {
      CHECK(m->absolute->max_position == member(absolute, "max_position").number);
      CHECK(m->absolute->d == member(absolute, "d").number);
      CHECK(m->absolute->parameters == member(absolute, "parameters").number);
      continue;
    }
    const RopeModel& r = *m->rope;
    CHECK(r.head_dim == member(rope, "head_dim").number);
    CHECK(r.rotary_dims == member(rope, "rotary_dims").number);
    CHECK(r.base == member(rope, "base").number);
    CHECK((r.pairing == Pairing::Interleaved ? "interleaved" : "half_split") == member(rope, "pairing").string);
    CHECK(r.rope_type == member(rope, "rope_type").string);
    CHECK(r.attention_factor == member(rope, "attention_factor").number);
    CHECK(r.max_position_embeddings == optional_integer(member(rope, "max_position_embeddings")));
    CHECK(r.original_max_position_embeddings == optional_integer(member(rope, "original_max_position_embeddings")));
    const std::vector<JsonValue>& inv_freq = member(rope, "inv_freq").array;
    REQUIRE(static_cast<std::size_t>(r.inv_freq.size()) == inv_freq.size());
    for (std::size_t i = 0; i < inv_freq.size(); ++i)
      CHECK(r.inv_freq[static_cast<Eigen::Index>(i)] == inv_freq[i].number);
  }
  CHECK(lines == 32);
}

TEST_CASE("llama-3.1-8b: the contract's example") {
  auto m = preset_model("llama-3.1-8b");
  REQUIRE(m.ok());
  REQUIRE(m->rope);
  CHECK_FALSE(m->absolute);
  CHECK(m->rope->head_dim == 128);
  CHECK(m->rope->rotary_dims == 128);
  CHECK(m->rope->base == 500000.0);
  CHECK(m->rope->pairing == Pairing::HalfSplit);
  CHECK(m->rope->rope_type == "llama3");
  CHECK(m->rope->inv_freq.size() == 64);
  CHECK(m->rope->inv_freq[0] == 1.0);  // high frequency: kept
  CHECK(m->rope->inv_freq[63] == doctest::Approx(std::pow(500000.0, -126.0 / 128) / 8).epsilon(1e-14));  // /factor
  CHECK(m->rope->attention_factor == 1.0);
  CHECK(m->rope->max_position_embeddings == 131072);
  CHECK(m->rope->original_max_position_embeddings == 8192);
}

TEST_CASE("learned tables, partial rotary, legacy names, pairing") {
  auto g = preset_model("gpt2");
  REQUIRE(g.ok());
  CHECK_FALSE(g->rope);
  CHECK(g->absolute->max_position == 1024);
  CHECK(g->absolute->d == 768);
  CHECK(g->absolute->parameters == 786432);
  auto bert = preset_model("bert-base");
  CHECK(bert->absolute->parameters == 512 * 768);
  auto absolute = from_text(R"({"model_type":"llama","position_embedding_type":"absolute","hidden_size":64,
                                "max_position_embeddings":16})");
  CHECK(absolute->absolute->parameters == 1024);
  auto distil = from_text(R"({"model_type":"distilbert","dim":768,"n_heads":12,"max_position_embeddings":512})");
  CHECK(distil->absolute->parameters == 512 * 768);

  auto j = preset_model("gpt-j-6b");  // n_embd 4096, n_head 16, rotary_dim 64
  CHECK(j->rope->head_dim == 256);
  CHECK(j->rope->rotary_dims == 64);
  CHECK(j->rope->pairing == Pairing::Interleaved);
  CHECK(j->rope->max_position_embeddings == 2048);
  CHECK(preset_model("phi-2")->rope->rotary_dims == 32);            // int(80 * 0.4)
  CHECK(preset_model("stablelm-2-1.6b")->rope->rotary_dims == 16);  // int(64 * 0.25)
  CHECK(preset_model("pythia-160m")->rope->rotary_dims == 16);      // rotary_pct 0.25
  CHECK(preset_model("gpt-neox")->rope->base == 10000.0);           // rotary_emb_base
  auto ds = preset_model("deepseek-v2-lite");
  CHECK(ds->rope->rotary_dims == 64);  // qk_rope_head_dim
  CHECK(ds->rope->pairing == Pairing::Interleaved);
  CHECK(ds->rope->rope_type == "yarn");
  CHECK(ds->rope->attention_factor == 1.0);                  // mscale == mscale_all_dim
  CHECK(preset_model("gemma-2-9b")->rope->head_dim == 256);  // head_dim given, not 3584/16
  CHECK(preset_model("lesson")->rope->pairing == Pairing::Interleaved);
  CHECK(preset_model("lesson")->rope->inv_freq.size() == 4);
  CHECK(preset_model("llama-2-7b")->rope->base == 10000.0);  // no rope_theta: 10000

  auto mm = from_text(R"({"model_type":"llava","text_config":{"model_type":"mistral","hidden_size":5120,
                          "num_attention_heads":32,"head_dim":128,"rope_theta":1000000000.0,
                          "max_position_embeddings":131072}})");
  REQUIRE(mm.ok());
  CHECK(mm->rope->head_dim == 128);
  CHECK(mm->rope->base == 1e9);
  auto mm_bad = from_text(R"({"text_config":{"hidden_size":"x"}})");
  REQUIRE_FALSE(mm_bad.ok());
  CHECK(mm_bad.error().message.find("text_config.hidden_size") != std::string::npos);
  CHECK(from_text(R"({"hidden_size":64,"num_attention_heads":4,"rope_scaling":{"type":"mrope"}})")->rope->rope_type ==
        "default");
}

TEST_CASE("dynamic and longrope follow seq_len") {
  auto d0 = preset_model("internlm2.5-7b");
  auto d1 = preset_model("internlm2.5-7b", 32768.0);  // == max_position_embeddings: unchanged
  auto d2 = preset_model("internlm2.5-7b", 65536.0);
  CHECK(d0->rope->inv_freq == d1->rope->inv_freq);
  const double r = 128;
  const double base2 = 1e6 * std::pow(2.0 * 65536 / 32768 - 1.0, r / (r - 2));
  CHECK(d2->rope->inv_freq[1] == doctest::Approx(std::pow(base2, -2.0 / 128)).epsilon(1e-14));

  auto s = preset_model("phi-3.5-mini", 4096.0);  // == original: short factors
  auto l = preset_model("phi-3.5-mini", 4097.0);
  CHECK(s->rope->rope_type == "longrope");
  CHECK(s->rope->inv_freq[1] == doctest::Approx(1.0 / (1.0199999809265137 * std::pow(10000.0, 2.0 / 96))));
  CHECK(l->rope->inv_freq[1] == doctest::Approx(1.0 / (1.1100000143051147 * std::pow(10000.0, 2.0 / 96))));
  CHECK(s->rope->attention_factor == doctest::Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))));
  CHECK(s->rope->original_max_position_embeddings == 4096);
}

TEST_CASE("bad configs: BadRequest naming the field") {
  const char* L = R"("model_type":"llama","hidden_size":64,"num_attention_heads":4,"max_position_embeddings":128)";
  const auto cfg = [&](const std::string& extra) { return "{" + std::string(L) + extra + "}"; };
  const std::pair<std::string, std::string> cases[] = {
      {"{}", "hidden_size"},
      {R"({"hidden_size":64})", "num_attention_heads"},
      {R"({"hidden_size":65,"num_attention_heads":4})", "num_attention_heads"},
      {cfg(R"(,"head_dim":0)"), "head_dim"},
      {cfg(R"(,"head_dim":100000)"), "head_dim"},
      {cfg(R"(,"head_dim":7)"), "head_dim"},
      {cfg(R"(,"hidden_size":"64")"), "hidden_size"},
      {cfg(R"(,"rotary_dim":7)"), "rotary_dim"},
      {cfg(R"(,"partial_rotary_factor":1.5)"), "partial_rotary_factor"},
      {cfg(R"(,"partial_rotary_factor":0.01)"), "partial_rotary_factor"},
      {cfg(R"(,"rope_theta":-1)"), "rope_theta"},
      {cfg(R"(,"rope_theta":0)"), "rope_theta"},
      {cfg(R"(,"rope_theta":NaN)"), "rope_theta"},
      {cfg(R"(,"rope_theta":"big")"), "rope_theta"},
      {cfg(R"(,"rope_scaling":"yarn")"), "rope_scaling"},
      {cfg(R"(,"rope_scaling":{"rope_type":"magic","factor":2})"), "rope_scaling.rope_type"},
      {cfg(R"(,"rope_scaling":{"type":"ntk","factor":2})"), "rope_scaling.type"},
      {cfg(R"(,"rope_scaling":{"rope_type":"linear"})"), "rope_scaling.factor"},
      {cfg(R"(,"rope_scaling":{"rope_type":"linear","factor":0})"), "rope_scaling.factor"},
      {cfg(R"(,"rope_scaling":{"rope_type":"yarn","factor":-4})"), "rope_scaling.factor"},
      {cfg(R"(,"rope_scaling":{"rope_type":"llama3","factor":8})"), "original_max_position_embeddings"},
      {cfg(R"(,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1],"long_factor":[1,1,1,1,1,1,1,1]})"),
       "short_factor"},
      {cfg(R"(,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1,1,1,1,1,1,1],)"
           R"("long_factor":[1,1,1,1,1,1,1,0]})"),
       "long_factor"},
      {cfg(R"(,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1,1,1,1,1,1,1]})"), "long_factor"},
      {cfg(R"(,"max_position_embeddings":-5)"), "max_position_embeddings"},
      {R"({"model_type":"gpt2","n_embd":768})", "max_position_embeddings"},
      {R"({"model_type":"gpt2","n_positions":1024})", "hidden_size"},
      {cfg(R"(,"model_type":7)"), "model_type"},
      {"[1,2]", "config"},
  };
  for (const auto& bad : cases) {  // (a structured binding cannot be captured by CAPTURE's lambda in clang)
    CAPTURE(bad.first);
    const std::string msg = error_of(bad.first);
    CHECK(msg.find(bad.second) != std::string::npos);
  }
}

TEST_CASE("the config reader's messages name the field and say what it got") {
  const auto config_error = [](const std::string& fields) {
    auto c = parse_hf_config("{" + fields + "}");
    return c ? std::string("(no error)") : c.error().message;
  };
  CHECK(config_error(R"("hidden_size":"4096")") == "hidden_size must be a number, got a string");
  CHECK(config_error(R"("hidden_size":4096.5)") == "hidden_size must be an integer, got 4096.5");
  CHECK(config_error(R"("n_embd":[1])") == "n_embd must be a number, got an array");
  CHECK(config_error(R"("hidden_size":9223372036854775808)") == "hidden_size is too large");
  CHECK(parse_hf_config(R"({"hidden_size":9007199254740993})")->hidden_size == 9007199254740993LL);  // exact
  CHECK(config_error(R"("hidden_size":1e20)") == "hidden_size is too large, got 1e+20");
  CHECK(config_error(R"("rope_theta":NaN)") == "rope_theta must be a finite number, got NaN");
  CHECK(config_error(R"("rope_theta":"NaN")") == "rope_theta must be a finite number, got NaN");
  CHECK(config_error(R"("rope_theta":-Infinity)") == "rope_theta must be a finite number, got -Infinity");
  CHECK(config_error(R"("rope_theta":"Infinity")") == "rope_theta must be a finite number, got Infinity");
  CHECK(config_error(R"("rope_theta":1e400)").find("malformed JSON at line 1, column 15") == 0);
  CHECK(config_error(R"("model_type":true)") == "model_type must be a string, got a boolean");
  CHECK(config_error(R"("rope_scaling":[])") == "rope_scaling must be an object or null, got an array");
  CHECK(config_error(R"("rope_scaling":{"truncate":1})") ==
        "rope_scaling.truncate must be true or false, got a number");
  CHECK(config_error(R"("rope_scaling":{"short_factor":{}})") ==
        "rope_scaling.short_factor must be an array of numbers, got an object");
  CHECK(config_error(R"("rope_scaling":{"long_factor":[1,NaN]})") ==
        "rope_scaling.long_factor must contain only finite numbers");
  CHECK(config_error(R"("rope_scaling":{"long_factor":[1,"2"]})") ==
        "rope_scaling.long_factor must contain only numbers, got a string");
  std::string many = "0";
  for (int i = 0; i < 65536; ++i) many += ",1";
  CHECK(config_error(R"("rope_scaling":{"short_factor":[)" + many + "]}") ==
        "rope_scaling.short_factor has 65537 entries, more than the limit 65536");
  CHECK(config_error(R"("text_config":{"head_dim":1.5})") == "text_config.head_dim must be an integer, got 1.5");
  CHECK(parse_hf_config("null").error().message == "config must be a JSON object, got null");
  CHECK(parse_hf_config("[]").error().message == "config must be a JSON object, got an array");

  // the last of duplicate keys counts, null is absent, legacy spellings come after the current ones
  auto c = parse_hf_config(R"({"hidden_size":"x","hidden_size":64,"n_embd":32,"head_dim":null,"rope_theta":5})");
  REQUIRE(c.ok());
  CHECK(c->hidden_size == 64);
  CHECK_FALSE(c->head_dim);
  CHECK(c->rope_theta == 5.0);
  CHECK(parse_hf_config(R"({"hidden_size":4096.0})")->hidden_size == 4096);
  // a top-level key that is present, even as null, keeps the reader out of text_config
  CHECK_FALSE(parse_hf_config(R"({"hidden_size":null,"text_config":{"hidden_size":64}})")->hidden_size);
  CHECK(parse_hf_config(R"({"text_config":{"hidden_size":64}})")->hidden_size == 64);
}

TEST_CASE("analyze: critical dimension and first negative cosine sum") {
  CHECK(rope_critical_dim(128, 10000.0, 4096) == 92);
  CHECK(rope_critical_dim(128, 10000.0, 1.0) == 0);      // clamped below
  CHECK(rope_critical_dim(128, 10000.0, 1e300) == 128);  // clamped above
  CHECK(rope_first_negative_m(128, 10000.0, 10000000) == std::optional<long long>(1707));
  CHECK(rope_first_negative_m(128, 10000.0, 1706) == std::nullopt);
  CHECK(rope_first_negative_m(2, 10000.0, 10) == std::optional<long long>(2));  // cos(2) < 0
  // brute force for the lesson's toy
  long long brute = 0;
  for (long long m = 1; m < 100000 && !brute; ++m) {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += std::cos(m * std::pow(10000.0, -2.0 * i / 8));
    if (s < 0) brute = m;
  }
  CHECK(rope_first_negative_m(8, 10000.0, 100000) == std::optional<long long>(brute));
}

TEST_CASE("MLA: DeepSeek's qk_rope_head_dim may exceed hidden_size / heads (V3: 64 rotary dims, 7168 / 128 = 56)") {
  // Found by fuzz_config: the rope part of an MLA head is a width of its own, not a part of hidden / heads.
  const auto m =
      from_text(R"({"model_type":"deepseek_v3","hidden_size":7168,"num_attention_heads":128,"qk_rope_head_dim":64,)"
                R"("qk_nope_head_dim":128,"max_position_embeddings":163840,"rope_theta":10000})");
  REQUIRE(m.ok());
  REQUIRE(m.value().rope.has_value());
  CHECK(m.value().rope->head_dim == 56);
  CHECK(m.value().rope->rotary_dims == 64);
  CHECK(m.value().rope->inv_freq.size() == 32);
  CHECK(m.value().rope->pairing == Pairing::Interleaved);
}

TEST_CASE("a subnormal rope_scaling.factor is refused by name, not turned into infinite frequencies") {
  // Found by fuzz_config: llama3 divides the slow pairs' theta by factor; 8.01e-320 overflows to inf.
  const auto m =
      from_text(R"({"model_type":"llama","hidden_size":2048,"num_attention_heads":32,"rope_theta":500000.0,)"
                R"("max_position_embeddings":131072,"rope_scaling":{"rope_type":"llama3","factor":8.01e-320,)"
                R"("low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192}})");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().type == "BadRequest");
  CHECK(m.error().message.find("rope_scaling.factor") != std::string::npos);
}
