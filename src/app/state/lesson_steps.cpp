// The guided lesson's steps as data: each step's view (a link), the panel it points at, its text and live numbers;
// applying a step's view (the `lesson` link key). No drawing here (app/lesson/lesson_box.cpp draws the box).
#include "app/state/lesson.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"

namespace rv {
namespace {

// [SECTION] live lines: the numbers each step points at, written into a buffer (no allocation per frame)

// The mean of cos(P[t], P[t+1]) over the table's rows (0 for a zero row), without allocating: the measured "are
// neighbours alike" of the table on screen.
double mean_neighbour_cos(const RowMatrixXd& P) {
  double sum = 0;
  for (Eigen::Index t = 0; t + 1 < P.rows(); ++t) {
    const double n = P.row(t).norm() * P.row(t + 1).norm();
    sum += n > 0 ? P.row(t).dot(P.row(t + 1)) / n : 0.0;
  }
  return P.rows() > 1 ? sum / double(P.rows() - 1) : 0.0;
}

// What a trained table measures: its rows' smoothness (and 5 against 50, which are not unrelated once trained), its
// rank, and a last row that stands apart from its neighbours as a row training never reached.
void trained_table_words(const WeightsTable& t, char* out, std::size_t size) {
  const LearnedTableAnalysis& a = t.analysis;
  const RowMatrixXd& P = t.P;
  const auto cosine = [&](Eigen::Index i, Eigen::Index j) {
    const double n = P.row(i).norm() * P.row(j).norm();
    return n > 0 ? P.row(i).dot(P.row(j)) / n : 0.0;
  };
  const MeanSd near = mean_sd(a.neighbour_cos);
  int n = std::snprintf(out, size, " Measured on %s (trained): neighbouring rows' cosine %.2f on average",
                        t.tensor.c_str(), near.mean);
  if (P.rows() > 50 && n < int(size))
    n += std::snprintf(out + n, size - n, ", cos(P[5], P[50]) = %.2f (trained rows are not unrelated)", cosine(5, 50));
  if (n < int(size))
    n += std::snprintf(out + n, size - n, "; 90%% of the centred table's energy in %d of %lld directions.", a.rank90,
                       (long long)a.singular_values.size());
  const Eigen::Index last = P.rows() - 1;
  if (last < 2 || a.neighbour_cos.size() != last || n >= int(size)) return;
  const double last_cos = a.neighbour_cos[last - 1];
  if (last_cos > near.mean - 3 * near.sd) return;
  std::vector<double> norms(a.row_norm.data(), a.row_norm.data() + a.row_norm.size());
  std::nth_element(norms.begin(), norms.begin() + std::ptrdiff_t(norms.size() / 2), norms.end());
  std::snprintf(out + n, size - n,
                " Its last row P[%lld] stands apart: norm %.2f against a median of %.2f, cosine %.2f with P[%lld] "
                "(the last position of a full training window predicts no next token: no gradient reaches its row).",
                (long long)last, a.row_norm[last], norms[norms.size() / 2], last_cos, (long long)last - 1);
}

void live_table(const App& app, char* out, std::size_t size) {
  const Params& p = app.params;
  char count[28], measured[520];
  format_count(app.model.counts.learned_position, count, sizeof count);
  if (const WeightsTable* t = loaded_table(p))
    trained_table_words(*t, measured, sizeof measured);
  else if (app.model.table_built)
    std::snprintf(measured, sizeof measured,
                  " Measured on this untrained table: neighbouring rows' cosine %.2f on average (unrelated rows).",
                  mean_neighbour_cos(app.model.table.P));
  else
    measured[0] = '\0';
  if (app.model.lookup_error)
    std::snprintf(out, size, "P is [%d, %d]: %s parameters. m = %lld: %s%s", p.max_position, p.d_model(), count,
                  p.position, app.model.lookup_message.c_str(), measured);
  else
    std::snprintf(out, size, "P is [%d, %d]: %s parameters. m = %lld reads row %lld.%s", p.max_position, p.d_model(),
                  count, p.position, p.position, measured);
}

// "θ = 1, 0.1, ...; at m = 3: 3, 0.3, ... rad" for the first pairs.
void live_angles(const App& app, char* out, std::size_t size) {
  const Model& model = app.model;
  const int shown = std::min<int>(6, int(model.inv_freq.size()));
  int n = std::snprintf(out, size, "θ =");
  for (int i = 0; i < shown && n < int(size); ++i)
    n += std::snprintf(out + n, size - n, "%s %.6g", i ? "," : "", model.inv_freq[i]);
  if (n < int(size))
    n += std::snprintf(out + n, size - n, "%s; at m = %lld:", shown < model.inv_freq.size() ? " …" : "",
                       app.params.position);
  for (int i = 0; i < shown && n < int(size); ++i)
    n += std::snprintf(out + n, size - n, "%s %.6g", i ? "," : "", model.angles[i]);
  if (n < int(size)) std::snprintf(out + n, size - n, "%s rad", shown < model.angles.size() ? " …" : "");
}

void live_mechanism(const App& app, char* out, std::size_t size) {
  const Model& model = app.model;
  std::snprintf(out, size,
                "%d pairs, θ₀ = %.6g down to %.6g; RoPE parameters: %lld; scores at two anchors differ by %.3g",
                int(model.inv_freq.size()), model.inv_freq[0], model.inv_freq[model.inv_freq.size() - 1],
                model.counts.rope, model.relative_spread);
}

void live_offset(const App& app, char* out, std::size_t size) {
  const Model& model = app.model;
  const long long at = app.params.position;
  if (model.lookup_error)
    std::snprintf(out, size, "Learned P[%lld]: %s   RoPE: angle m·θ₀ = %.6g rad", at, model.lookup_message.c_str(),
                  model.angles[0]);
  else
    std::snprintf(out, size, "Learned P[%lld]: a row of the table.   RoPE: angle m·θ₀ = %.6g rad", at, model.angles[0]);
}

void live_norm(const App& app, char* out, std::size_t size) {
  const AddVsRotate& w = app.model.why;
  std::snprintf(out, size, "‖q‖ = %.6g   ‖RoPE(q, m)‖ = %.6g   ‖q + PE(m)‖ = %.6g   (max |‖RoPE(x)‖ − ‖x‖| = %.3g)",
                w.norm_q, w.norm_rotated, w.norm_added, app.model.norm_max_diff);
}

void live_counts(const App& app, char* out, std::size_t size) {
  char count[28];
  format_count(app.model.counts.learned_position, count, sizeof count);
  std::snprintf(out, size, "Parameters: learned %s, RoPE %lld. Learned serves m < %d; RoPE served m = %lld.", count,
                app.model.counts.rope, app.params.max_position, app.params.position);
}

void live_judgment(const App& app, char* out, std::size_t size) {
  const ContextBudget& b = app.model.budget;
  char learned[28], context[28], measured[28];
  format_count(b.learned_parameters, learned, sizeof learned);
  format_count(b.context, context, sizeof context);
  format_count(b.measured, measured, sizeof measured);
  std::snprintf(out, size,
                "Context %s (max_position_embeddings): RoPE parameters %lld, a learned table for it %s. With the "
                "unscaled θᵢ, %d of %d pairs never turn in %s positions (%s).",
                context, b.rope_parameters, learned, b.pairs_without_turn, b.rotary_dims / 2, measured,
                b.original ? "original_max_position_embeddings, the length before extension" : "the context");
}

// [SECTION] the steps

constexpr const char* kLessonDims =
    "model=none&max_position=10&d_head=8&heads=4&batch=2&seq_len=5&vocab=100&base=10000&pairing=interleaved";
constexpr const char* kLessonFreeDims =
    "batch=2&seq_len=5&base=10000&pairing=interleaved";  // a loaded table's (its V too: its embedding's rows)
constexpr long long kLessonRows = 10;                    // the toy's max_position

const LessonStep kSteps[kLessonSteps] = {
    {"1", "Learned absolute positions (GPT-2)",
     "&position=5&key_position=3&tab_top=shape_trace&tab_bottom=learned_table", "learned_table",
     "Each position t owns a learned row P[t] of the table P [max_position, d], added to the token's embedding: "
     "E[token] + P[t]. Below, the table with the row for m marked: the app's own at its random initialisation, "
     "where rows are unrelated to their neighbours, or a checkpoint's trained table when one is loaded (load "
     "weights: GPT-2's model.safetensors). Training makes the rows smooth in t (OpenAI's GPT-2 puts most of its "
     "table's energy in a few directions; the Trained panel measures the loaded one), but each row is still learned "
     "from the positions seen in training. Above, the shape trace: the sum keeps [B, T, d], and the table costs "
     "max_position × d "
     "parameters.",
     live_table},
    {"2", "RoPE: rotate, don't add", "&position=5&key_position=3&tab_top=rotations&tab_bottom=score_curve", "rotations",
     "RoPE adds nothing to the embedding. Inside attention it rotates each pair i of q and k by the angle m·θᵢ, "
     "θᵢ = base^(-2i/d_head): a formula, so no parameters. Above, each pair before and after its rotation (V is not "
     "rotated). Below, the score ⟨RoPE(q, m), RoPE(k, n)⟩ against m − n at two anchors: the curves coincide, the "
     "score depends only on the offset.",
     live_mechanism},
    {"2.3", "Worked example", "&position=3&key_position=0&tab_top=rotations&tab_bottom=checks", "rotations",
     "The pairs run from fast to slow: pair 0 turns m·θ₀ radians, the last pair a small fraction of that. Press Play "
     "(left, under the position) to sweep m: the fast pair spins while the slow ones barely move. The exact values:",
     live_angles},
    {"3", "Position-offset test", "&position=100&key_position=3&tab_top=angle_field&tab_bottom=learned_table",
     "learned_table",
     "The table has rows for positions 0 .. max_position − 1 only. Here m is past its end: the status strip and the "
     "learned table show the IndexError PyTorch raises, while every RoPE panel keeps drawing, because the formula's "
     "m·θᵢ "
     "is defined at any m (a trained RoPE model runs there too, but past its training length its loss climbs: Run "
     "it measures one). Drag m back inside the table, or Play from 0 to watch it cross the edge.",
     live_offset},
    {"3.3", "Norm preservation", "&position=100&key_position=97&tab_top=why_rotation&tab_bottom=checks", "why_rotation",
     "A rotation turns a vector without stretching it: ‖RoPE(q, m)‖ = ‖q‖ at every m. Above, a position vector added "
     "to q beside q rotated: the sum's length and its dot product with k follow the positions themselves; the "
     "rotation's length never changes and its score moves only with m − n.",
     live_norm},
    {"4", "Comparison", "&position=5&key_position=3&tab_top=shape_trace&tab_bottom=comparison", "comparison",
     "Side by side: learned absolute adds a table row before the blocks; RoPE rotates q and k inside attention. A "
     "table of max_position × d parameters against none; rows up to the table's end against an angle at every "
     "position (for the formula; a model trained on L positions still degrades past L: Run it measures the demo "
     "llama-bytes, trained at 512, at 3.7 times its in-range loss over 1,024-2,047); neither changes a shape (above), "
     "neither touches V.",
     live_counts},
    {"5", "Judgment", "model=llama-3.1-8b&position=100000&tab_top=context_budget&tab_bottom=lab", "lab",
     "RoPE is today's default for decoders: no parameters, relative scores, an angle at every position. Llama, "
     "Mistral and GPT-NeoX use it (above, Llama 3.1 8B's context budget, whose lengths are the config's: it was "
     "pre-trained shorter, then trained on long context). An angle that can be computed is not yet one the model "
     "uses well: past its training length a RoPE model's loss climbs (measured on llama-bytes: 1.14 nats per byte in "
     "range, 4.25 at 1,024-2,047) unless its frequencies are rescaled (Llama 3's rule x4, with no training: 1.28) "
     "or it is fine-tuned longer; linear interpolation without fine-tuning spoils even the trained range (3.15). Run "
     "it measures a checkpoint; the Lab below trains a tiny decoder with each method and measures it past its "
     "training length.",
     live_judgment},
};

}  // namespace

const LessonStep& lesson_step(int step) {
  return kSteps[std::clamp(step, 1, kLessonSteps) - 1];
}

void apply_lesson_view(Params& p, int step, std::vector<std::string>& notes) {
  if (step < 1 || step > kLessonSteps) return;
  const LessonStep& s = lesson_step(step);
  // Steps at the lesson's toy start from its dims; the last one opens a real model instead.
  // A checkpoint's learned table keeps its frame (max_position, d_head, heads): the steps run on the real table, and a
  // position the toy puts past its 10 rows goes as far past the real one. Step 5's model unloads it.
  const bool real_table = p.weights && p.weights->table && s.view[0] == '&';
  const std::string view =
      s.view[0] == '&' ? (real_table ? kLessonFreeDims : kLessonDims) + std::string(s.view) : std::string(s.view);
  apply_query(p, view, notes);
  if (real_table && p.position >= kLessonRows) p.position = p.max_position + (p.position - kLessonRows);
}

const char* lesson_highlight(const Params& p) {
  return p.lesson > 0 ? lesson_step(p.lesson).look : nullptr;
}

}  // namespace rv
