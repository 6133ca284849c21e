// The panel registry: keys, titles and bars from app/state/panel_list.hpp, and the tab numbers links use.
#include "app/state/registry.hpp"

#include <algorithm>
#include <cstdlib>

#include "app/state/panel_list.hpp"

namespace rv {

const std::vector<Panel>& all_panels() {
#define RV_PANEL_ENTRY(key, title, short_title, bar) {#key, title, short_title, Bar::bar},
  static const std::vector<Panel> list = {RV_PANELS(RV_PANEL_ENTRY)};
#undef RV_PANEL_ENTRY
  return list;
}

const std::vector<const Panel*>& bar_panels(Bar bar) {
  static const auto split = [] {
    std::vector<std::vector<const Panel*>> out(std::size(kBars));
    for (const Panel& p : all_panels()) out[size_t(p.bar)].push_back(&p);
    return out;
  }();
  return split[size_t(bar)];
}

const Panel* find_panel(std::string_view key) {
  for (const Panel& p : all_panels())
    if (key == p.key) return &p;
  return nullptr;
}

int tab_of(const Params& p, Bar bar) {
  return bar == Bar::Top ? p.tab_top : p.tab_bottom;
}

int& tab_of(Params& p, Bar bar) {
  return bar == Bar::Top ? p.tab_top : p.tab_bottom;
}

const Panel& selected_panel(const Params& p, Bar bar) {
  const auto& list = bar_panels(bar);
  return *list[size_t(std::clamp(tab_of(p, bar), 0, int(list.size()) - 1))];
}

std::optional<long long> parse_tab(Bar bar, std::string_view text) {
  const auto& list = bar_panels(bar);
  for (size_t i = 0; i < list.size(); ++i)
    if (text == list[i]->key) return (long long)i;
  if (text.empty() || text.size() > 18) return std::nullopt;
  const std::string digits(text);
  char* end = nullptr;
  const long long n = std::strtoll(digits.c_str(), &end, 10);
  if (end != digits.c_str() + digits.size()) return std::nullopt;
  return n;
}

const char* tab_key(Bar bar, int tab) {
  const auto& list = bar_panels(bar);
  return list[size_t(std::clamp(tab, 0, int(list.size()) - 1))]->key;
}

std::string tab_keys(Bar bar) {
  std::string out;
  for (const Panel* p : bar_panels(bar)) out += (out.empty() ? "" : ", ") + std::string(p->key);
  return out;
}

}  // namespace rv
