// The guided lesson's box above the panels: the open step's text and live numbers with Back / Next / Close (the
// steps themselves: app/state/lesson_steps.cpp).
#include "app/lesson/lesson_box.hpp"
#include "app/state/lesson.hpp"

#include <cstdio>
#include <string>

#include "app/state/params.hpp"
#include "app/lesson/lesson_picture.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "imgui.h"

namespace rv {
namespace {

void step_buttons(App& app) {
  const int step = app.params.lesson;
  ImGui::BeginDisabled(step <= 1);
  if (ImGui::SmallButton("Back")) set(app.params, keys::lesson, step - 1, app.ui.notes);
  ImGui::EndDisabled();
  record_rect(app.ui, "lesson_back");
  ImGui::SameLine();
  ImGui::BeginDisabled(step >= kLessonSteps);
  if (ImGui::SmallButton("Next")) set(app.params, keys::lesson, step + 1, app.ui.notes);
  ImGui::EndDisabled();
  record_rect(app.ui, "lesson_next");
  ImGui::SameLine();
  if (ImGui::SmallButton("Close")) set(app.params, keys::lesson, 0, app.ui.notes);
  record_rect(app.ui, "lesson_close");
}

}  // namespace

void start_lesson(App& app) {
  set(app.params, keys::lesson, 1, app.ui.notes);
  app.ui.sheet_open = false;  // on a phone the lesson shows where the controls sheet was
}

void show_lesson_box(App& app) {
  const int step = app.params.lesson;
  if (step < 1) return;
  const LessonStep& s = lesson_step(step);
  char live[640];
  s.live(app, live, sizeof live);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float wrap = ImGui::GetContentRegionAvail().x - 2 * style.WindowPadding.x;
  const bool picture = step == 1;  // the lesson's two-panel picture opens the walk
  // The title beside the buttons when it fits; on a phone below them, wrapped (the box grows by its lines).
  char title[160];
  std::snprintf(title, sizeof title, "Lesson %s · %s", s.section, s.title);
  const float buttons = ImGui::CalcTextSize("BackNextClose").x + 6 * style.FramePadding.x + 3 * style.ItemSpacing.x;
  const float title_w = ImGui::CalcTextSize(title).x + style.ItemSpacing.x + ImGui::CalcTextSize("(step 7 of 7)").x;
  const bool beside = buttons + title_w <= wrap;
  const float title_h = beside ? 0.0f : ImGui::CalcTextSize(title, nullptr, false, wrap).y + style.ItemSpacing.y;
  const float height = ImGui::GetFrameHeightWithSpacing() + title_h +
                       ImGui::CalcTextSize(s.text, nullptr, false, wrap).y +
                       ImGui::CalcTextSize(live, nullptr, false, wrap).y + 2 * style.ItemSpacing.y +
                       2 * style.WindowPadding.y + (picture ? lesson_picture_height(wrap, app.ui.scale) : 0.0f);
  ImGui::PushStyleColor(ImGuiCol_Border, theme::kRope);
  ImGui::BeginChild("lesson", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar | kChildFlags);
  step_buttons(app);  // first, so they stay in place from step to step
  ImGui::SameLine();
  if (beside) {
    ImGui::TextColored(theme::vec(theme::kRope), "%s", title);
    ImGui::SameLine();
    ImGui::TextDisabled("(step %d of %d)", step, kLessonSteps);
  } else {
    ImGui::TextDisabled("(step %d of %d)", step, kLessonSteps);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(theme::vec(theme::kRope), "%s", title);
    ImGui::PopTextWrapPos();
  }
  if (picture) draw_lesson_picture(app, wrap);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(s.text);
  ImGui::TextColored(theme::vec(theme::kOk), "%s", live);
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

}  // namespace rv
