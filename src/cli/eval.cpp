// The eval protocol's ops: inv_freq (+scaling), rotate, score, lookup, sinusoidal, decay_bound, model, analyze, ...
// (decoder_grad lives in eval_decoder.cpp)
#include "cli/eval.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/types.h>

#include "cli/eval_decoder.hpp"
#include "cli/eval_forward.hpp"
#include "cli/eval_passkey.hpp"
#include "cli/eval_tokenize.hpp"
#include "cli/eval_weights.hpp"
#include "cli/json_text.hpp"
#include "core/base/format.hpp"
#include "core/encodings/learned.hpp"
#include "core/encodings/sinusoidal.hpp"
#include "core/lesson/shape_trace.hpp"
#include "core/models/hf_config.hpp"
#include "core/models/json_config.hpp"
#include "core/models/presets.hpp"
#include "core/rope/precision.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_analysis.hpp"
#include "core/rope/rope_tensor.hpp"
#include "core/rope/scaling.hpp"

namespace rv::cli {
namespace {

// Guards against requests that would exhaust memory or time.
constexpr std::size_t kMaxList = 1000000;   // positions, distances, offsets per request
constexpr long long kMaxTable = 100000000;  // max_position * d
constexpr long long kMaxOutput = 10000000;  // numbers in one response
constexpr long long kMaxWork = 200000000;   // sin/cos evaluations in one request

using Result = std::optional<Error>;  // the document is written into the op's JsonWriter

void vec_json(JsonWriter& w, const Eigen::VectorXd& v) {
  w.values(v.data(), int(v.size()));
}

// d_head, base and pairing, shared by the RoPE ops; returns theta on success.
struct RopeArgs {
  int d_head = 0;
  double base = 0;
  Pairing pairing = Pairing::Interleaved;
};
std::optional<RopeArgs> rope_args(FieldReader& r) {
  RopeArgs a;
  const long long d = r.integer("d_head");
  a.base = r.number("base", 10000.0);
  const std::string p = r.string("pairing", std::string("interleaved"));
  if (r.error) return std::nullopt;
  if (d > 65536 || d < -65536) {
    r.fail("d_head must be at most 65536, got " + std::to_string(d));
    return std::nullopt;
  }
  a.d_head = static_cast<int>(d);
  if (auto err = check_rope_dims(a.d_head, a.base)) {
    r.error = *err;
    return std::nullopt;
  }
  auto parsed = parse_pairing(p);
  if (!parsed) {
    r.fail("pairing must be \"interleaved\" or \"half_split\", got \"" + p + "\"");
    return std::nullopt;
  }
  a.pairing = *parsed;
  return a;
}

double non_negative(FieldReader& r, const char* key, std::optional<double> fallback = std::nullopt) {
  const double x = r.number(key, fallback);
  if (!r.error && x < 0) r.fail(std::string("\"") + key + "\" is a position and must be >= 0, got " + format_number(x));
  return x;
}

std::optional<RopeScaling> scaling_args(FieldReader& outer, const JsonValue& obj) {
  FieldReader r(obj, "scaling.");
  RopeScaling s;
  const std::string type = r.has("type") ? r.string("type") : r.string("rope_type");
  if (r.error) {
    outer.error = r.error;
    return std::nullopt;
  }
  auto t = parse_scaling(type);
  if (!t) {
    outer.fail("scaling.type must be one of \"linear\", \"dynamic\", \"yarn\", \"llama3\", \"longrope\", got \"" +
               type + "\"");
    return std::nullopt;
  }
  s.type = *t;
  const bool llama3 = s.type == ScalingType::Llama3;
  std::optional<double> default_factor;  // required, except Llama 3.1's published 8 and "none"
  if (llama3) default_factor = 8.0;
  if (s.type == ScalingType::None || s.type == ScalingType::Longrope) default_factor = 1.0;
  s.factor = r.number("factor", default_factor);
  s.original_max_position_embeddings = r.number("original_max_position_embeddings", llama3 ? 8192.0 : 0.0);
  s.beta_fast = r.number("beta_fast", 32.0);
  s.beta_slow = r.number("beta_slow", 1.0);
  s.low_freq_factor = r.number("low_freq_factor", 1.0);
  s.high_freq_factor = r.number("high_freq_factor", 4.0);
  s.attention_factor = r.optional_number("attention_factor");
  s.mscale = r.optional_number("mscale");
  s.mscale_all_dim = r.optional_number("mscale_all_dim");
  s.truncate = r.boolean("truncate", true);
  if (s.type == ScalingType::Longrope) {
    s.short_factor = r.numbers("short_factor", std::nullopt, 65536);
    s.long_factor = r.numbers("long_factor", std::nullopt, 65536);
  }
  // dynamic/yarn lengths: inside "scaling" (preferred) or at the top level of the request
  s.seq_len = r.has("seq_len") ? r.number("seq_len") : outer.number("seq_len", 0.0);
  s.max_position_embeddings = r.has("max_position_embeddings") ? r.number("max_position_embeddings")
                                                               : outer.number("max_position_embeddings", 0.0);
  if (r.error) {
    outer.error = r.error;
    return std::nullopt;
  }
  if (outer.error) return std::nullopt;
  if (s.original_max_position_embeddings < 0 || s.max_position_embeddings < 0 || s.seq_len < 0) {
    outer.fail("scaling lengths (seq_len, max_position_embeddings, original_max_position_embeddings) must be >= 0");
    return std::nullopt;
  }
  return s;
}

Result op_inv_freq(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  const JsonValue* sc = r.object("scaling");
  if (r.error) return *r.error;
  if (!sc) {
    vec_json(w.begin_object().key("inv_freq"), rope_inv_freq(a->d_head, a->base));
    w.end_object();
    return std::nullopt;
  }
  auto s = scaling_args(r, *sc);
  if (!s) return *r.error;
  auto f = rope_scaled_inv_freq(a->d_head, a->base, *s);
  if (!f) return f.error();
  vec_json(w.begin_object().key("inv_freq"), f->inv_freq);
  w.field("attention_factor", f->attention_factor).end_object();
  return std::nullopt;
}

Result op_rotate(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  if (r.error) return *r.error;
  const double pos = non_negative(r, "position");
  const std::vector<double> x = r.numbers("x", static_cast<std::size_t>(a->d_head), 65536);
  if (r.error) return *r.error;
  const std::string dtype = r.string("dtype", std::string("float64"));
  if (r.error) return *r.error;
  if (dtype != "float64" && dtype != "float32") return bad_request("dtype must be \"float64\" or \"float32\"");
  const Eigen::VectorXd theta = rope_inv_freq(a->d_head, a->base);
  Eigen::VectorXd rotated;
  if (dtype == "float32") {  // the fast path: x in float32, double-accurate table, float32 rotation
    std::vector<float> xf(x.begin(), x.end());
    apply_rope_f32(xf.data(), 1, 1, 1, a->d_head, rope_table_f32(std::vector<double>{pos}, theta), a->pairing);
    rotated = Eigen::Map<const Eigen::VectorXf>(xf.data(), a->d_head).cast<double>();
  } else {
    rotated = apply_rope(Eigen::Map<const Eigen::VectorXd>(x.data(), a->d_head), pos, theta, a->pairing);
  }
  vec_json(w.begin_object().key("x_rot"), rotated);
  vec_json(w.key("angle"), rope_angles(pos, theta));
  w.end_object();
  return std::nullopt;
}

Result op_score(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  if (r.error) return *r.error;
  const double m = non_negative(r, "m"), n = non_negative(r, "n");
  const std::vector<double> q = r.numbers("q", static_cast<std::size_t>(a->d_head), 65536);
  const std::vector<double> k = r.numbers("k", static_cast<std::size_t>(a->d_head), 65536);
  if (r.error) return *r.error;
  const Eigen::VectorXd theta = rope_inv_freq(a->d_head, a->base);
  const Eigen::VectorXd qv = Eigen::Map<const Eigen::VectorXd>(q.data(), a->d_head);
  const Eigen::VectorXd kv = Eigen::Map<const Eigen::VectorXd>(k.data(), a->d_head);
  w.begin_object().field("score", rope_score(qv, kv, m, n, theta, a->pairing)).end_object();
  return std::nullopt;
}

Result op_score_curve(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  if (r.error) return *r.error;
  const double anchor = non_negative(r, "anchor", 0.0);
  const long long lo = r.integer("offset_lo"), hi = r.integer("offset_hi");
  const std::vector<double> q = r.numbers("q", static_cast<std::size_t>(a->d_head), 65536);
  const std::vector<double> k = r.numbers("k", static_cast<std::size_t>(a->d_head), 65536);
  if (r.error) return *r.error;
  if (hi < lo || hi - lo >= static_cast<long long>(kMaxList))
    return bad_request("need offset_lo <= offset_hi and at most 1000000 offsets");
  if (anchor + static_cast<double>(lo) < 0) return bad_request("anchor + offset_lo is a position and must be >= 0");
  std::vector<double> out;
  rope_score_curve(Eigen::Map<const Eigen::VectorXd>(q.data(), a->d_head),
                   Eigen::Map<const Eigen::VectorXd>(k.data(), a->d_head), rope_inv_freq(a->d_head, a->base),
                   a->pairing, anchor, lo, hi, out);
  w.begin_object().key("scores").list(out).end_object();
  return std::nullopt;
}

Result op_lookup(FieldReader& r, JsonWriter& w) {
  const long long max_position = r.integer("max_position"), d = r.integer("d");
  if (r.error) return *r.error;
  if (max_position < 1 || d < 1) return bad_request("max_position and d must be >= 1");
  if (d > 65536 || max_position > kMaxTable || max_position * d > kMaxTable)
    return bad_request("table too large: max_position * d must be at most 100000000");
  LearnedTable table;
  if (r.has("table")) {
    const std::vector<double> t =
        r.numbers("table", static_cast<std::size_t>(max_position * d), static_cast<std::size_t>(kMaxTable));
    if (r.error) return *r.error;
    table.P = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data(),
                                                                                                       max_position, d);
  } else {
    const long long seed = r.integer("seed", 0);
    if (r.error) return *r.error;
    table = learned_table(static_cast<int>(max_position), static_cast<int>(d), static_cast<std::uint64_t>(seed));
  }
  const std::vector<long long> positions = r.integers("positions", kMaxList);
  if (r.error) return *r.error;
  if (static_cast<long long>(positions.size()) * d > kMaxOutput) return bad_request("too many rows requested");
  auto rows = learned_lookup_rows(table, positions);
  if (!rows) return rows.error();
  w.begin_object().key("rows").begin_array();
  for (Eigen::Index i = 0; i < rows->rows(); ++i) vec_json(w, rows->row(i).transpose());
  w.end_array().end_object();
  return std::nullopt;
}

Result op_sinusoidal(FieldReader& r, JsonWriter& w) {
  const long long d = r.integer("d");
  const double base = r.number("base", 10000.0);
  const std::vector<double> positions = r.numbers("positions", std::nullopt, kMaxList);
  if (r.error) return *r.error;
  if (d < 2 || d % 2 != 0 || d > 65536)
    return bad_request("d must be a positive even integer <= 65536, got " + std::to_string(d));
  if (!(base > 1.0)) return bad_request("base must be a finite number greater than 1");
  for (double p : positions)
    if (p < 0) return bad_request("positions must be >= 0, got " + format_number(p));
  if (static_cast<long long>(positions.size()) * d > kMaxOutput)
    return bad_request("positions * d must be at most 10000000");
  const Eigen::MatrixXd pe = sinusoidal(static_cast<int>(d), positions, base);
  std::vector<double> flat;
  flat.reserve(static_cast<std::size_t>(pe.size()));
  for (Eigen::Index i = 0; i < pe.rows(); ++i)
    for (Eigen::Index j = 0; j < pe.cols(); ++j) flat.push_back(pe(i, j));  // row-major
  w.begin_object().key("pe").list(flat).end_object();
  return std::nullopt;
}

Result op_decay_bound(FieldReader& r, JsonWriter& w) {
  const long long d = r.integer("d");
  const double base = r.number("base", 10000.0);
  const std::vector<double> distances = r.numbers("distances", std::nullopt, kMaxList);
  if (r.error) return *r.error;
  if (d > 65536 || d < -65536) return bad_request("d must be at most 65536, got " + std::to_string(d));
  if (auto err = check_rope_dims(static_cast<int>(d), base)) return *err;
  if (static_cast<long long>(distances.size()) * (d / 2) > kMaxWork)
    return bad_request("distances * d/2 must be at most 200000000");
  w.begin_object().key("bound").list(rope_decay_bound(static_cast<int>(d), base, distances)).end_object();
  return std::nullopt;
}

Result op_precision(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  if (r.error) return *r.error;
  const double pos = non_negative(r, "position");
  const std::string f = r.string("format", std::string("float32")), rec = r.string("recipe", std::string("ours"));
  if (r.error) return *r.error;
  auto fmt = parse_float_format(f);
  if (!fmt) return bad_request("format must be float64, float32, float16 or bfloat16");
  if (rec != "ours" && rec != "naive") return bad_request("recipe must be \"ours\" or \"naive\"");
  const PrecisionReport rep =
      rope_precision(a->d_head, a->base, pos, *fmt, rec == "naive" ? AngleRecipe::Naive : AngleRecipe::Ours);
  std::vector<double> ae, re;
  for (const PairPrecision& p : rep.pairs) {
    ae.push_back(p.angle_err);
    re.push_back(p.rotation_err);
  }
  w.begin_object().key("angle_err").list(ae).key("rotation_err").list(re);
  w.field("max_angle_err", rep.max_angle_err)
      .field("max_rotation_err", rep.max_rotation_err)
      .field("position_in_format", rep.position_in_format)
      .end_object();
  return std::nullopt;
}

Result op_shape_trace(FieldReader& r, JsonWriter& w) {
  Dims k;
  const long long v[6] = {r.integer("B", 2),      r.integer("T", 5),   r.integer("h", 4),
                          r.integer("d_head", 8), r.integer("V", 100), r.integer("max_position", 10)};
  if (r.error) return *r.error;
  for (long long x : v)
    if (x < 1 || x > 1000000000) return bad_request("B, T, h, d_head, V, max_position must be in [1, 1e9]");
  k.B = static_cast<int>(v[0]);
  k.T = static_cast<int>(v[1]);
  k.h = static_cast<int>(v[2]);
  k.d_head = static_cast<int>(v[3]);
  k.V = static_cast<int>(v[4]);
  k.max_position = static_cast<int>(v[5]);
  if (k.d_head % 2 != 0) return bad_request("d_head must be even");
  if (v[2] * v[3] > 1000000000) return bad_request("h * d_head must be at most 1e9");
  w.begin_object().key("steps").begin_array();
  for (const ShapeStep& s : shape_trace(k))
    w.begin_object().field("name", s.name).key("shape").list(s.shape).field("note", s.note).end_object();
  const ParamCounts pc = param_counts(k);
  w.end_array().key("params").begin_object();
  w.field("token_embedding", pc.token_embedding).field("learned_position", pc.learned_position);
  w.field("rope", pc.rope).end_object().end_object();
  return std::nullopt;
}

void rope_model_json(JsonWriter& w, const RopeModel& m) {
  const auto opt = [&w](const char* key, const std::optional<long long>& v) {
    w.key(key);
    if (v)
      w.value(*v);
    else
      w.null();
  };
  w.begin_object().field("head_dim", m.head_dim).field("rotary_dims", m.rotary_dims).field("base", m.base);
  w.field("pairing", pairing_name(m.pairing)).field("rope_type", m.rope_type);
  vec_json(w.key("inv_freq"), m.inv_freq);
  w.field("attention_factor", m.attention_factor);
  opt("max_position_embeddings", m.max_position_embeddings);
  opt("original_max_position_embeddings", m.original_max_position_embeddings);
  w.end_object();
}

// {"config": {...config.json...}} or {"preset": "llama-3.1-8b"}, optional "seq_len" (dynamic, longrope).
Result op_model(FieldReader& r, JsonWriter& w) {
  const JsonValue* cfg = r.object("config");
  const bool has_preset = r.has("preset");
  const std::string preset = has_preset ? r.string("preset") : std::string();
  const std::optional<double> seq_len = r.optional_number("seq_len");
  if (r.error) return *r.error;
  if (cfg && has_preset) return bad_request("give either \"config\" or \"preset\", not both");
  if (!cfg && !has_preset)
    return bad_request("missing required field \"config\" (a Hugging Face config.json object) or \"preset\"");
  if (seq_len && *seq_len < 0) return bad_request("\"seq_len\" must be >= 0, got " + format_number(*seq_len));
  Expected<ModelInfo> info = bad_request("");
  if (cfg) {
    auto c = hf_config_from_json(*cfg);  // core's config.json reader, the one the presets go through
    if (!c) return bad_request("config: " + c.error().message);
    info = derive_model(*c, seq_len);
    if (!info) return bad_request("config: " + info.error().message);
  } else {
    info = preset_model(preset, seq_len);
    if (!info) return info.error();
  }
  w.begin_object().key("rope");
  if (info->rope)
    rope_model_json(w, *info->rope);
  else
    w.null();
  if (info->rope_local) rope_model_json(w.key("rope_local"), *info->rope_local);  // Gemma 3's sliding-attention layers
  w.key("absolute");
  if (info->absolute)
    w.begin_object()
        .field("max_position", info->absolute->max_position)
        .field("d", info->absolute->d)
        .field("parameters", info->absolute->parameters)
        .end_object();
  else
    w.null();
  w.end_object();
  return std::nullopt;
}

// {"d_head":128,"base":10000.0,"context":4096,"limit":10000000} -> critical_dim, first_negative_m.
Result op_analyze(FieldReader& r, JsonWriter& w) {
  auto a = rope_args(r);
  if (r.error) return *r.error;
  const std::optional<double> context = r.optional_number("context");
  const long long limit = r.integer("limit", 10000000);
  if (r.error) return *r.error;
  if (context && !(*context > 0)) return bad_request("\"context\" must be > 0, got " + format_number(*context));
  if (limit < 1) return bad_request("\"limit\" must be >= 1, got " + std::to_string(limit));
  if (static_cast<double>(limit) * (a->d_head / 2) > kMaxAnalyzeWork)
    return bad_request("\"limit\" * d_head/2 must be at most 2.6e9 (the search's cost), got " +
                       format_number(static_cast<double>(limit) * (a->d_head / 2)));
  const auto m = rope_first_negative_m(a->d_head, a->base, limit);
  w.begin_object().key("critical_dim");
  if (context)
    w.value(rope_critical_dim(a->d_head, a->base, *context));
  else
    w.null();
  w.key("first_negative_m");
  if (m)
    w.value(*m);
  else
    w.null();
  w.field("d_head", a->d_head).field("base", a->base).field("context", context).field("limit", limit).end_object();
  return std::nullopt;
}

// The protocol's ops: dispatch serves a request by this table, and --help lists it (docs/cli.md has each in full).
struct EvalOp {
  const char* name;
  const char* summary;  // one line
  const char* example;  // one request
  Result (*run)(FieldReader&, JsonWriter&);
};
const EvalOp kOps[] = {
    {"inv_freq", "theta_i = base^(-2i/d_head), optionally under a rope_scaling (linear, dynamic, yarn, llama3)",
     R"({"op":"inv_freq","d_head":8,"base":10000.0})", op_inv_freq},
    {"rotate", "x rotated pair-wise by position * theta_i; \"dtype\":\"float32\" runs the float32 fast path",
     R"({"op":"rotate","d_head":4,"base":10000.0,"position":100,"x":[1,0,1,0],"pairing":"interleaved"})", op_rotate},
    {"score", "<RoPE(q, m), RoPE(k, n)>",
     R"({"op":"score","d_head":4,"base":10000.0,"q":[1,2,3,4],"k":[4,3,2,1],"m":5,"n":3})", op_score},
    {"lookup", "rows P[positions] of a learned table (given, or seeded); past its rows PyTorch's IndexError",
     R"({"op":"lookup","max_position":10,"d":8,"seed":123,"positions":[5,100]})", op_lookup},
    {"sinusoidal", "PE[pos,2i] = sin(pos/10000^(2i/d)), PE[pos,2i+1] = cos(...), row-major [positions, d]",
     R"({"op":"sinusoidal","d":4,"positions":[0,1]})", op_sinusoidal},
    {"decay_bound", "RoFormer's long-term decay bound at each distance",
     R"({"op":"decay_bound","d":128,"base":10000.0,"distances":[0,1,2]})", op_decay_bound},
    {"score_curve", "<RoPE(q, anchor + r), RoPE(k, anchor)> for r = offset_lo..offset_hi",
     R"({"op":"score_curve","d_head":4,"q":[1,2,3,4],"k":[4,3,2,1],"anchor":0,"offset_lo":0,"offset_hi":3})",
     op_score_curve},
    {"precision", "per-pair angle error of float32, float16, bfloat16 against float64",
     R"({"op":"precision","d_head":8,"position":1000000,"format":"float32","recipe":"naive"})", op_precision},
    {"shape_trace", "shapes from token ids to Q_rope, K_rope and V, and the parameter counts",
     R"({"op":"shape_trace","B":2,"T":5,"h":4,"d_head":8,"V":100,"max_position":10})", op_shape_trace},
    {"model", "a config.json (\"config\": an object or a path) or a preset: RoPE as transformers derives it",
     R"({"op":"model","preset":"llama-3.1-8b"})", op_model},
    {"analyze", "the critical dimension and the first position where sum_i cos(m theta_i) turns negative",
     R"({"op":"analyze","d_head":128,"base":10000.0,"context":4096})", op_analyze},
    {"decoder_grad", "the lab's tiny decoder: loss and every weight's gradient, float64",
     R"({"op":"decoder_grad","config":{...},"weights":{...},"tokens":[[1,4,6]],"targets":[[4,6,-1]]})",
     op_decoder_grad},
    {"weights", "a safetensors checkpoint's (or index's) tensors; only the header is read",
     R"({"op":"weights","file":"gpt2/model.safetensors"})", op_weights},
    {"learned_table", "a trained position table: norms, cosines, spectrum, rank90/rank99, top components",
     R"({"op":"learned_table","file":"gpt2/model.safetensors","preset":"gpt2"})", op_learned_table},
    {"rope_usage", "per layer, head and rotated pair, how strongly W_q and W_k feed the pair",
     R"({"op":"rope_usage","file":"llama/model.safetensors","preset":"llama-3.2-1b","layers":[0]})", op_rope_usage},
    {"real_scores", "layer 0's real q of one token against k of another, by distance",
     R"({"op":"real_scores","file":"llama","head":0,"token":1000,"key_token":1000,"offsets":64})", op_real_scores},
    {"forward", "the checkpoint's causal LM (16 families): NLL by position, attention, hidden, under any scaling",
     R"({"op":"forward","file":"web/models/llama-bytes","text":"apt-get install","rope_scaling":"none"})", op_forward},
    {"passkey", "a 5-digit key hidden at each depth of each length, scored teacher-forced under any scaling",
     R"({"op":"passkey","file":"web/models/llama-bytes","lengths":[256,1024],"depths":[0,0.5,1],"trials":2})",
     op_passkey},
    {"tokenize", "a tokenizer.json's encoding of text, as Hugging Face's tokenizers gives it",
     R"({"op":"tokenize","tokenizer":"gpt2/tokenizer.json","text":"Hello world"})", op_tokenize},
    {"detokenize", "ids back to text through the tokenizer.json's decoder",
     R"({"op":"detokenize","tokenizer":"gpt2/tokenizer.json","ids":[15496,995]})", op_detokenize},
};

Result dispatch(const JsonValue& j, JsonWriter& w) {  // j is an object: respond() refuses anything else first
  FieldReader r(j);
  const std::string op = r.string("op");
  if (r.error) return *r.error;
  for (const EvalOp& o : kOps)
    if (op == o.name) return o.run(r, w);
  return bad_request("unknown op \"" + op + "\" (see ropeviz-cli --help)");
}

std::string error_json(const Error& e) {
  JsonWriter w = response_writer();
  w.begin_object().key("error").begin_object().field("type", e.type).field("message", e.message);
  return w.end_object().end_object().str();
}

}  // namespace

