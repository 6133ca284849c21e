// UTF-8 (RFC 3629): the one reader of a sequence's bytes and the one writer of a code point, for JSON and tokenizers.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace rv {

// The bytes of the well-formed UTF-8 sequence at s[i] (no overlong forms, no surrogates, nothing past U+10FFFF),
// with whole = true; else (whole = false) those of the longest start of one there, at least 1: the bytes one U+FFFD
// replaces (Unicode's "maximal subpart", as TextDecoder and Rust's from_utf8_lossy replace them). i < s.size().
std::size_t utf8_sequence(std::string_view s, std::size_t i, bool& whole);
// The code point of a whole sequence of n bytes at s[i] (utf8_sequence's).
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n);
// Appends c's UTF-8 bytes; a surrogate or a value past U+10FFFF is written as U+FFFD (as TextEncoder writes it).
void append_utf8(std::string& out, char32_t c);

}  // namespace rv
