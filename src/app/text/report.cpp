// State as JSON (for scripts and tests) and as sentences (for screen readers), from one App:
// a summary, then the sentences of the two panels on screen (describe_panel, app/panels/panel_calls.hpp).
#include "app/text/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/lab/lab_session.hpp"
#include "app/rope_usage/usage.hpp"
#include "app/run/rope_verdict.hpp"
#include "app/run/run_session.hpp"
#include "app/lesson/exercises_ui.hpp"
#include "app/lesson/lesson_state_json.hpp"
#include "app/panels/panel_calls.hpp"
#include "app/state/export.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/lesson.hpp"
#include "app/state/notes.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/state/weights.hpp"
#include "app/lesson/lesson_picture.hpp"
#include "core/base/json_writer.hpp"

namespace rv {
namespace {
constexpr int kDescribedPairsMax = 8;
}  // namespace

std::string describe_model(const App& app) {
  const Model& model = app.model;
  if (!model.real) return "";
  const RealModel& r = *model.real;
  std::string s = "Model: " + r.name + ", from " + r.source + ". ";
  if (r.info.absolute)
    return s + "Its positions are a learned table of " + format_count(app.params.max_position) +
           " rows; it has no RoPE (the RoPE panels show what RoPE would do at its head size). ";
  const RopeModel& rope = *r.info.rope;
  s += "RoPE with base " + format_sig(rope.base) + ", rope_type " + rope.rope_type + ", " +
       format_count(rope.rotary_dims) + " of " + format_count(rope.head_dim) + " head dimensions rotate";
  const int still = int(model.inv_freq.size()) - model.rotary_pairs;
  if (still > 0) s += " (the other " + plural(still, "pair passes", "pairs pass") + " through unchanged)";
  s += "; context " + format_count(app.params.max_position) + " positions";
  if (rope.attention_factor != 1.0) s += "; attention factor " + format_sig(rope.attention_factor);
  return s + ". ";
}

// A RoPE model has no learned table: the one shown is what its context would need.
bool table_is_hypothetical(const App& app) {
  return app.model.real && app.model.real->info.rope;
}

std::string lookup_sentence(const App& app) {
  const std::string at = format_count(app.params.position);
  const bool would = table_is_hypothetical(app);
  if (app.model.lookup_error)
    return std::string(would ? "It could not serve position " : "It cannot serve position ") + at + ": " +
           app.model.lookup_error->full() + ".";
  return std::string(would ? "It would serve position " : "It serves position ") + at + " by looking up row P[" +
         std::to_string(app.params.position) + "].";
}

std::string score_sentence(const App& app) {
  const Params& p = app.params;
  return "Score of the query at m = " + format_count(p.position) +
         " with the key at n = " + format_count(p.key_position) + " (offset " +
         format_count(p.position - p.key_position) + "): " + format_sig(app.model.score) + ".";
}

std::string lesson_step_sentences(const App& app) {
  const int n = app.params.lesson;
  if (n <= 0) return "";
  const LessonStep& step = lesson_step(n);
  char live[640];
  step.live(app, live, sizeof live);
  std::string s = std::string(step.text) + " " + live;
  if (n == 1) {  // its picture, in words
    char picture[768];
    lesson_picture_text(app, picture, sizeof picture);
    s += std::string(" ") + picture;
  }
  return s;
}

std::string describe(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  std::string s = describe_model(app) + "Position m = " + format_count(p.position) + ". ";
  s += std::string("Learned absolute") +
       (table_is_hypothetical(app) ? " (hypothetical: " + model.real->name +
                                         " uses RoPE and has no such table; this is the one its context would need)"
                                   : std::string()) +
       (loaded_table(p) ? " (" + table_name(p) + ", its trained values)" : std::string()) + ": the table P has " +
       plural(p.max_position, "row", "rows") +
       (p.max_position == 1 ? " (position 0)" : " (positions 0 to " + format_count(p.max_position - 1) + ")") +
       " of width d = " + format_count(p.d_model()) + ". " + lookup_sentence(app) + " ";
  const int pairs = int(model.inv_freq.size());
  RopeVerdict verdict;  // the strip's two halves: the formula, and a model trained to the context
  rope_verdict(app, verdict);
  s += "RoPE is defined at any position (the formula; for a trained model, " + std::string(verdict.trained) +
       "): it rotates " + plural(pairs, "dimension pair", "dimension pairs") + " of Q and K by m times theta_i";
  const int shown = std::min(pairs, kDescribedPairsMax);
  std::string thetas, angles;
  for (int i = 0; i < shown; ++i) {
    thetas += (i ? ", " : "") + format_sig(model.inv_freq[i]);
    angles += (i ? ", " : "") + format_sig(model.angles[i]);
  }
  s += "; theta = " + thetas + (shown < pairs ? ", ..." : "") + "; angles in radians = " + angles +
       (shown < pairs ? ", ..." : "") + ". " + score_sentence(app);
  if (p.lesson > 0) {  // the open lesson step's text and live numbers, as its box shows them
    const LessonStep& step = lesson_step(p.lesson);
    s += " Lesson step " + std::to_string(p.lesson) + " of " + std::to_string(kLessonSteps) + ", section " +
         step.section + ", " + step.title + ": " + lesson_step_sentences(app);
  }
  for (Bar bar : kBars) s += " " + describe_panel(selected_panel(p, bar), app);
  for (const std::string& note : app.ui.notes)
    s += (note_kind(note) == NoteKind::Info ? " Done: " : " Note: ") + note_in_full(app.ui, note) + ".";
  return s;
}

// state().weights (docs/window-ropeviz.md): null, or what the loaded checkpoint holds and what was read of it.
void weights_state(JsonWriter& j, const App& app) {
  j.key("weights");
  const LoadedWeights* w = app.params.weights.get();
  if (!w) {
    j.null();
  } else {
    j.begin_object().key("source").value(w->label).key("tensors").value((long long)w->tensors.size());
    j.key("header_bytes").value((long long)w->header_bytes).key("file_bytes").value((long long)w->file_bytes);
    j.key("bytes_read")
        .value((long long)(w->bytes_read + (app.usage.serial == w->serial ? app.usage.bytes_read : 0)))
        .key("model_type")
        .value(w->model_type);
    j.key("learned_table");
    if (w->table) {
      const WeightsTable& t = *w->table;
      j.begin_object().key("tensor").value(t.tensor).key("rows").value((long long)t.P.rows());
      j.key("dim").value((long long)t.P.cols()).key("offset").value(t.offset).key("dtype").value(t.dtype);
      j.key("rank90").value(t.analysis.rank90).key("rank99").value(t.analysis.rank99);
      j.key("neighbour_cos_mean").value(t.analysis.neighbour_cos.size() ? t.analysis.neighbour_cos.mean() : 0.0);
      j.key("analysis_ms").value(t.analysis_ms);
      j.end_object();
    } else {
      j.null();
    }
    rope_usage_state(j, app.usage);
    j.key("vocab").value(w->vocab).key("tokenizer");
    if (const LoadedTokenizer* t = w->tokenizer.get()) {
      j.begin_object().key("name").value(t->name).key("tokens").value((long long)t->tokenizer.id_to_token.size());
      j.key("ids").value(t->ids).key("fits").value(tokenizer_fit(*t, w->vocab).empty()).end_object();
    } else {
      j.null();
    }
    j.end_object();
  }
  const WeightsLoad& l = app.ui.weights_load;
  j.key("weights_load").begin_object().key("active").value(l.active).key("what").value(l.what);
  j.key("done").value((long long)l.done).key("total").value((long long)l.total).end_object();
}

// The score curve's q and k (link key qk; drawn: what the curve shows, random when layer 0 cannot be read) and its
// numbers at offsets 0..8 (r = m - n >= 0), the bounds' at 0.
static void score_curve_state(JsonWriter& j, const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  j.key("score_curve")
      .begin_object()
      .key("qk")
      .value(score_qk_name(p.qk))
      .key("drawn")
      .value(score_qk_name(model.qk_drawn));
  j.key("q_token").value(p.q_token).key("k_token").value(p.k_token).key("head").value(p.qk_head);
  j.key("error");
  if (model.qk_error.empty())
    j.null();
  else
    j.value(model.qk_error);
  const std::size_t zero = model.curve_a.size() / 2, n = std::min<std::size_t>(9, model.curve_a.size() - zero);
  j.key("scores").values(model.curve_a.data() + zero, int(n));
  j.key("cauchy_schwarz")
      .value(model.cauchy_schwarz)
      .key("abel_0")
      .value(model.bound.empty() ? 0.0 : model.bound[zero]);
  j.key("rms").value(model.curve_rms).key("words").value(model.qk_words).end_object();
}

std::string state_json(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  JsonWriter j;
  j.begin_object();
  j.key("position").value(p.position).key("key_position").value(p.key_position);
  j.key("max_position").value(p.max_position).key("d_head").value(p.d_head).key("d_model").value(p.d_model());
  j.key("heads").value(p.heads).key("batch").value(p.batch).key("seq_len").value(p.seq_len);
  j.key("vocab").value(p.vocab).key("base").value(p.base).key("pairing").value(pairing_name(p.pairing));
  j.key("seed").value((long long)p.seed).key("offsets").value(p.offsets);
  j.key("model");  // a preset's name; null for free parameters and for a loaded config.json (model_label names it)
  if (model.real && p.model != kLoadedModel)
    j.value(model.real->name);
  else
    j.null();
  j.key("model_label");
  if (model.real)
    j.value(model.real->name);
  else
    j.null();
  j.key("absolute").begin_object().key("ok").value(!model.lookup_error.has_value()).key("error");
  if (model.lookup_error)
    j.value(model.lookup_error->full());
  else
    j.null();
  j.key("params").value(learned_param_count(p.max_position, p.d_model())).end_object();
  j.key("rope").begin_object().key("ok").value(true);
  j.key("theta").values(model.inv_freq.data(), int(model.inv_freq.size()));
  j.key("angle").values(model.angles.data(), int(model.angles.size()));
  j.key("rotary_pairs").value(model.rotary_pairs).key("attention_factor").value(model.attention_factor_model);
  j.key("params").value(0).end_object();
  j.key("score").value(model.score).key("norm_max_diff").value(model.norm_max_diff);
  score_curve_state(j, app);
  j.key("relative_spread")
      .value(model.relative_spread)
      .key("tab_top")
      .value(p.tab_top)
      .key("tab_bottom")
      .value(p.tab_bottom)
      .key("panel_top")
      .value(tab_key(Bar::Top, p.tab_top))
      .key("panel_bottom")
      .value(tab_key(Bar::Bottom, p.tab_bottom));
  j.key("scaling").begin_object().key("type").value(scaling_name(p.scaling)).key("factor").value(p.factor);
  j.key("theta").values(model.scaled_inv_freq.data(), int(model.scaled_inv_freq.size()));
  j.key("attention_factor").value(model.attention_factor).end_object();
  j.key("hovered_scroll").begin_object().key("y").value(double(app.ui.hovered_scroll[0]));
  j.key("max").value(double(app.ui.hovered_scroll[1])).end_object();
  weights_state(j, app);
  lab_state(j, app.lab);
  run_state(j, app);
  learn_state(j, app);
  j.key("frame_ms").value(app.ui.frame_ms).key("frames").value(app.ui.frames);
  j.key("focus");  // the control the keyboard focus is on (after Tab), by its rect() name
  if (app.ui.focus.empty())
    j.null();
  else
    j.value(app.ui.focus);
  j.key("notes").values(app.ui.notes).key("hash").value(encode_query(p));
  j.end_object();
  return j.str();
}

ExportFile export_state_json(const App& app) {
  return {"ropeviz-state-" + export_tag(app.params) + ".json", "application/json", state_json(app) + "\n"};
}

}  // namespace rv
