// Params from and to text: parsing with clear notes, clamping to Limits, the URL-hash encoding.
#include "app/params.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/registry.hpp"

namespace rv {

bool Params::operator==(const Params& o) const {
  return position == o.position && key_position == o.key_position && max_position == o.max_position &&
         d_head == o.d_head && heads == o.heads && batch == o.batch && seq_len == o.seq_len && vocab == o.vocab &&
         base == o.base && pairing == o.pairing && seed == o.seed && offsets == o.offsets && tab_top == o.tab_top &&
         tab_bottom == o.tab_bottom && scaling == o.scaling && factor == o.factor && original_max == o.original_max &&
         low_freq == o.low_freq && high_freq == o.high_freq && beta_fast == o.beta_fast && beta_slow == o.beta_slow;
}

namespace {

std::string quoted(std::string_view s) {
  std::string out(s.substr(0, 40));
  if (s.size() > 40) out += "...";
  return "'" + out + "'";
}

// Parses a finite number (integers may be written as 1e6); rejects trailing junk, NaN and inf.
std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

template <class Int>
bool set_int(Int& field, std::string_view key, std::string_view text, long long lo, long long hi,
             std::vector<std::string>& notes) {
  auto v = parse_number(text);
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
bool set_real(double& field, std::string_view key, std::string_view text, double above, double hi,
              std::vector<std::string>& notes) {
  auto v = parse_number(text);
  if (!v || *v <= above) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " must be a number greater than " + format_number(above) +
                    "; kept " + format_number(field));
    return false;
  }
  if (*v > hi) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " is above " + format_number(hi) + "; using that");
    *v = hi;
  }
  field = *v;
  return true;
}

// A tab by its panel's key (tab_top=precision) or, from old links, by its number in the bar.
bool set_tab(Params& p, Bar bar, std::string_view key, std::string_view text, std::vector<std::string>& notes) {
  const std::optional<long long> tab = parse_tab(bar, text);
  if (!tab) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " is not one of " + tab_keys(bar) + "; kept " +
                    tab_key(bar, tab_of(p, bar)));
    return false;
  }
  const long long last = (long long)bar_panels(bar).size() - 1;
  return set_int(tab_of(p, bar), key, std::to_string(*tab), 0, last, notes);
}

}  // namespace

bool set_param(Params& p, std::string_view key, std::string_view value, std::vector<std::string>& notes) {
  if (key == "position") return set_int(p.position, key, value, 0, Limits::position_max, notes);
  if (key == "key_position") return set_int(p.key_position, key, value, 0, Limits::position_max, notes);
  if (key == "max_position") return set_int(p.max_position, key, value, 1, Limits::max_position_max, notes);
  if (key == "heads") return set_int(p.heads, key, value, 1, Limits::heads_max, notes);
  if (key == "batch") return set_int(p.batch, key, value, 1, Limits::batch_max, notes);
  if (key == "seq_len") return set_int(p.seq_len, key, value, 1, Limits::seq_len_max, notes);
  if (key == "vocab") return set_int(p.vocab, key, value, 1, Limits::vocab_max, notes);
  if (key == "offsets") return set_int(p.offsets, key, value, 1, Limits::offsets_max, notes);
  if (key == "tab_top") return set_tab(p, Bar::Top, key, value, notes);
  if (key == "tab_bottom") return set_tab(p, Bar::Bottom, key, value, notes);
  if (key == "factor") return set_real(p.factor, key, value, 0.0, Limits::factor_max, notes);
  if (key == "low_freq") return set_real(p.low_freq, key, value, 0.0, Limits::factor_max, notes);
  if (key == "high_freq") return set_real(p.high_freq, key, value, 0.0, Limits::factor_max, notes);
  if (key == "beta_fast") return set_real(p.beta_fast, key, value, 0.0, Limits::factor_max, notes);
  if (key == "beta_slow") return set_real(p.beta_slow, key, value, 0.0, Limits::factor_max, notes);
  if (key == "original_max") {
    double v = p.original_max;
    long long whole = (long long)v;
    if (!set_int(whole, key, value, 1, (long long)Limits::original_max_max, notes)) return false;
    p.original_max = double(whole);
    return true;
  }
  if (key == "scaling") {
    auto type = parse_scaling(value);
    if (!type) {
      notes.push_back("scaling=" + quoted(value) + " is not none, linear, dynamic, yarn or llama3; kept " +
                      scaling_name(p.scaling));
      return false;
    }
    p.scaling = *type;
    return true;
  }
  if (key == "seed") return set_int(p.seed, key, value, 0, Limits::seed_max, notes);
  if (key == "d_head") {
    int d = p.d_head;
    if (!set_int(d, key, value, 2, Limits::d_head_max, notes)) return false;
    if (d % 2 != 0) {
      notes.push_back("d_head=" + quoted(value) + " is odd: RoPE rotates pairs; using " + std::to_string(d + 1));
      d += 1;
    }
    p.d_head = d;
    return true;
  }
  if (key == "base") return set_real(p.base, key, value, 1.0, Limits::base_max, notes);
  if (key == "pairing") {
    auto pairing = parse_pairing(value);
    if (!pairing) {
      notes.push_back("pairing=" + quoted(value) + " is not 'interleaved' or 'half_split'; kept " +
                      pairing_name(p.pairing));
      return false;
    }
    p.pairing = *pairing;
    return true;
  }
  return true;  // unknown keys are ignored, as links from newer versions may carry more
}

