// Recomputes the Model from Params through src/core, touching only what the change affects.
#pragma once
#include "app/state.hpp"

namespace rv {

// Brings app.model up to date with app.params. Cheap when nothing changed.
void update_model(const Params& params, Model& model);

}  // namespace rv
