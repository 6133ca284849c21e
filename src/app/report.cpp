// State as JSON (for scripts and tests) and as sentences (for screen readers), from one App.
#include "app/report.hpp"

#include <cmath>
#include <cstdio>

#include "app/json_writer.hpp"
#include "app/params.hpp"

namespace rv {
namespace {

constexpr int described_pairs_max = 8;

// One sentence for the new panel shown in the top bar (tab_top 3..5), or "".
std::string describe_beyond(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  const int pairs = int(m.inv_freq.size());
  if (p.tab_top == 3) {
    if (!m.scaling_error.empty()) return " Context extension panel: " + m.scaling_error + ".";
    int kept = 0, divided = 0;
    for (int i = 0; i < pairs; ++i) {
      const double ratio = m.scaled_inv_freq[i] / m.inv_freq[i];
      kept += std::abs(ratio - 1.0) <= 1e-12;
      divided += std::abs(ratio * p.factor - 1.0) <= 1e-12;
    }
    return std::string(" Context extension panel: ") + scaling_name(p.scaling) + " scaling with factor " +
           format_sig(p.factor) + " and original_max " + format_sig(p.original_max) + " leaves " +
           std::to_string(kept) + " of " + std::to_string(pairs) + " pairs' theta unchanged, divides " +
           std::to_string(divided) + " by the factor and blends the rest; attention factor " +
           format_sig(m.attention_factor) + "; the other panels use unscaled RoPE.";
  }
  if (p.tab_top == 4)
    return " Precision panel: at position " + std::to_string(p.position) +
           ", computing angles the naive float32 way loses up to " + format_sig(m.precision[0][0].max_angle_err, 3) +
           " radians, ours " + format_sig(m.precision[1][0].max_angle_err, 3) +
           "; bfloat16 represents integer positions exactly only up to " +
           format_sig(exact_integer_limit(FloatFormat::BF16)) + ", so position " + std::to_string(p.position) +
           " rounds to " + format_sig(m.precision[0][2].position_in_format, 10) + ".";
  if (p.tab_top == 5)
    return " Sinusoidal panel: Vaswani's sin and cos position encoding over positions 0 to " +
           format_sig(m.sinus_x_end) + " and " + std::to_string(p.d_head) +
           " dims, with position m marked; it uses RoPE's frequencies theta_i but is added to the input once, "
           "while RoPE rotates Q and K.";
  return "";
}

}  // namespace

std::string describe(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  std::string s = "Position m = " + std::to_string(p.position) + ". ";
  s += "Learned absolute: the table P has " + std::to_string(p.max_position) + " rows (positions 0 to " +
       std::to_string(p.max_position - 1) + ") of width d = " + std::to_string(p.d_model()) + ". ";
  if (m.lookup_error)
    s += "It cannot serve position " + std::to_string(p.position) + ": " + m.lookup_error->full() + ". ";
  else
    s += "It serves position " + std::to_string(p.position) + " by looking up row P[" + std::to_string(p.position) +
         "]. ";
  const int pairs = int(m.inv_freq.size());
  s += "RoPE works at any position: it rotates " + std::to_string(pairs) +
       " dimension pairs of Q and K by m times theta_i";
  const int shown = std::min(pairs, described_pairs_max);
  std::string thetas, angles;
  for (int i = 0; i < shown; ++i) {
    thetas += (i ? ", " : "") + format_sig(m.inv_freq[i]);
    angles += (i ? ", " : "") + format_sig(m.angles[i]);
  }
  s += "; theta = " + thetas + (shown < pairs ? ", ..." : "") + "; angles in radians = " + angles +
       (shown < pairs ? ", ..." : "") + ". ";
  s += "Score of query at m = " + std::to_string(p.position) + " with key at n = " + std::to_string(p.key_position) +
       " (offset " + std::to_string(p.position - p.key_position) + "): " + format_sig(m.score) + ". ";
  // What the panels show.
  int long_pairs = 0;
  for (int i = 0; i < pairs; ++i) long_pairs += two_pi / m.inv_freq[i] > double(p.max_position);
  s += "Rotations panel: each pair of q drawn on the unit circle before and after rotating by m times theta_i; " +
       std::to_string(long_pairs) + " of " + std::to_string(pairs) +
       " pairs have a wavelength longer than max_position, so they never complete a turn inside the table; V is not "
       "rotated. ";
  s += "Dot product panel: the score against the offset m - n from -" + std::to_string(p.offsets) + " to " +
       std::to_string(p.offsets) + " at key positions " + format_sig(m.anchor_a) + " and " + format_sig(m.anchor_b) +
       "; the two curves coincide within " + format_sig(m.relative_spread, 3) +
       ", because the score depends only on the offset. ";
  s += "Learned table panel: a heatmap of P with " + std::to_string(p.max_position) + " rows and " +
       std::to_string(p.d_model()) + " columns, " +
       (m.lookup_error ? "with the missing row " + std::to_string(p.position) + " marked below the table. "
                       : "with row " + std::to_string(p.position) + " highlighted. ");
  s += "Angle field panel: cos of x times theta_i for positions x from 0 to " + format_sig(m.field_x_end) +
       ", low pairs changing fast, high pairs slowly. ";
  int holds = 0;
  for (const Check& c : m.checks) holds += c.ok;
  s += "Checks panel: rotation keeps the norm within " + format_sig(m.norm_max_diff, 3) + "; " + std::to_string(holds) +
       " of " + std::to_string(m.checks.size()) + " of the lesson's checks hold for these settings.";
  s += describe_beyond(app);
  return s;
}

std::string state_json(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  JsonWriter j;
  j.begin_object();
  j.key("position").value(p.position).key("key_position").value(p.key_position);
  j.key("max_position").value(p.max_position).key("d_head").value(p.d_head).key("d_model").value(p.d_model());
  j.key("heads").value(p.heads).key("batch").value(p.batch).key("seq_len").value(p.seq_len);
  j.key("vocab").value(p.vocab).key("base").value(p.base).key("pairing").value(pairing_name(p.pairing));
  j.key("seed").value((long long)p.seed).key("offsets").value(p.offsets);
  j.key("absolute").begin_object().key("ok").value(!m.lookup_error.has_value()).key("error");
  if (m.lookup_error)
    j.value(m.lookup_error->full());
  else
    j.null();
  j.key("params").value(learned_param_count(p.max_position, p.d_model())).end_object();
  j.key("rope").begin_object().key("ok").value(true);
  j.key("theta").values(m.inv_freq.data(), int(m.inv_freq.size()));
  j.key("angle").values(m.angles.data(), int(m.angles.size()));
  j.key("params").value(0).end_object();
  j.key("score").value(m.score).key("norm_max_diff").value(m.norm_max_diff);
  j.key("relative_spread")
      .value(m.relative_spread)
      .key("tab_top")
      .value(p.tab_top)
      .key("tab_bottom")
      .value(p.tab_bottom);
  j.key("scaling").begin_object().key("type").value(scaling_name(p.scaling)).key("factor").value(p.factor);
  j.key("theta").values(m.scaled_inv_freq.data(), int(m.scaled_inv_freq.size()));
  j.key("attention_factor").value(m.attention_factor).end_object();
  j.key("frame_ms").value(app.ui.frame_ms).key("frames").value(app.ui.frames);
  j.key("notes").values(app.ui.notes).key("hash").value(encode_query(p));
  j.end_object();
  return j.str();
}

}  // namespace rv
