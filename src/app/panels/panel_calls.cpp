// show_<key> and describe_<key> for every row of app/state/panel_list.hpp, in the registry's order.
#include "app/panels/panel_calls.hpp"

#include "app/state/panel_list.hpp"

namespace rv {

#define RV_DECLARE_PANEL(key, title, short_title, bar) \
  void show_##key(App&);                               \
  std::string describe_##key(const App&);
RV_PANELS(RV_DECLARE_PANEL)
#undef RV_DECLARE_PANEL

namespace {
struct PanelCalls {
  void (*show)(App&);
  std::string (*describe)(const App&);
};
#define RV_PANEL_CALLS(key, title, short_title, bar) {show_##key, describe_##key},
constexpr PanelCalls kCalls[] = {RV_PANELS(RV_PANEL_CALLS)};
#undef RV_PANEL_CALLS

// all_panels() holds the rows in the same order as calls[].
const PanelCalls& calls_of(const Panel& panel) {
  return kCalls[&panel - all_panels().data()];
}
}  // namespace

void show_panel(const Panel& panel, App& app) {
  calls_of(panel).show(app);
}

std::string describe_panel(const Panel& panel, const App& app) {
  return calls_of(panel).describe(app);
}

}  // namespace rv
