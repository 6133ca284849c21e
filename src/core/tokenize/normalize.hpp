// Unicode normalization forms (UAX #15: NFC, NFD, NFKC, NFKD) over the generated tables, Hangul by its algorithm.
#pragma once

#include <string>
#include <string_view>

namespace rv::unicode {

enum class Form { NFC, NFD, NFKC, NFKD };

std::u32string normalize(std::u32string_view text, Form form);

}  // namespace rv::unicode
