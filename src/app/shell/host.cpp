// serve_requests: the frame's pending files, picture, link and file pick, handed to the platform's Host.
#include "app/shell/host.hpp"

#include "app/state/export.hpp"

namespace rv {

namespace {
constexpr int kPictureWaitFrames = 10;  // frames a picture of a panel waits for it to show (then: the whole window)
}

bool serve_requests(App& app, Host& host) {
  Ui& ui = app.ui;
  for (const ExportFile& file : ui.pending_exports) host.save_file(app, file);
  ui.pending_exports.clear();
  if (ui.pending_picture) {
    const std::optional<Rect> region = picture_region(app);
    if (!region && !ui.picture_panel.empty() && ++ui.picture_waits < kPictureWaitFrames) return true;
    ui.pending_picture = false;
    ui.picture_waits = 0;
    host.save_picture(app, picture_name(app, region ? ui.picture_panel : ""), region);
  }
  if (ui.pending_open_config) {
    ui.pending_open_config = false;
    host.open_config_picker(app);
  }
  if (ui.weights_load.pending_open) {
    ui.weights_load.pending_open = false;
    host.open_weights_picker(app);
  }
  if (ui.weights_load.pending_fetch) {
    ui.weights_load.pending_fetch = false;
    host.fetch_weights(app);
  }
  if (!ui.weights_load.pending_demo.empty()) {
    const std::string name = std::move(ui.weights_load.pending_demo);
    ui.weights_load.pending_demo.clear();
    host.open_demo_model(app, name);
  }
  if (ui.pending_copy_link) {
    ui.pending_copy_link = false;
    host.copy_link(app);
  }
  return false;
}

}  // namespace rv
