// App::trained (app/trained_table/trained_view.hpp): both sides of the trained-table panel from core's analysis.
#include "app/trained_table/trained_view.hpp"

#include <cstdio>

#include "app/state/weights.hpp"
#include "core/base/format.hpp"
#include "core/encodings/learned.hpp"

namespace rv {
namespace {

// The measured numbers of one side in words; each says what it was measured on.
std::string side_sentence(const TrainedSide& s, const char* what) {
  const LearnedTableAnalysis& a = s.analysis;
  std::string out =
      std::string(what) + " (" + s.name + ", " + format_count(a.rows) + " × " + format_count(a.dim) + "): ";
  char buf[256];
  if (a.rows < 2) {
    out += "one row, so no neighbours to compare";
  } else {
    const MeanSd n = mean_sd(a.neighbour_cos);
    std::snprintf(buf, sizeof buf, "neighbouring rows' cosine %.2f ± %.2f", n.mean, n.sd);
    out += buf;
  }
  if (a.rank90 == 0) {
    out += "; the centred table is zero (every row alike), so no direction holds any energy.";
    return out;
  }
  std::snprintf(buf, sizeof buf, "; 90%% of the centred table's energy in %d of %lld directions (99%% in %d).",
                a.rank90, (long long)a.singular_values.size(), a.rank99);
  return out + buf;
}

void fill_side(TrainedSide& s, const RowMatrixXd& P, const LearnedTableAnalysis* analysed) {
  s.analysis = analysed ? *analysed : analyze_learned_table(P);
  s.cosines = sampled_cosines(P, kTrainedCosineSide);
  s.component_absmax = s.analysis.components.size() ? s.analysis.components.cwiseAbs().maxCoeff() : 0.0;
}

}  // namespace

bool trained_view_current(const App& app) {
  const Params& p = app.params;
  const TrainedView& v = app.trained;
  return v.serial == weights_serial(p) && v.rows == p.max_position && v.dim == p.d_model() && v.seed == p.seed;
}

bool update_trained_view(App& app) {
  if (trained_view_current(app)) return false;
  const Params& p = app.params;
  TrainedView& v = app.trained;
  v.serial = weights_serial(p);
  v.rows = p.max_position;
  v.dim = p.d_model();
  v.seed = p.seed;
  const WeightsTable* loaded = loaded_table(p);
  v.has_trained = loaded != nullptr;
  v.sides[0] = TrainedSide{};
  v.sides[1] = TrainedSide{};
  if (loaded) {
    TrainedSide& t = v.sides[0];
    t.trained = true;
    t.name = table_name(p);
    fill_side(t, loaded->P, &loaded->analysis);
    t.sentence = side_sentence(t, "Trained, measured on this checkpoint's table");
  }
  TrainedSide& r = v.sides[1];
  r.name = loaded ? "seed " + std::to_string(p.seed) + ", the loaded table's shape"
                  : "the app's table, seed " + std::to_string(p.seed);
  const long long entries = v.rows * v.dim;
  if (entries > kTrainedAnalysisEntriesMax || std::min(v.rows, v.dim) > kTrainedAnalysisSideMax) {
    r.too_large = "A random " + format_count(v.rows) + " × " + format_count(v.dim) +
                  " table is too large to analyse here (up to " + format_count(kTrainedAnalysisEntriesMax) +
                  " entries with the smaller side at most " + format_count(kTrainedAnalysisSideMax) + ").";
    return true;
  }
  ++v.random_builds;
  // Without weights the app's own table is the frame's (Model::table); with weights, one of the loaded table's shape.
  if (!loaded && app.model.table_built && app.model.table.P.rows() == v.rows && app.model.table.P.cols() == v.dim)
    fill_side(r, app.model.table.P, nullptr);
  else
    fill_side(r, learned_table(int(v.rows), int(v.dim), p.seed).P, nullptr);
  r.sentence = side_sentence(r, "Random N(0, 0.02²) rows, as before training");
  return true;
}

}  // namespace rv
