// The lab's link keys (task, methods, train_len, ... position_range): its rows of the link-key table, which
// app/state/params.cpp places in Key's order. The house reads this file and lab_state.hpp of the room.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "app/state/param_rows.hpp"
#include "core/decoder/decoder.hpp"
#include "core/lab/lab.hpp"

namespace rv::lab_keys {

using namespace rows;

inline std::optional<LabTask> parse_task(std::string_view name) {
  return parse_lab_task(std::string(name));
}

inline std::optional<LabPositions> parse_positions(std::string_view name) {
  return parse_lab_positions(name);
}

// methods=learned,rope: a comma-separated set of position methods, written back in the lab's order.
inline bool parse_methods(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  int mask = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, comma - start);
    const auto m = parse_position_method(name);
    if (!m) {
      notes.push_back(std::string(f.key) + "=" + quoted(text) + ": " + quoted(name) + " is not one of " + f.choices +
                      "; kept " + f.encode(p));
      return false;
    }
    mask |= 1 << int(*m);
    start = comma + 1;
  }
  p.methods = mask;
  return true;
}
inline std::string encode_methods(const Params& p) {
  std::string out;
  for (PositionMethod m : kAllPositionMethods)
    if (p.methods & (1 << int(m))) out += std::string(out.empty() ? "" : ",") + position_method_name(m);
  return out;
}

using P = Params;
// Key::task .. Key::position_range, in that order.
inline constexpr ParamField kRows[] = {
    enumeration<&P::task, parse_task, lab_task_name>("task", "copy, reverse or repeat",
                                                     "The lab's task: copy, reverse, or repeat the token 3 back."),
    {"methods", FieldKind::Enum, 0, 0, "The position methods the lab trains, comma-separated.", parse_methods,
     encode_methods, member_equal<&P::methods>, kPositionMethodChoices},
    integer<&P::train_len>("train_len", 1, kLabTrainLenMax,
                           "The lab trains on sizes 1–train_len and evaluates up to 4 x train_len."),
    integer<&P::table_len>("table_len", 0, kLabTableLenMax,
                           "Rows of the lab's learned table: 0 = the longest training input; more rows are never "
                           "trained."),
    integer<&P::steps>("steps", 1, kLabStepsMax, "AdamW steps per method in the lab."),
    integer<&P::lab_seed>("lab_seed", 0, Limits::kSeedMax, "Seeds the lab's init, batches and test sequences."),
    integer<&P::lab_seeds>("seeds", 1, kLabSeedsMax,
                           "Runs per method in the lab, from seeds lab_seed, lab_seed + 1, ...: means and their band."),
    enumeration<&P::positions, parse_positions, lab_positions_name>(
        "positions", "sequential or random",
        "Where the lab's training sequences sit: at 0..T-1, or at sorted random positions in [0, position_range)."),
    integer<&P::position_range>("position_range", 0, kLabPositionRangeMax,
                                "The range of the lab's random positions; 0 is 4 x the longest test input."),
};

}  // namespace rv::lab_keys
