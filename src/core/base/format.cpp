// Numbers as text: round-trip decimals, and readable numbers for labels and sentences (see format.hpp).
#include "core/base/format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rv {
namespace {

// Inserts thousands separators into the integer part of a plain decimal ("-1234567.5").
std::string group_thousands(const std::string& plain) {
  const size_t start = (!plain.empty() && plain[0] == '-') ? 1 : 0;
  size_t end = plain.find('.');
  if (end == std::string::npos) end = plain.size();
  std::string out = plain.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    out += plain[i];
    const size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + plain.substr(end);
}

// "1.5e-05" -> "1.5e-5", "2e+18" -> "2e18".
std::string tidy_exponent(std::string s) {
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mantissa = s.substr(0, e);
  const char sign = s[e + 1];
  size_t digits = e + 2;
  while (digits + 1 < s.size() && s[digits] == '0') ++digits;
  return mantissa + "e" + (sign == '-' ? "-" : "") + s.substr(digits);
}

}  // namespace

std::string format_count(long long n) {
  return group_thousands(std::to_string(n));
}

const char* format_count(long long n, char* buf, size_t size) {
  char digits[24];
  const int len = std::snprintf(digits, sizeof digits, "%lld", n);
  const int start = digits[0] == '-' ? 1 : 0;
  size_t o = 0;
  for (int i = 0; i < len && o + 1 < size; ++i) {
    buf[o++] = digits[i];
    const int left = len - i - 1;
    if (i >= start && left > 0 && left % 3 == 0 && o + 1 < size) buf[o++] = ',';
  }
  if (size > 0) buf[o] = '\0';
  return buf;
}

const char* format_percent(double share, char* buf, size_t size) {
  if (std::isnan(share)) {
    std::snprintf(buf, size, "NaN");
    return buf;
  }
  const double percent = std::round(100.0 * share);
  if (share > 0 && percent < 1)
    std::snprintf(buf, size, "<1%%");
  else if (share < 1 && percent > 99)
    std::snprintf(buf, size, ">99%%");
  else
    std::snprintf(buf, size, "%.0f%%", percent);
  return buf;
}

std::string format_sig(double v, int significant) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  if (significant < 1) significant = 1;
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1000.0 && a < 1e15) {
    const int int_digits = int(std::floor(std::log10(a))) + 1;
    const int decimals = significant > int_digits ? significant - int_digits : 0;
    const double step = std::pow(10.0, int_digits - significant);  // rounding to `significant` digits
    const double rounded = decimals > 0 ? v : std::round(v / step) * step;
    int len = std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded);
    if (decimals > 0) {  // drop trailing zeros of the fraction, as %g would (in place: no allocation)
      while (len > 0 && buf[len - 1] == '0') buf[--len] = '\0';
      if (len > 0 && buf[len - 1] == '.') buf[--len] = '\0';
    }
    return group_thousands(buf);
  }
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return tidy_exponent(buf);
}

std::string plural(long long n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 || n == -1 ? one : many);
}

std::string format_number(double x) {
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
  char buf[40];
  const double ax = std::fabs(x);
  int prec = (ax >= 1.0 && ax < 1e17) ? static_cast<int>(std::floor(std::log10(ax))) + 1 : 1;
  for (prec = prec < 1 ? 1 : (prec > 17 ? 17 : prec); prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string format_number(float x) {
  if (!std::isfinite(x)) return format_number(double(x));
  char buf[40];
  for (int prec = 1; prec <= 9; ++prec) {  // 9 significant digits read back any float
    std::snprintf(buf, sizeof buf, "%.*g", prec, double(x));
    if (std::strtof(buf, nullptr) == x) break;
  }
  return buf;
}

}  // namespace rv
