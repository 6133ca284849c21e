// The first screen's title and first step: the lesson or the drag past max_position, until either is taken (or the
// view is not the first one: a link, a checkpoint, a model), then never again this session.
#include "app/shell/shell.hpp"
#include "app/lesson/lesson_box.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "imgui.h"

namespace rv {

namespace {
// The first view: the lesson's defaults, nothing loaded, no lesson open.
bool first_view(const Params& p) {
  static const Params fresh;  // once: a Params allocates
  return p.lesson == 0 && p.position == fresh.position && p.max_position == fresh.max_position && p.model.empty() &&
         !p.weights;
}
}  // namespace

void show_intro(App& app) {
  Ui& ui = app.ui;
  if (ui.intro_done || !first_view(app.params)) {
    ui.intro_done = true;
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(theme::vec(theme::kRope), "ropeviz: how a transformer knows where a token is");
  ImGui::TextUnformatted("A learned table of positions against RoPE's rotations. Start here:");
  if (ImGui::Button("Start the lesson")) {
    start_lesson(app);
    ui.intro_done = true;
  }
  record_rect(ui, "intro_lesson");
  ImGui::SameLine();
  if (ImGui::SmallButton("x###intro_close")) ui.intro_done = true;
  hover_tip("Hide these lines (they go by themselves once you move m or open the lesson).");
  ImGui::TextDisabled(ui.narrow ? "or drag the slider above past max_position, the orange 10: the table fails, RoPE "
                                  "keeps rotating."
                                : "or drag the position slider below past max_position, the orange mark at 10: the "
                                  "learned table fails, RoPE keeps rotating.");
  ImGui::PopTextWrapPos();
  ImGui::Separator();
}

}  // namespace rv
