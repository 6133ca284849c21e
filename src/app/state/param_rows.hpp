// The link-key table's row kinds and builders: parse (clamping, with notes), encode and compare one Params member,
// for the table in params.cpp and for a room's own rows (<room>_keys.hpp), which that table places in Key's order.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "app/state/params.hpp"
#include "core/base/format.hpp"

namespace rv::rows {

using Notes = std::vector<std::string>;

// A value as a note quotes it: 'text', cut at 40 characters.
std::string quoted(std::string_view s);

// A whole number in [lo, hi], clamped with a note; v is the value read (nullopt: unreadable), text as it was given.
template <class Int>
bool set_int(Int& field, std::string_view key, std::string_view text, std::optional<double> v, long long lo,
             long long hi, std::vector<std::string>& notes) {
  if (!v || *v != std::floor(*v)) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " is not a whole number; kept " + std::to_string(field));
    return false;
  }
  double clamped = std::fmin(std::fmax(*v, double(lo)), double(hi));
  if (clamped != *v)
    notes.push_back(std::string(key) + "=" + quoted(text) + " is outside [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]; using " + std::to_string((long long)clamped));
  field = static_cast<Int>(clamped);
  return true;
}

// A finite number in (above, hi]: rejected (kept) when not a number or <= above, clamped with a note above hi.
bool set_real(double& field, std::string_view key, std::string_view text, std::optional<double> v, double above,
              double hi, std::vector<std::string>& notes);

// [SECTION] row kinds: parse, encode and compare one member, chosen by a pointer-to-member

template <auto M>
bool member_equal(const Params& a, const Params& b) {
  return a.*M == b.*M;
}
template <auto M>
std::string encode_integer(const Params& p) {
  return std::to_string(p.*M);
}
template <auto M>
std::string encode_real(const Params& p) {
  return format_number(p.*M);
}
template <auto M>
bool parse_integer(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  return set_int(p.*M, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes);
}
// A whole number; an odd one is bumped to the next even value (the previous when at the limit).
template <auto M>
bool parse_even(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  auto v = p.*M;
  if (!set_int(v, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes)) return false;
  if (v % 2 != 0) {
    const auto even = double(v + 1) <= f.hi ? v + 1 : v - 1;
    notes.push_back(std::string(f.key) + "=" + quoted(text) + " is odd: RoPE rotates pairs; using " +
                    std::to_string(even));
    v = even;
  }
  p.*M = v;
  return true;
}
template <auto M>
bool parse_whole_real(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  long long whole = (long long)(p.*M);
  if (!set_int(whole, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes)) return false;
  p.*M = double(whole);
  return true;
}
template <auto M>
bool parse_real(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  return set_real(p.*M, f.key, in.text, in.number, f.lo, f.hi, notes);
}
template <auto M, auto Parse, auto Name>
bool parse_enum(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  using E = std::decay_t<decltype(p.*M)>;
  // A typed choice is taken when a link could carry it (a link cannot choose longrope: its factors are a model's).
  const auto v = in.choice >= 0 && Parse(Name(E(in.choice))) ? std::optional<E>(E(in.choice)) : Parse(in.text);
  if (!v) {
    notes.push_back(std::string(f.key) + "=" + quoted(in.text) + " is not " + f.choices + "; kept " + Name(p.*M));
    return false;
  }
  p.*M = *v;
  return true;
}
template <auto M, auto Name>
std::string encode_enum(const Params& p) {
  return Name(p.*M);
}

// [SECTION] row builders: one call per link key

template <auto M>
constexpr ParamField integer(const char* key, double lo, double hi, const char* help) {
  return {key, FieldKind::Integer, lo, hi, help, parse_integer<M>, encode_integer<M>, member_equal<M>, ""};
}
template <auto M>
constexpr ParamField even_integer(const char* key, double lo, double hi, const char* help) {
  return {key, FieldKind::EvenInteger, lo, hi, help, parse_even<M>, encode_integer<M>, member_equal<M>, ""};
}
template <auto M>
constexpr ParamField whole_real(const char* key, double lo, double hi, const char* help) {
  return {key, FieldKind::WholeReal, lo, hi, help, parse_whole_real<M>, encode_real<M>, member_equal<M>, ""};
}
template <auto M>
constexpr ParamField real_above(const char* key, double above, double hi, const char* help) {
  return {key, FieldKind::RealAbove, above, hi, help, parse_real<M>, encode_real<M>, member_equal<M>, ""};
}
template <auto M, auto Parse, auto Name>
constexpr ParamField enumeration(const char* key, const char* choices, const char* help) {
  return {key, FieldKind::Enum, 0, 0, help, parse_enum<M, Parse, Name>, encode_enum<M, Name>, member_equal<M>, choices};
}

}  // namespace rv::rows
