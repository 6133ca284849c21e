// RoPE at m for the formula and for the trained model, from the model's context and a Run it study of these weights.
#include "app/run/rope_verdict.hpp"

#include <cmath>
#include <cstdio>

#include "app/run/run_session.hpp"
#include "core/base/format.hpp"

namespace rv {

namespace {

// The moving-mean loss of the model's own curve around m over its in-range loss, when the session measured these
// weights at m; else the mean past the context over in range; NaN when neither was measured.
double measured_ratio(const App& app, long long m, bool& at_m) {
  at_m = false;
  const RunSession* s = find_run_session(app);
  const LoadedWeights* w = app.params.weights.get();
  if (!s || !w || s->serial != w->serial || s->model_curve < 0 || !(s->model_in > 0)) return std::nan("");
  const std::vector<double>& curve = s->smoothed[std::size_t(s->model_curve)];
  if (m >= 1 && m <= (long long)curve.size() && std::isfinite(curve[std::size_t(m - 1)])) {
    at_m = true;
    return curve[std::size_t(m - 1)] / s->model_in;
  }
  return s->model_past / s->model_in;
}

}  // namespace

void rope_verdict(const App& app, RopeVerdict& out) {
  const Params& p = app.params;
  const Model& model = app.model;
  const long long m = p.position, context = p.max_position;
  char at[28], rows[28];
  std::snprintf(out.formula, sizeof out.formula, "RoPE (formula): defined at every m, %d pairs, θ₀·m = %s rad",
                int(model.inv_freq.size()), format_sig(model.angles.size() ? model.angles[0] : 0.0).c_str());
  format_count(context, rows, sizeof rows);
  format_count(m, at, sizeof at);
  const LoadedWeights* w = p.weights.get();
  // A learned-table model has no RoPE: the trained half speaks of a RoPE model of its context, unnamed.
  const bool rope_model = !(model.real && model.real->info.absolute);
  const char* name = !rope_model ? "" : w ? w->label.c_str() : model.real ? model.real->name.c_str() : "";
  if (!rope_model) {
    out.kind = RopeVerdictKind::NotUsed;
    std::snprintf(out.formula, sizeof out.formula, "RoPE (formula only): %d pairs, θ₀·m = %s rad",
                  int(model.inv_freq.size()), format_sig(model.angles.size() ? model.angles[0] : 0.0).c_str());
    std::snprintf(out.trained, sizeof out.trained,
                  "%s has no RoPE: its positions are a learned table (below); the RoPE panels show the formula",
                  w ? w->label.c_str() : model.real->name.c_str());
    return;
  }
  if (m < context) {
    out.kind = RopeVerdictKind::InContext;
    if (*name)
      std::snprintf(out.trained, sizeof out.trained, "%s: m inside its %s-position context", name, rows);
    else
      std::snprintf(out.trained, sizeof out.trained, "a model trained to %s positions: m is inside them", rows);
    return;
  }
  bool at_m = false;
  const double ratio = measured_ratio(app, m, at_m);
  if (std::isfinite(ratio)) {
    const RunSession& s = *find_run_session(app);
    out.kind = RopeVerdictKind::PastMeasured;
    if (at_m)
      std::snprintf(out.trained, sizeof out.trained,
                    "%s, trained to %s positions: measured loss around m = %s is %s times its in-range loss (Run it)",
                    name, rows, at, format_sig(ratio, 2).c_str());
    else
      std::snprintf(out.trained, sizeof out.trained,
                    "%s, trained to %s positions: measured loss at %s-%lld is %s times its in-range loss (Run it, "
                    "windows of %lld: lengthen them to reach m)",
                    name, rows, rows, s.plan.length - 1, format_sig(ratio, 2).c_str(), s.plan.length);
    return;
  }
  out.kind = RopeVerdictKind::Past;
  if (*name)
    std::snprintf(out.trained, sizeof out.trained,
                  "%s, trained to %s positions: past them a trained model degrades unless rescaled; untested here "
                  "(Run it measures it)",
                  name, rows);
  else
    std::snprintf(out.trained, sizeof out.trained,
                  "a model trained to %s positions degrades past them unless rescaled (Run it measures a checkpoint)",
                  rows);
}

}  // namespace rv
