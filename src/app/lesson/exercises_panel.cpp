// Exercises: the lesson's four, then three generated from the current settings. Each has an answer field per part,
// Check (core decides: right, wrong with the reason, or unreadable with what it expects), a hint, and once answered
// "Show me": the view that explains it, opened in the top bar while the exercise stays in sight.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/lesson/exercises_ui.hpp"
#include "app/state/params.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/lesson/verify.hpp"
#include "imgui.h"

namespace rv {
namespace {

// The top-bar panel that shows why, per exercise.
const char* view_panel(ExerciseId id) {
  switch (id) {
    case ExerciseId::Parameters:
    case ExerciseId::Shapes:
      return "shape_trace";
    case ExerciseId::FirstError:
      return "angle_field";
    default:
      return "rotations";
  }
}

ImU32 verdict_colour(Verdict v) {
  return v == Verdict::Right ? theme::kOk : v == Verdict::Wrong ? theme::kLearned : theme::kMuted;
}

// One button per exercise, coloured by its last verdict; the lesson's four, then the generated ones.
void picker(App& app) {
  const std::vector<Exercise>& all = app.model.exercises;
  ImGui::TextDisabled("Lesson:");
  for (int i = 0; i < int(all.size()); ++i) {
    if (i == 4) {  // a narrow panel wraps the row rather than cutting it
      same_line_if_fits(ImGui::CalcTextSize("  Past the lesson:").x);
      ImGui::TextDisabled("  Past the lesson:");
    }
    same_line_if_fits(ImGui::GetFrameHeight() * 1.5f);
    const Feedback* f = current_feedback(exercise_entry(app.ui, all[size_t(i)]), all[size_t(i)]);
    const bool selected = i == app.ui.exercise_shown;
    if (f) ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(verdict_colour(f->verdict)));
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    char label[16], name[24];
    std::snprintf(label, sizeof label, "%d", i + 1);
    if (ImGui::Button(label)) app.ui.exercise_shown = i;
    if (selected) ImGui::PopStyleColor();
    if (f) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) tooltip("%s", all[size_t(i)].title.c_str());
    std::snprintf(name, sizeof name, "ex_pick%d", i);
    record_rect(app.ui, name);
  }
}

void answer_fields(App& app, const Exercise& e, ExerciseEntry& entry, int index) {
  for (int k = 0; k < int(e.parts.size()) && k < kExercisePartsMax; ++k) {
    ImGui::PushID(k);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    if (ImGui::InputText("##answer", entry.answers[k], sizeof entry.answers[k], ImGuiInputTextFlags_EnterReturnsTrue))
      check_exercise_entry(app, index);
    if (ImGui::IsItemActive()) app.ui.typing_words = true;
    char name[24];
    std::snprintf(name, sizeof name, "ex_answer%d", k);
    record_rect(app.ui, name);
    ImGui::SameLine();
    ImGui::TextUnformatted(e.parts[size_t(k)].label.c_str());
    ImGui::PopID();
  }
}

