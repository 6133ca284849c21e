// What P[t] does past a position table of n rows, framework by framework: the row returned or the exact error.
#pragma once

#include <string>
#include <vector>

namespace rv {

enum class LookupOutcome {
  Row,    // returns a real row of the table: `row` says which (t itself, wrapped or clamped)
  Error,  // raises: `text` is the exact message
  Zeros,  // returns a row of zeros, no error: the model runs with no position signal
  NaNs,   // returns a row of NaN, no error
};

struct FrameworkLookup {
  const char* framework = "";  // "PyTorch tensor indexing"
  const char* short_name = "";  // "PyTorch P[t]", for one-line summaries
  const char* call = "";       // "pos_table[t]"
  const char* device = "";     // "any", "CPU", "CUDA", "GPU"
  LookupOutcome outcome = LookupOutcome::Row;
  long long row = -1;  // the row returned when outcome == Row
  std::string text;    // the error message, or a short description of what comes back
  bool silent() const { return outcome != LookupOutcome::Error; }  // no exception: the caller gets numbers
};

// Every framework's behaviour for P[position] on a table of `size` rows (size >= 1), any position (negative too).
std::vector<FrameworkLookup> framework_lookups(long long position, long long size);

}  // namespace rv
