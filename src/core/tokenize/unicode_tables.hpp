// The Unicode Character Database tables that gen_unicode_tables.py writes at build time (layouts described there).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rv::unicode_tables {

constexpr std::size_t kDecompositionStride = 32;  // an offset is stored for every 32nd decomposition

extern const char kVersion[];
extern const std::uint32_t kCategoryRuns[];  // start << 5 | category (unicode.hpp's Category)
extern const std::size_t kCategoryRuns_size;
extern const std::uint32_t kWhiteSpace[];  // first, last, first, last, ...
extern const std::size_t kWhiteSpace_size;
extern const std::uint32_t kCombiningRuns[];  // start << 8 | canonical combining class
extern const std::size_t kCombiningRuns_size;
extern const std::uint32_t kDecompositionKeys[];  // cp | length << 21 | compat << 26 | excluded << 27, by cp
extern const std::size_t kDecompositionKeys_size;
extern const std::uint16_t kDecompositionOffsets[];  // pool offset of entries 0, 32, 64, ...
extern const std::size_t kDecompositionOffsets_size;
extern const char32_t kDecompositionPool[];
extern const std::size_t kDecompositionPool_size;
extern const std::uint16_t kCompositions[];  // decomposition indices, sorted by their (first, second) parts
extern const std::size_t kCompositions_size;

}  // namespace rv::unicode_tables
