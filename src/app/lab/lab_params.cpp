// The lab's link keys as LabOptions and CLI flags, and back (app/lab/lab_params.hpp).
#include "app/lab/lab_params.hpp"

#include <cmath>

#include "app/state/params.hpp"
#include "core/base/format.hpp"
#include "core/base/json_value.hpp"

namespace rv {

namespace {
// The integer lab keys: link key member, CLI flag, LabOptions member.
struct IntKey {
  int Params::*param;
  const char* flag;
  int LabOptions::*option;
};
constexpr IntKey kIntKeys[] = {{&Params::train_len, "--train-len", &LabOptions::train_len},
                               {&Params::table_len, "--table-len", &LabOptions::table_len},
                               {&Params::steps, "--steps", &LabOptions::steps},
                               {&Params::lab_seeds, "--seeds", &LabOptions::seeds}};
}  // namespace

std::vector<std::string> lab_flags(const Params& p, ScalingType scaling, double factor) {
  std::vector<std::string> flags = {"--task", lab_task_name(p.task), "--methods", find_field("methods")->encode(p)};
  for (const IntKey& k : kIntKeys) {
    flags.push_back(k.flag);
    flags.push_back(std::to_string(p.*k.param));
  }
  flags.push_back("--seed");
  flags.push_back(std::to_string(p.lab_seed));
  if (p.positions == LabPositions::Random)  // sequential positions take no range (a kept position_range waits)
    for (std::string f : {std::string("--positions"), std::string("random"), std::string("--position-range"),
                          std::to_string(p.position_range)})
      flags.push_back(std::move(f));
  if (scaling != ScalingType::None)
    for (std::string f : {std::string("--rope-scaling"), std::string(lab_scaling_name(scaling)),
                          std::string("--rope-factor"), format_number(factor)})
      flags.push_back(std::move(f));
  return flags;
}

LabOptions lab_options(const Params& p) {
  const Expected<LabOptions> o = parse_lab_options(lab_flags(p));
  return o ? *o : LabOptions{};  // the link keys' limits are the parser's: every Params gives valid flags
}

void set_lab_params(Params& p, const LabOptions& o) {
  p.task = o.task;
  p.methods = 0;
  for (PositionMethod m : o.methods) p.methods |= 1 << int(m);
  for (const IntKey& k : kIntKeys) p.*k.param = o.*k.option;
  p.lab_seed = o.seed;
  p.positions = o.positions;
  p.position_range = o.position_range;
}

namespace {
constexpr std::size_t kMaxLabOptionsBytes = 4096;

// One option's value as flag text, or why it cannot be one.
std::optional<std::string> flag_value(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::String:
      return v.string;
    case JsonValue::Kind::Number:
      if (!std::isfinite(v.number)) return std::nullopt;
      return v.number == std::floor(v.number) && std::fabs(v.number) < 1e15
                 ? std::to_string(static_cast<long long>(v.number))
                 : format_number(v.number);
    case JsonValue::Kind::Array: {
      std::string list;
      for (const JsonValue& item : v.array) {
        if (item.kind != JsonValue::Kind::String) return std::nullopt;
        list += (list.empty() ? "" : ",") + item.string;
      }
      return list;
    }
    default:
      return std::nullopt;
  }
}
}  // namespace

Expected<std::vector<std::string>> lab_flags_from_json(std::string_view options_json, int* workers) {
  const Expected<JsonValue> doc = parse_json(options_json, kMaxLabOptionsBytes, 4);
  if (!doc) return bad_request("lab options: " + doc.error().message);
  if (doc->kind != JsonValue::Kind::Object)
    return bad_request("lab options must be an object such as {\"task\": \"copy\", \"train_len\": 8}");
  std::vector<std::string> flags;
  if (workers) *workers = 0;
  for (const auto& [key, value] : doc->object) {
    if (workers && key == "workers") {
      const bool whole = value.kind == JsonValue::Kind::Number && value.number == std::floor(value.number);
      if (!whole || value.number < 1 || value.number > kLabWorkersMax)
        return bad_request(
            "lab option \"workers\" must be a whole number from 1 to " + std::to_string(kLabWorkersMax) +
            " (the Web Workers that train the runs), got " +
            (value.kind == JsonValue::Kind::Number ? format_number(value.number) : std::string("another type")));
      *workers = int(value.number);
      continue;
    }
    const std::optional<std::string> text = flag_value(value);
    if (!text)
      return bad_request("lab option \"" + key.substr(0, 40) +
                         "\" needs a string, a finite number or a list of strings (methods)");
    std::string flag = "--" + key;
    for (char& ch : flag)
      if (ch == '_') ch = '-';
    flags.push_back(flag);
    flags.push_back(*text);
  }
  return flags;
}

}  // namespace rv