void feedback_lines(const Feedback& f) {
  ImGui::TextColored(theme::vec(verdict_colour(f.verdict)), "%s", verdict_heading(f.verdict));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(f.message.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

ExerciseEntry& exercise_entry(Ui& ui, const Exercise& e) {
  return ui.exercises[int(e.id)];
}

const char* verdict_heading(Verdict v) {
  return v == Verdict::Right ? "Right." : v == Verdict::Wrong ? "Not yet:" : "Cannot check:";
}

const Feedback* current_feedback(const ExerciseEntry& entry, const Exercise& e) {
  return entry.feedback && entry.checked_prompt == e.prompt ? &*entry.feedback : nullptr;
}

void check_exercise_entry(App& app, int index) {
  const Exercise& e = app.model.exercises[size_t(index)];
  ExerciseEntry& entry = exercise_entry(app.ui, e);
  std::vector<std::string> answers;
  for (int k = 0; k < kExercisePartsMax; ++k) answers.emplace_back(entry.answers[k]);
  entry.feedback = check_exercise(e, answers);
  entry.checked_prompt = e.prompt;
}

bool check_exercise_answers(App& app, int index, const std::vector<std::string>& answers) {
  if (index < 0 || index >= int(app.model.exercises.size())) return false;
  ExerciseEntry& entry = exercise_entry(app.ui, app.model.exercises[size_t(index)]);
  for (int k = 0; k < kExercisePartsMax; ++k) {
    const std::string answer = k < int(answers.size()) ? answers[size_t(k)] : std::string();
    std::size_t n = std::min(answer.size(), sizeof entry.answers[k] - 1);
    while (n > 0 && n < answer.size() && (answer[n] & 0xC0) == 0x80) --n;  // not inside a UTF-8 character
    answer.copy(entry.answers[k], n);
    entry.answers[k][n] = '\0';
  }
  check_exercise_entry(app, index);
  return true;
}

std::string exercise_view_query(const Exercise& e) {
  std::string q;
  if (e.view.lesson_dims) {
    const VerifyConfig lesson;  // the lesson's dims and base, as core's checks use them
    const Dims& d = lesson.dims;
    q += "model=none&d_head=" + std::to_string(d.d_head) + "&heads=" + std::to_string(d.h) +
         "&batch=" + std::to_string(d.B) + "&seq_len=" + std::to_string(d.T) + "&vocab=" + std::to_string(d.V) +
         "&base=" + format_number(lesson.base) + "&pairing=interleaved&";
  }
  if (e.view.max_position > 0) q += "max_position=" + std::to_string(e.view.max_position) + "&";
  if (e.view.position >= 0) q += "position=" + std::to_string(e.view.position) + "&";
  return q + "tab_top=" + view_panel(e.id);
}

void show_exercise_view(App& app, int index) {
  apply_query(app.params, exercise_view_query(app.model.exercises[size_t(index)]), app.ui.notes);
}

void show_exercises(App& app) {
  const std::vector<Exercise>& all = app.model.exercises;
  if (all.empty()) return;
  int& index = app.ui.exercise_shown;
  index = std::min(std::max(index, 0), int(all.size()) - 1);
  picker(app);
  const Exercise& e = all[size_t(index)];
  ExerciseEntry& entry = exercise_entry(app.ui, e);
  ImGui::TextColored(theme::vec(theme::kRope), "%s", e.title.c_str());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(e.prompt.c_str());
  ImGui::PopTextWrapPos();
  answer_fields(app, e, entry, index);
  if (ImGui::Button("Check")) check_exercise_entry(app, index);
  record_rect(app.ui, "ex_check");
  ImGui::SameLine();
  if (ImGui::Button(entry.hint ? "Hide hint" : "Hint")) entry.hint = !entry.hint;
  record_rect(app.ui, "ex_hint");
  const Feedback* f = current_feedback(entry, e);
  if (f) {
    ImGui::SameLine();
    if (ImGui::Button("Show me")) show_exercise_view(app, index);
    record_rect(app.ui, "ex_show");
    hover_tip("Opens the view that shows why, in the top bar: its parameters and panel.");
  }
  if (entry.hint) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", e.hint.c_str());
    ImGui::PopTextWrapPos();
  }
  if (f) feedback_lines(*f);
}

std::string describe_exercises(const App& app) {
  const std::vector<Exercise>& all = app.model.exercises;
  if (all.empty()) return "Exercises panel: none for these settings.";
  const Exercise& e = all[size_t(std::min(std::max(app.ui.exercise_shown, 0), int(all.size()) - 1))];
  std::string s = "Exercises panel: " + std::to_string(all.size()) + " exercises; shown: " + e.title + ". " + e.prompt;
  const ExerciseEntry& entry = app.ui.exercises[int(e.id)];
  if (const Feedback* f = current_feedback(entry, e))
    s += std::string(f->verdict == Verdict::Right ? " Answered right: " : " Last answer: ") + f->message;
  return s;
}

}  // namespace rv