void enforce_limits(Params& p, std::vector<std::string>& notes) {
  long long entries = (long long)p.max_position * p.d_model();
  if (entries > Limits::table_entries_max) {
    int fit = int(Limits::table_entries_max / p.d_model());
    notes.push_back("max_position " + std::to_string(p.max_position) + " x d " + std::to_string(p.d_model()) +
                    " exceeds the " + std::to_string(Limits::table_entries_max) + "-entry table limit; using " +
                    std::to_string(fit));
    p.max_position = fit;
  }
  if (!(p.low_freq < p.high_freq)) {
    notes.push_back("low_freq " + format_number(p.low_freq) + " must be below high_freq " + format_number(p.high_freq) +
                    " (Llama 3.1: 1 and 4); using 1 and 4");
    p.low_freq = 1.0;
    p.high_freq = 4.0;
  }
  if (!(p.beta_slow < p.beta_fast)) {
    notes.push_back("beta_slow " + format_number(p.beta_slow) + " must be below beta_fast " +
                    format_number(p.beta_fast) + " (YaRN: 1 and 32); using 1 and 32");
    p.beta_slow = 1.0;
    p.beta_fast = 32.0;
  }
}

void apply_query(Params& p, std::string_view query, std::vector<std::string>& notes) {
  if (!query.empty() && query.front() == '#') query.remove_prefix(1);
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      notes.push_back("ignored " + quoted(pair) + ": expected key=value");
      continue;
    }
    set_param(p, pair.substr(0, eq), pair.substr(eq + 1), notes);
  }
  enforce_limits(p, notes);
}

std::string encode_query(const Params& p) {
  using std::to_string;
  return "position=" + to_string(p.position) + "&key_position=" + to_string(p.key_position) +
         "&max_position=" + to_string(p.max_position) + "&d_head=" + to_string(p.d_head) +
         "&heads=" + to_string(p.heads) + "&batch=" + to_string(p.batch) + "&seq_len=" + to_string(p.seq_len) +
         "&vocab=" + to_string(p.vocab) + "&base=" + format_number(p.base) + "&pairing=" + pairing_name(p.pairing) +
         "&seed=" + to_string(p.seed) + "&offsets=" + to_string(p.offsets) + "&tab_top=" + tab_key(Bar::Top, p.tab_top) +
         "&tab_bottom=" + tab_key(Bar::Bottom, p.tab_bottom) + "&scaling=" + scaling_name(p.scaling) +
         "&factor=" + format_number(p.factor) + "&original_max=" + format_number(p.original_max) +
         "&low_freq=" + format_number(p.low_freq) + "&high_freq=" + format_number(p.high_freq) +
         "&beta_fast=" + format_number(p.beta_fast) + "&beta_slow=" + format_number(p.beta_slow);
}

}  // namespace rv
