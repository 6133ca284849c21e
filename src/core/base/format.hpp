// Numbers as text, the one formatter: round-trip for machines (JSON, flags, scripts) and as a person writes them on
// screen (1,000,000 not 1e+06, "1 row" not "1 rows").
#pragma once
#include <cstddef>
#include <string>

namespace rv {

// Shortest decimal that reads back as the same double, without needless exponents: 100, 0.1, 1e-05, 1e+20;
// "nan", "inf", "-inf" for the others (JSON has none: JsonWriter writes them as null).
std::string format_number(double x);
// The same for a float: the shortest decimal that reads back as the same float (0.1f -> "0.1").
std::string format_number(float x);

// 1234567 -> "1,234,567"; -5 -> "-5".
std::string format_count(long long n);
// The same written into buf (28 bytes hold any long long), for per-frame labels that must not allocate.
const char* format_count(long long n, char* buf, size_t size);
// A readable number with about `significant` digits: 198700 -> "198,700", 1e6 -> "1,000,000",
// 0.0123 -> "0.0123", 3.14159 -> "3.142" (significant 4), 1e-9 -> "1e-9", 2e18 -> "2e18".
// Never "1e+06"; NaN and infinities read "NaN", "∞", "−∞".
std::string format_sig(double v, int significant = 6);
// A share in [0, 1] measured on a sample, as the whole percent the sample supports ("37%"; a few hundred test
// sequences cannot give "0.333%"), written into buf without allocating. A share above 0 never reads "0%" and one
// below 1 never "100%": "<1%", ">99%". "NaN" when v is not a number.
const char* format_percent(double share, char* buf, size_t size);
// "1 row", "2 rows", "1,024 rows": the count with the right form of the noun.
std::string plural(long long n, const char* one, const char* many);

}  // namespace rv
