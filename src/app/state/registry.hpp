// The panel registry over the one list of panels (app/state/panel_list.hpp): each panel's link key, tab title, short
// title and bar, and the tab numbers links use (no drawing: app/panels/panel_calls.hpp draws them). Everything that
// names a panel (the tab bars, links, the #a11y text, tests) derives from it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

enum class Bar { Top = 0, Bottom = 1 };
constexpr Bar kBars[] = {Bar::Top, Bar::Bottom};

struct Panel {
  const char* key;    // stable link name: tab_top=precision; also names show_<key> and describe_<key>
  const char* title;        // the tab's label
  const char* short_title;  // the label when the bar is too narrow for every full title
  Bar bar;
};

const std::vector<Panel>& all_panels();
// A bar's panels in tab order. A panel's position here is its number in old links (tab_top=4),
// so new panels are only ever appended to a bar.
const std::vector<const Panel*>& bar_panels(Bar bar);
const Panel* find_panel(std::string_view key);

// The tab a link selects: Params::tab_top or tab_bottom.
int tab_of(const Params& p, Bar bar);
int& tab_of(Params& p, Bar bar);
// The panel Params select in a bar (a tab number out of range selects the last panel).
const Panel& selected_panel(const Params& p, Bar bar);
// "precision" -> its number in the bar; "4" -> 4 (old links); anything else -> nullopt.
// Numbers are returned as written (the caller clamps them with a note).
std::optional<long long> parse_tab(Bar bar, std::string_view text);
// The link key of tab number `tab` in `bar` (clamped into range).
const char* tab_key(Bar bar, int tab);
// "rotations, angle_field, ..." for messages.
std::string tab_keys(Bar bar);

}  // namespace rv
