// The trained-table panel's data: a loaded checkpoint's learned table beside a random one of its shape, analysed by
// core once per load (or per frame change without weights) and kept in App::trained.
#pragma once
#include "app/state/state.hpp"

namespace rv {

constexpr int kTrainedCosineSide = 48;  // sampled positions per side of the cosine heatmap
// The random side is analysed only up to this size (the analysis costs ~min(rows, dim)^2 max(rows, dim)).
constexpr long long kTrainedAnalysisEntriesMax = 1 << 22;
constexpr long long kTrainedAnalysisSideMax = 1024;

// Rebuilds App::trained when the weights serial, the frame (max_position x d) or the seed changed; true if it did.
bool update_trained_view(App& app);
// App::trained was built for the current weights and frame.
bool trained_view_current(const App& app);

}  // namespace rv
