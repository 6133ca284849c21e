// Enum <-> name, from one table per enum: a value's first row is its canonical name, later rows are the other
// spellings a reader accepts (names_of lists the canonical ones in table order).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace rv {

template <class E>
struct Named {
  E value;
  const char* name;
};

template <class E, std::size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
  for (const Named<E>& row : table)
    if (row.value == value) return row.name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> parse_name(const Named<E> (&table)[N], std::string_view name) {
  for (const Named<E>& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

// The canonical names, once each, in table order.
template <class E, std::size_t N>
std::vector<const char*> names_of(const Named<E> (&table)[N]) {
  std::vector<const char*> out;
  for (std::size_t i = 0; i < N; ++i) {
    bool first = true;
    for (std::size_t j = 0; j < i; ++j) first = first && table[j].value != table[i].value;
    if (first) out.push_back(table[i].name);
  }
  return out;
}

}  // namespace rv
