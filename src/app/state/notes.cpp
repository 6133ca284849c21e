// A note's kind and a model's length before context extension (app/state/notes.hpp).
#include "app/state/notes.hpp"

namespace rv {

NoteKind note_kind(const std::string& note) {
  // Confirmations: "copied: ropeviz --state ..." (desktop), "copied the link to this view" (web/page.js),
  // "saved angles.csv in the working directory" (desktop), "loaded config.json", "reset to the lesson's defaults".
  // Everything else reports a refused or adjusted input.
  for (const char* info : {"copied", "saved ", "loaded ", "reset "})
    if (note.rfind(info, 0) == 0) return NoteKind::Info;
  return NoteKind::Warning;
}

std::string note_in_full(const Ui& ui, const std::string& note) {
  const auto details = ui.note_details.find(note);
  if (details == ui.note_details.end()) return note;
  const NoteDetails& d = details->second;
  constexpr size_t kShown = 20;  // a checkpoint's first names, as core's message lists them
  std::string out = note + ": " + d.text;
  for (size_t i = 0; i < d.lines.size() && i < kShown; ++i) out += (i ? ", " : " ") + d.lines[i];
  if (d.lines.size() > kShown) out += ", ... (" + std::to_string(d.lines.size()) + ")";
  return out;
}

long long pre_extension_length(const App& app) {
  const Model& model = app.model;
  if (!model.real || !model.real->info.rope) return 0;
  const RopeModel& rope = *model.real->info.rope;
  const long long original = rope.original_max_position_embeddings.value_or(0);
  return original != rope.max_position_embeddings.value_or(0) ? original : 0;
}

}  // namespace rv
