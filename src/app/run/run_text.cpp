// Run it's text and its tokens, with the token strip's labels (app/run/run_text.hpp).
#include "app/run/run_text.hpp"

#include <algorithm>

#include "app/run/run_session.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"

namespace rv {
namespace {

// A token's text as the strip shows it: a space as '·', a newline as '↵', a tab as '→', other control bytes as \xNN
// (a byte sequence that is not UTF-8 is already U+FFFD, '�', from the decoder).
std::string visible(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == ' ') {
      out += "\xC2\xB7";
    } else if (c == '\n') {
      out += "\xE2\x86\xB5";
    } else if (c == '\t') {
      out += "\xE2\x86\x92";
    } else if (c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out.empty() ? "(empty)" : out;
}

// One token's text: through the decoders alone (a SentencePiece '▁' keeps its space, which the decoder strips from a
// text's first token), else its vocabulary string.
std::string token_text(const LoadedTokenizer& t, long long id) {
  const Expected<std::string> d = tokenize::decode(t.tokenizer, {id});
  const std::string* raw = token_string(t, id);
  if (!d) return raw ? *raw : "";
  if (raw && raw->rfind("\xE2\x96\x81", 0) == 0 && d->rfind(' ', 0) != 0) return " " + *d;
  return *d;
}

void build_strip(RunTokens& r, const LoadedTokenizer* t) {
  const std::size_t n = std::min(r.ids.size(), kStripTokens);
  for (std::size_t i = 0; i < n; ++i) {
    const long long id = r.ids[i];
    const std::string text = t ? token_text(*t, id) : std::string(1, char(id));
    r.labels.push_back(visible(text));
    r.ids_text.push_back(std::to_string(id));
    std::string hover = "position " + std::to_string(i) + ": token id " + std::to_string(id);
    if (t) {
      const std::string* raw = token_string(*t, id);
      hover += ", " + (raw ? "'" + *raw + "'" : std::string("(no token string)")) + " in " + t->name;
    } else {
      hover += ", the byte " + std::to_string(id);
    }
    r.hovers.push_back(hover + "; reads as " + visible(text));
  }
}

}  // namespace

Expected<std::vector<long long>> run_token_ids(std::string_view text, const LoadedTokenizer* t, long long vocab) {
  if (t)
    if (const std::string fit = tokenizer_fit(*t, vocab); !fit.empty()) return bad_request(fit);
  // t outlives the call: a non-owning pointer to its tokenizer
  return run_encoder(t ? std::shared_ptr<const tokenize::Tokenizer>(std::shared_ptr<void>(), &t->tokenizer) : nullptr,
                     vocab)(text);
}

TextEncoder run_encoder(std::shared_ptr<const tokenize::Tokenizer> t, long long vocab) {
  if (t)
    return [t](std::string_view text) -> Expected<std::vector<long long>> { return tokenize::encode(*t, text).ids; };
  return [vocab](std::string_view text) -> Expected<std::vector<long long>> {
    if (vocab != 256)
      return bad_request("the model reads tokens of a vocabulary of " + format_count(vocab) +
                         ", not bytes: give its tokenizer.json (drop it with the checkpoint or after it, or "
                         "--tokenizer) to run text through it");
    return std::vector<long long>(reinterpret_cast<const unsigned char*>(text.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()) + text.size());
  };
}

bool set_run_text(App& app, std::string text, const std::string& name, std::vector<std::string>& notes) {
  if (text.empty()) {
    notes.push_back(name + " is empty: Run it keeps " + run_text_name(app));
    return false;
  }
  if (text.size() > kMaxRunTextBytes) {
    notes.push_back(name + ": " + format_count((long long)text.size()) + " bytes is over Run it's " +
                    format_count((long long)kMaxRunTextBytes) + "-byte limit; it keeps " + run_text_name(app));
    return false;
  }
  RunText& r = run_session(app).text;
  r.text = std::move(text);
  r.name = name;
  ++r.serial;
  notes.push_back("Run it reads " + name + " (" + format_count((long long)r.text.size()) + " bytes)");
  return true;
}

bool load_run_text_path(App& app, const std::string& path, std::vector<std::string>& notes) {
  const std::string name = file_name(path);
  std::uint64_t bytes = 0;
  std::optional<std::string> text = read_file_head(path, kMaxRunTextBytes + 1, bytes);
  if (!text) {
    notes.push_back(name + ": cannot open " + path);
    return false;
  }
  if (bytes > kMaxRunTextBytes) {
    notes.push_back(name + ": " + format_count((long long)bytes) + " bytes is over Run it's " +
                    format_count((long long)kMaxRunTextBytes) + "-byte limit; it keeps " + run_text_name(app));
    return false;
  }
  return set_run_text(app, std::move(*text), name, notes);
}

void clear_run_text(App& app) {
  RunText& r = run_session(app).text;
  r.text.clear();
  r.name.clear();
  ++r.serial;
}

const std::string& run_text_name(const App& app) {
  static const std::string heldout = "the held-out sample (heldout.txt's first 16 KB, which the demo models never saw)";
  const RunSession* s = find_run_session(app);
  return s && !s->text.text.empty() ? s->text.name : heldout;
}

const RunTokens& run_tokens(App& app) {
  RunSession& s = run_session(app);
  const LoadedWeights* w = app.params.weights.get();
  const LoadedTokenizer* t = w ? w->tokenizer.get() : nullptr;
  RunTokens& r = s.tokens;
  const std::uint64_t weights = w ? w->serial : 0, tokenizer = t ? t->serial : 0;
  if (r.weights == weights && r.tokenizer == tokenizer && r.text == s.text.serial) return r;
  r = RunTokens{};
  r.weights = weights;
  r.tokenizer = tokenizer;
  r.text = s.text.serial;
  if (!w) return r;
  const std::string_view text = s.text.text.empty() ? heldout_sample() : std::string_view(s.text.text);
  Expected<std::vector<long long>> ids = run_token_ids(text, t, w->vocab);
  if (!ids) {
    r.error = w->label + ": " + ids.error().message;
    return r;
  }
  r.ids = std::move(*ids);
  r.summary =
      format_count((long long)text.size()) + " bytes, " + format_count((long long)r.ids.size()) +
      (t ? " tokens through " + t->name + " (" +
               format_sig(double(text.size()) / double(std::max<std::size_t>(1, r.ids.size())), 3) + " bytes a token)"
         : " tokens: the model reads bytes");
  build_strip(r, t);
  return r;
}

}  // namespace rv
