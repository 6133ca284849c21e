// Numbers on screen read as a person writes them: separators, no "e+06", plurals right.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/base/format.hpp"

TEST_CASE("format_count groups thousands") {
  CHECK(rv::format_count(0) == "0");
  CHECK(rv::format_count(999) == "999");
  CHECK(rv::format_count(1000) == "1,000");
  CHECK(rv::format_count(1000000) == "1,000,000");
  CHECK(rv::format_count(-1234567) == "-1,234,567");
  char buf[28];
  for (long long n : {0LL, 7LL, 999LL, 1000LL, -1000LL, 123456789LL, -9223372036854775807LL - 1})
    CHECK(std::string(rv::format_count(n, buf, sizeof buf)) == rv::format_count(n));
  char tiny[4];
  CHECK(std::string(rv::format_count(123456, tiny, sizeof tiny)) == "123");  // truncated, still terminated
}

TEST_CASE("format_sig writes large numbers in full and small ones compactly") {
  CHECK(rv::format_sig(1e6) == "1,000,000");
  CHECK(rv::format_sig(198712.3, 4) == "198,700");
  CHECK(rv::format_sig(1234.5678, 6) == "1,234.57");
  CHECK(rv::format_sig(-4096) == "-4,096");
  CHECK(rv::format_sig(10000) == "10,000");
  CHECK(rv::format_sig(3.14159265, 4) == "3.142");
  CHECK(rv::format_sig(0.0123) == "0.0123");
  CHECK(rv::format_sig(1.5e-5) == "1.5e-5");
  CHECK(rv::format_sig(2e18) == "2e18");
  CHECK(rv::format_sig(0) == "0");
  CHECK(rv::format_sig(std::nan("")) == "NaN");
  CHECK(rv::format_sig(std::numeric_limits<double>::infinity()) == "∞");
}

TEST_CASE("plural picks the noun's form") {
  CHECK(rv::plural(1, "row", "rows") == "1 row");
  CHECK(rv::plural(0, "row", "rows") == "0 rows");
  CHECK(rv::plural(1024, "row", "rows") == "1,024 rows");
}
