// Exports of what the app shows, as text files made from the state: the per-pair table, the score curve and the
// models as CSV, a picture's name and region (the lab's own: app/lab/lab_export.hpp). The panels' buttons make them
// (so they sit below the panels); app/shell/host.hpp hands them to the platform (a download, or a file on disk).
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

// A CSV text field in double quotes, inner quotes doubled (RFC 4180).
std::string csv_quoted(const std::string& text);
// "m100-d8": the view in a file name.
std::string export_tag(const Params& p);
// pair i: theta_i, m*theta_i, (m*theta_i) mod 2pi, wavelength, q's pair before and after RoPE, k's after.
ExportFile export_angles_csv(const App& app);
// offset r = m - n, score at anchor n, score at anchor n + shift (they coincide: RoPE is relative).
ExportFile export_score_csv(const App& app);
// Every preset (model_catalog): base, dims, pairing, scaling, context, critical dim, first negative B(m), costs.
ExportFile export_models_csv(const App& app, const std::vector<CatalogRow>& rows);
// The file name of a picture of the current view, "ropeviz-m100-d8.png", or of one panel, "ropeviz-lab-m100-d8.png".
std::string picture_name(const App& app, const std::string& panel = "");
// The region of the picture the UI asked for, in device pixels: the panel's (Ui::picture_panel) as last drawn, or
// nullopt for the whole window.
std::optional<Rect> picture_region(const App& app);

}  // namespace rv
