// Limits on the link parser: a huge link is rejected whole before parsing, one link raises a
// bounded number of notes, and wrong or non-finite values keep the last good state.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/state/params.hpp"

namespace {

std::vector<std::string> run_query(rv::Params& p, const std::string& query) {
  std::vector<std::string> notes;
  rv::apply_query(p, query, notes);
  return notes;
}

}  // namespace

TEST_CASE("a link over the size limit changes nothing and raises exactly one note") {
  rv::Params p;
  p.position = 42;
  const rv::Params before = p;
  std::string huge = "#position=7&";
  while (huge.size() <= rv::Limits::kQueryBytesMax) huge += "d_head=16&";
  const auto notes = run_query(p, huge);
  CHECK(p == before);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("longer than") != std::string::npos);
  CHECK(run_query(p, std::string(1 << 20, 'x')).size() == 1);  // 1 MB: one note, no parsing
  CHECK(p == before);
}

TEST_CASE("a link just under the size limit is still parsed") {
  rv::Params p;
  std::string query = "position=9";
  query += std::string(rv::Limits::kQueryBytesMax - query.size() - 1, '&');
  REQUIRE(query.size() < rv::Limits::kQueryBytesMax);
  CHECK(run_query(p, "#" + query).empty());
  CHECK(p.position == 9);
}

TEST_CASE("a link with thousands of bad keys raises a bounded number of notes") {
  rv::Params p;
  const rv::Params before = p;
  std::string query;
  for (int i = 0; query.size() < rv::Limits::kQueryBytesMax - 20; ++i) query += "position=x" + std::to_string(i) + "&";
  const auto notes = run_query(p, query);
  CHECK(p == before);
  REQUIRE(notes.size() == rv::Limits::kQueryNotesMax + 1);
  CHECK(notes.back().find("more notes") != std::string::npos);
}

TEST_CASE("10,000 unknown keys are ignored within the limit") {
  rv::Params p;
  std::string query;
  for (int i = 0; i < 10000; ++i) query += "k=&";
  query.resize(rv::Limits::kQueryBytesMax - 12);
  query += "&position=8";
  CHECK(run_query(p, query).size() <= rv::Limits::kQueryNotesMax + 1);
  CHECK(p.position == 8);
}

TEST_CASE("wrong types and non-finite numbers keep the previous value with a note") {
  for (const char* bad : {"abc", "NaN", "nan", "Infinity", "-inf", "1e400", "(null)", "(boolean)", "(object)",
                          "(array)", "[5]", "true", "0x", ""}) {
    CAPTURE(bad);
    rv::Params p;
    p.position = 11;
    const auto notes = run_query(p, std::string("position=") + bad);
    CHECK(p.position == 11);
    CHECK(notes.size() == 1);
  }
  rv::Params p;
  CHECK(run_query(p, "position=-0").empty());  // -0 is a number: zero
  CHECK(p.position == 0);
  CHECK(rv::encode_query(p).find("position=0&") != std::string::npos);
}

TEST_CASE("a very long value is quoted short in its note") {
  rv::Params p;
  const auto notes = run_query(p, "position=" + std::string(10000, '9'));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].size() < 200);
  CHECK(p.position == rv::Params{}.position);
}
