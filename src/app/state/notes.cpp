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

long long pre_extension_length(const App& app) {
  const Model& model = app.model;
  if (!model.real || !model.real->info.rope) return 0;
  const RopeModel& rope = *model.real->info.rope;
  const long long original = rope.original_max_position_embeddings.value_or(0);
  return original != rope.max_position_embeddings.value_or(0) ? original : 0;
}

}  // namespace rv
