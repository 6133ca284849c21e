// Reading and writing Params as text: one setter for every source (URL hash, --state, the JS
// hook), with the limits that keep every value safe, and the URL-hash encoding.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "app/state.hpp"

namespace rv {

// Upper limits that keep memory and frame time bounded; lower limits keep the math defined.
struct Limits {
  static constexpr long long position_max = 1000000000;  // 1e9
  static constexpr int max_position_max = 1 << 20;
  static constexpr long long table_entries_max = 1 << 24;  // max_position * d, ~128 MB of doubles
  static constexpr int d_head_max = 1024;
  static constexpr int heads_max = 64;
  static constexpr int batch_max = 64;
  static constexpr int seq_len_max = 8192;
  static constexpr int vocab_max = 1000000;
  static constexpr double base_max = 1e12;
  static constexpr int offsets_max = 65536;
  static constexpr long long seed_max = (1LL << 53) - 1;  // exact in JSON and JS numbers
  static constexpr double factor_max = 1000.0;     // rope_scaling factor, and llama3/yarn tuning factors
  static constexpr double original_max_max = 1e9;  // original_max_position_embeddings
};

// Sets one parameter from text. Unknown keys are ignored (returns true, no note); a value that
// cannot be parsed leaves the parameter unchanged and adds a note; an out-of-range one is clamped
// with a note. Returns false when the value was rejected.
bool set_param(Params& p, std::string_view key, std::string_view value, std::vector<std::string>& notes);
// Restores the cross-parameter invariants (table size within Limits), with a note if it had to.
void enforce_limits(Params& p, std::vector<std::string>& notes);
// "position=100&max_position=10&..." (an optional leading '#' is skipped); applies each pair.
void apply_query(Params& p, std::string_view query, std::vector<std::string>& notes);
// The canonical hash (without '#'): every parameter, in a fixed order.
std::string encode_query(const Params& p);

}  // namespace rv
