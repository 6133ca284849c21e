// Each registry row's draw and describe functions (app/state/registry.hpp has the rows themselves).
#pragma once
#include <string>

#include "app/state/registry.hpp"

namespace rv {

void show_panel(const Panel& panel, App& app);                       // draws into the current ImGui window
std::string describe_panel(const Panel& panel, const App& app);      // what it shows now, in sentences (text layer)

}  // namespace rv