std::string eval_ops_help() {
  std::string out;
  for (const EvalOp& o : kOps) {
    const std::size_t n = std::strlen(o.name);
    out += "  " + std::string(o.name) + std::string(n < 14 ? 14 - n : 1, ' ') + o.summary + "\n";
    out += "      " + std::string(o.example) + "\n";
  }
  return out;
}

namespace {

// One request line through `answer`: size and depth limits first (NaN/Infinity literals become strings so the field
// holding one can be named), a result with a non-finite number refused, the response as one line.
template <class Answer>
std::string respond(const std::string& line, bool& ok, Answer answer) {
  Expected<JsonValue> request = parse_json_text(line);
  if (!request) {
    const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    ok = false;
    return error_json(blank ? bad_request("empty line: expected one JSON request") : request.error());
  }
  JsonWriter w = response_writer();
  Result e = request->kind == JsonValue::Kind::Object ? answer(*request, w)
                                                      : Result(bad_request("request must be a JSON object"));
  if (!e && !w.finite()) e = bad_request("result is not finite (inputs too large)");
  ok = !e;
  return e ? error_json(*e) : w.str();
}

}  // namespace

std::string eval_line(const std::string& line, bool& ok) {
  return respond(line, ok, dispatch);
}

std::string eval_on_checkpoint(const std::string& line, ModelCheckpoint& model, bool& ok) {
  return respond(line, ok, [&model](const JsonValue& j, JsonWriter& w) -> Result {
    FieldReader r(j);
    const std::string op = r.string("op");
    if (r.error) return *r.error;
    if (op == "forward") return forward_document(r, model, w);
    if (op == "passkey") return passkey_document(r, model, w);
    return bad_request("unknown op \"" + op + "\": the loaded checkpoint answers forward and passkey");
  });
}

