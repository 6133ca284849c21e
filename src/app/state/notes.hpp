// Words the shell and the text layer share about the state: what kind a note is, and which training length a model
// names.
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

// A note is a warning (a rejected or clamped value) or info (a confirmation such as "copied: ..."); show_notes
// colours it by kind.
enum class NoteKind { Info, Warning };
NoteKind note_kind(const std::string& note);
// A note with what it stands for (its Ui::note_details, shown behind a disclosure on screen) for the text layer: "...;
// no learned position table: looked for ...; the checkpoint holds a, b, ... (291 tensors)". The note alone without.
std::string note_in_full(const Ui& ui, const std::string& note);
// The chosen model's original_max_position_embeddings when its context was extended past it (Llama 3.1: 8192),
// else 0: the length before extension, not necessarily a training length.
long long pre_extension_length(const App& app);

}  // namespace rv
