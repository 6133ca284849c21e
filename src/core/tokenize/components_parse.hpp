// Reading tokenizer.json's components into typed values (internal to core/tokenize; tokenizer_parse.cpp's helpers).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/json_value.hpp"
#include "core/tokenize/json_fields.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv::tokenize {

// f's "pattern": {"String": s} (literal) or {"Regex": r} (tokenizers.js's Oniguruma dialect).
Expected<Regex> read_pattern(Fields& f);
// One component at `path`, appended to out (a Sequence appends its members in order).
std::optional<Error> read_normalizer(const JsonValue& v, const std::string& path, std::vector<Normalizer>& out);
std::optional<Error> read_pre_tokenizer(const JsonValue& v, const std::string& path, std::vector<PreTokenizer>& out);
std::optional<Error> read_decoder(const JsonValue& v, const std::string& path, std::vector<Decoder>& out);

}  // namespace rv::tokenize