namespace {
// One line without its newline; at most max_bytes + 1 bytes are kept (the rest of a longer line is skipped),
// so a huge line cannot exhaust memory. False at EOF with nothing read.
bool read_line(std::FILE* in, std::string& line, std::size_t max_bytes, bool& too_long) {
  line.clear();
  too_long = false;
  int ch = std::getc(in);
  if (ch == EOF) return false;
  for (; ch != EOF && ch != '\n'; ch = std::getc(in)) {  // embedded NULs are kept (and rejected by the parser)
    if (line.size() < max_bytes) {
      line.push_back(static_cast<char>(ch));
    } else {
      too_long = true;
    }
  }
  if (too_long) line.clear();
  return true;
}
}  // namespace

int run_eval(std::FILE* in, std::FILE* out) {
  bool all_ok = true;
  std::string line;
  bool too_long = false;
  while (read_line(in, line, kMaxJsonBytes, too_long)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool ok = false;
    std::string resp;
    if (too_long)
      resp = error_json(
          bad_request("request line is longer than the limit of " + std::to_string(kMaxJsonBytes) + " bytes"));
    else
      resp = eval_line(line, ok);
    all_ok = all_ok && ok;
    std::fwrite(resp.data(), 1, resp.size(), out);
    std::fputc('\n', out);
    std::fflush(out);  // one response per request, visible immediately
  }
  return all_ok ? 0 : 1;
}

}  // namespace rv::cli
