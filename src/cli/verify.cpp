// Prints rv::lesson_checks() with the shape trace and parameter counts; the exit status says whether all held.
#include "cli/verify.hpp"

#include "core/lesson/verify.hpp"
#include "core/lesson/shape_trace.hpp"

namespace rv::cli {

int run_verify(std::FILE* out) {
  const VerifyConfig cfg;
  const Dims& k = cfg.dims;
  std::fprintf(out,
               "Lesson section 3: learned absolute vs RoPE (B=%d, T=%d, h=%d, d_head=%d, d=%d, V=%d, max_position=%d, "
               "base=%g)\n\n",
               k.B, k.T, k.h, k.d_head, k.d(), k.V, k.max_position, cfg.base);
  const std::vector<Check> checks = lesson_checks(cfg);
  int passed = 0;
  for (const Check& c : checks) {
    std::fprintf(out, "  [%s] %s\n         %s\n", c.ok ? " ok " : "FAIL", c.name.c_str(), c.detail.c_str());
    passed += c.ok ? 1 : 0;
  }
  std::fprintf(out, "\nShape trace:\n");
  for (const ShapeStep& s : shape_trace(k))
    std::fprintf(out, "  %-34s %-16s %s\n", s.name.c_str(), shape_str(s.shape).c_str(), s.note.c_str());
  const ParamCounts pc = param_counts(k);
  std::fprintf(out, "\nParameters: learned position table %d x %d = %lld, RoPE %lld, token embedding %lld\n",
               k.max_position, k.d(), pc.learned_position, pc.rope, pc.token_embedding);
  std::fprintf(out, "\n%d/%zu checks passed\n", passed, checks.size());
  return all_ok(checks) ? 0 : 1;
}

}  // namespace rv::cli
