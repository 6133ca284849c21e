// decoder_grad: parse the config, weights (row-major, by contract name), token rows and optional positions; answer
// loss and gradients.
#include "cli/eval_decoder.hpp"

#include <algorithm>

#include "core/decoder/decoder.hpp"

namespace rv::cli {
namespace {

constexpr long long kMaxDecoderParams = 10000000;  // weights in one request (the line limit binds sooner)
constexpr long long kMaxDecoderTokens = 1000000;   // B * T
constexpr double kMaxDecoderWork = 2e10;           // multiply-adds, about B*T*(params + layers*T*d_model)
constexpr double kMaxPositionTable = 1e7;          // (largest position + 1) * d_model: tables of every position

// Records the first problem on r and yields an empty optional of any type.
std::nullopt_t failed(FieldReader& r, std::string message) {
  r.fail(std::move(message));
  return std::nullopt;
}
std::nullopt_t failed(FieldReader& r, const std::optional<Error>& e) {
  if (!r.error) r.error = e;
  return std::nullopt;
}

std::optional<DecoderConfig> decoder_config(FieldReader& outer, const JsonValue& obj) {
  FieldReader r(obj, "config.");
  DecoderConfig c;
  const long long sizes[5] = {r.integer("vocab"), r.integer("d_model"), r.integer("heads"), r.integer("layers"),
                              r.integer("d_ff")};
  const std::string position = r.string("position");
  const long long max_position =
      r.integer("max_position", position == "learned" ? std::nullopt : std::optional<long long>(0));
  c.base = r.number("base", 10000.0);
  const std::string pairing = r.string("pairing", std::string("interleaved"));
  if (r.error) return failed(outer, r.error);
  const char* names[5] = {"vocab", "d_model", "heads", "layers", "d_ff"};
  for (int i = 0; i < 5; ++i)
    if (sizes[i] < 1 || sizes[i] > 65536)
      return failed(outer,
                    std::string("\"config.") + names[i] + "\" must be in [1, 65536], got " + std::to_string(sizes[i]));
  if (max_position < 0 || max_position > 65536)
    return failed(outer, "\"config.max_position\" must be in [1, 65536], got " + std::to_string(max_position));
  auto method = parse_position_method(position);
  if (!method)
    return failed(outer, std::string("\"config.position\" must be one of ") + kPositionMethodChoices + ", got \"" +
                             position + "\"");
  auto p = parse_pairing(pairing);
  if (!p) return failed(outer, "\"config.pairing\" must be \"interleaved\" or \"half_split\", got \"" + pairing + "\"");
  c.vocab = static_cast<int>(sizes[0]);
  c.d_model = static_cast<int>(sizes[1]);
  c.heads = static_cast<int>(sizes[2]);
  c.layers = static_cast<int>(sizes[3]);
  c.d_ff = static_cast<int>(sizes[4]);
  c.position = *method;
  c.max_position = static_cast<int>(max_position);
  c.pairing = *p;
  if (auto e = check_decoder_config(c)) return failed(outer, e);
  return c;
}

// Every weight the config names, each with exactly its number of entries; nothing else.
std::optional<DecoderWeights> decoder_weights(FieldReader& outer, const JsonValue& obj, const DecoderConfig& c) {
  FieldReader r(obj, "weights.");
  DecoderWeights w = zero_weights<double>(c);
  std::vector<WeightRef<double>> refs = weight_refs(c, w);
  for (WeightRef<double>& ref : refs) {
    const std::vector<double> v =
        r.numbers(ref.name.c_str(), static_cast<std::size_t>(ref.size), static_cast<std::size_t>(ref.size));
    if (r.error) return failed(outer, r.error);
    std::copy(v.begin(), v.end(), ref.data);
  }
  for (const auto& member : obj.object) {  // no structured binding: clang 14 lambdas cannot capture one
    const std::string& key = member.first;
    const bool known = std::any_of(refs.begin(), refs.end(), [&](const auto& ref) { return ref.name == key; });
    if (!known)
      return failed(outer, "\"weights." + key + "\" is not a weight of this config (position \"" +
                               position_method_name(c.position) + "\", layers " + std::to_string(c.layers) + ")");
  }
  return w;
}

// [B][T] integers; rows may differ in length here (core names the ragged row).
std::optional<TokenRows> token_rows(FieldReader& r, const char* key) {
  const std::string what = std::string("\"") + key + "\" must be an array of arrays of integers";
  const JsonValue* v = r.array(key, what);
  if (!v) return std::nullopt;
  TokenRows rows;
  long long total = 0;
  for (const JsonValue& row : v->array) {
    if (row.kind != JsonValue::Kind::Array) return failed(r, what);
    total += static_cast<long long>(row.array.size());
    if (total > kMaxDecoderTokens) return failed(r, std::string("\"") + key + "\" has more than 1000000 entries");
    rows.emplace_back();
    for (const JsonValue& e : row.array) {
      auto i = as_integer(e);
      if (!i) return failed(r, what);
      rows.back().push_back(*i);
    }
  }
  return rows;
}

// The tables of every position up to the largest (core's decoder) count like a weight of that many rows; learned's
// positions are bounded by its table (an IndexError past it).
std::optional<Error> check_positions_cost(const DecoderConfig& c, const TokenRows& positions) {
  if (c.position == PositionMethod::Learned) return std::nullopt;
  long long top = 0;
  for (const std::vector<long long>& row : positions)
    for (long long p : row) top = std::max(top, p);
  const double table = (static_cast<double>(top) + 1) * c.d_model;
  if (table > kMaxPositionTable)
    return bad_request("\"positions\" reach " + std::to_string(top) +
                       ": (largest position + 1) * d_model exceeds 10000000");
  return std::nullopt;
}

std::optional<Error> check_cost(const DecoderConfig& c, const TokenRows& tokens, const TokenRows* positions) {
  const long long params = decoder_param_count(c);
  if (params > kMaxDecoderParams)
    return bad_request("the model has " + std::to_string(params) + " weights, more than the limit 10000000");
  const double T = tokens.empty() ? 0.0 : static_cast<double>(tokens[0].size());
  const double work = static_cast<double>(tokens.size()) * T * (static_cast<double>(params) + c.layers * T * c.d_model);
  if (work > kMaxDecoderWork) return bad_request("request too large: B*T*(weights + layers*T*d_model) exceeds 2e10");
  return positions ? check_positions_cost(c, *positions) : std::nullopt;
}

void grads_json(JsonWriter& w, const DecoderConfig& c, const DecoderWeights& grads) {
  w.begin_object();
  for (const WeightRef<const double>& g : weight_refs(c, grads)) w.key(g.name).values(g.data, int(g.size));
  w.end_object();
}

}  // namespace

std::optional<Error> op_decoder_grad(FieldReader& r, JsonWriter& out) {
  const JsonValue* cfg = r.object("config");
  const JsonValue* weights = r.object("weights");
  if (!r.error && !cfg) r.fail("missing required field \"config\"");
  if (!r.error && !weights) r.fail("missing required field \"weights\"");
  if (r.error) return *r.error;
  const std::optional<DecoderConfig> c = decoder_config(r, *cfg);
  if (!c) return *r.error;
  const std::optional<TokenRows> tokens = token_rows(r, "tokens");
  const std::optional<TokenRows> targets = token_rows(r, "targets");
  const std::optional<TokenRows> positions = r.has("positions") ? token_rows(r, "positions") : std::nullopt;
  if (r.error) return *r.error;
  const TokenRows* at = positions ? &*positions : nullptr;  // absent: row t at position t
  if (auto e = check_cost(*c, *tokens, at)) return *e;
  std::optional<DecoderWeights> w = decoder_weights(r, *weights, *c);
  if (!w) return *r.error;
  auto g = decoder_loss_and_grad(*c, *w, *tokens, *targets, at);
  if (!g) return g.error();
  grads_json(out.begin_object().field("loss", g->loss).key("grads"), *c, g->grads);
  out.end_object();
  return std::nullopt;
}

}  // namespace rv::cli
