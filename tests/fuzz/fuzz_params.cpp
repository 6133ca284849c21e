// libFuzzer target: the link parser rv::apply_query. Every field ends within its table limits, the cross-field
// limits hold, and parse -> encode_query -> parse gives equal Params with no notes (the encoding is a fixed point).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "app/lab/lab_params.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "core/models/presets.hpp"
#include "fuzz_check.hpp"

namespace {

// The member a numeric row encodes, read back from its canonical text.
double encoded_number(const rv::ParamField& f, const rv::Params& p) {
  const std::string s = f.encode(p);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  RV_FUZZ_CHECK(!s.empty() && end == s.c_str() + s.size() && std::isfinite(v));
  return v;
}

void check_limits(const rv::Params& p) {
  for (const rv::ParamField& f : rv::param_fields()) {
    switch (f.kind) {
      case rv::FieldKind::Integer:
      case rv::FieldKind::EvenInteger:
      case rv::FieldKind::WholeReal: {
        const double v = encoded_number(f, p);
        RV_FUZZ_CHECK(v == std::floor(v) && v >= f.lo && v <= f.hi);
        if (f.kind == rv::FieldKind::EvenInteger) RV_FUZZ_CHECK(std::fmod(v, 2.0) == 0.0);
        break;
      }
      case rv::FieldKind::RealAbove: {
        const double v = encoded_number(f, p);
        RV_FUZZ_CHECK(v > f.lo && v <= f.hi);
        break;
      }
      case rv::FieldKind::Enum:
        RV_FUZZ_CHECK(!f.encode(p).empty());
        break;
      case rv::FieldKind::Tab: {
        const rv::Bar bar = std::string_view(f.key) == "tab_top" ? rv::Bar::Top : rv::Bar::Bottom;
        const int tab = rv::tab_of(p, bar);
        RV_FUZZ_CHECK(tab >= 0 && tab < int(rv::bar_panels(bar).size()));
        RV_FUZZ_CHECK(f.encode(p) == rv::bar_panels(bar)[size_t(tab)]->key);
        break;
      }
    }
  }
  RV_FUZZ_CHECK(p.max_position >= 1 && p.max_position <= rv::Limits::kMaxPositionMax);
  // a chosen model is a preset (a link cannot load a file: model=config needs one loaded on the page)
  RV_FUZZ_CHECK(p.model.empty() || rv::find_preset(p.model) != nullptr);
  RV_FUZZ_CHECK(p.low_freq < p.high_freq);
  RV_FUZZ_CHECK(p.beta_slow < p.beta_fast);
  // the lab's settings are always a run the lab's parser accepts (the learned table holds every training input)
  RV_FUZZ_CHECK(rv::parse_lab_options(rv::lab_flags(p)).has_value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  rv::Params p;
  std::vector<std::string> notes;
  rv::apply_query(p, query, notes);
  check_limits(p);

  // enforce_limits is idempotent: the parsed Params already satisfy it
  rv::Params again = p;
  std::vector<std::string> again_notes;
  rv::enforce_limits(again, again_notes);
  RV_FUZZ_CHECK(again == p && again_notes.empty());

  // the canonical hash reads back to the same Params, silently, and re-encodes to itself
  const std::string hash = rv::encode_query(p);
  rv::Params q;
  std::vector<std::string> q_notes;
  rv::apply_query(q, hash, q_notes);
  RV_FUZZ_CHECK(q == p);
  RV_FUZZ_CHECK(q_notes.empty());
  RV_FUZZ_CHECK(rv::encode_query(q) == hash);

  // applying the same link again changes nothing (every accepted value is absolute, not relative)
  rv::Params twice = p;
  std::vector<std::string> twice_notes;
  rv::apply_query(twice, query, twice_notes);
  RV_FUZZ_CHECK(twice == p);
  return 0;
}
