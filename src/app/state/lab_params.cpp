// The lab's link keys as LabOptions and CLI flags, and back (app/state/lab_params.hpp).
#include "app/state/lab_params.hpp"

#include "core/base/format.hpp"
#include "app/state/params.hpp"

namespace rv {

namespace {
// The integer lab keys: link key member, CLI flag, LabOptions member.
struct IntKey {
  int Params::*param;
  const char* flag;
  int LabOptions::*option;
};
constexpr IntKey int_keys[] = {{&Params::train_len, "--train-len", &LabOptions::train_len},
                               {&Params::table_len, "--table-len", &LabOptions::table_len},
                               {&Params::steps, "--steps", &LabOptions::steps}};
}  // namespace

std::vector<std::string> lab_flags(const Params& p, ScalingType scaling, double factor) {
  std::vector<std::string> flags = {"--task", lab_task_name(p.task), "--methods", find_field("methods")->encode(p)};
  for (const IntKey& k : int_keys) {
    flags.push_back(k.flag);
    flags.push_back(std::to_string(p.*k.param));
  }
  flags.push_back("--seed");
  flags.push_back(std::to_string(p.lab_seed));
  if (scaling != ScalingType::None)
    for (std::string f : {std::string("--rope-scaling"), std::string(lab_scaling_name(scaling)),
                          std::string("--rope-factor"), format_number(factor)})
      flags.push_back(std::move(f));
  return flags;
}

LabOptions lab_options(const Params& p) {
  const Expected<LabOptions> o = parse_lab_options(lab_flags(p));
  return o ? *o : LabOptions{};  // the link keys' limits are the parser's: every Params gives valid flags
}

void set_lab_params(Params& p, const LabOptions& o) {
  p.task = o.task;
  p.methods = 0;
  for (PositionMethod m : o.methods) p.methods |= 1 << int(m);
  for (const IntKey& k : int_keys) p.*k.param = o.*k.option;
  p.lab_seed = o.seed;
}

}  // namespace rv
