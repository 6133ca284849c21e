// The platform's side of what the UI asks for outside drawing (files to save, a picture, the link, a file picker),
// beside Gpu (app/ui/gpu.hpp): each loop implements a Host and calls serve_requests after every frame.
#pragma once
#include <optional>
#include <string>

#include "app/state/state.hpp"

namespace rv {

class Host {
 public:
  virtual ~Host() = default;
  // An export (Ui::pending_exports): a download, or a file in the working directory.
  virtual void save_file(App& app, const ExportFile& file) = 0;
  // The frame just drawn as a PNG named `name`: the region in framebuffer pixels, or all of it.
  virtual void save_picture(App& app, const std::string& name, const std::optional<Rect>& region) = 0;
  // The link to this view: the page's address, or the desktop's command line.
  virtual void copy_link(App& app) = 0;
  // A file picker for a config.json (only where Ui::can_open_files).
  virtual void open_config_picker(App& app) = 0;
  // A file picker for a checkpoint (a .safetensors, or an index and its shards, with a config.json), and a read of a
  // Hugging Face repo (Ui::weights_load.repo) by range requests: the page only (where Ui::can_open_files).
  virtual void open_weights_picker(App&) {}
  virtual void fetch_weights(App&) {}
  // One of the demo models the app ships (web/models/<name>): the desktop reads it from disk, the page fetches it.
  virtual void open_demo_model(App&, const std::string& name) = 0;
};

// Hands the frame's requests to the host and clears them. Returns true when another frame is needed first (a
// picture of a panel whose tab was just selected: ImGui shows it a frame or two later).
bool serve_requests(App& app, Host& host);

}  // namespace rv
