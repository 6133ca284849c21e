// Run it's PyTorch export: the script and the requests for the panel's settings (app/run/run_torch.hpp).
#include "app/run/run_torch.hpp"

#include "app/run/run_session.hpp"
#include "core/base/json_writer.hpp"
#include "core/infer/run_script.hpp"

namespace rv {
namespace {

void optional_field(JsonWriter& j, const char* name, const std::optional<double>& v) {
  if (v) j.field(name, *v);
}

// The request's rope: "rope_scaling" (none, or the scaling's object), "rope": "drop", or nothing for the config's.
void rope_fields(JsonWriter& j, const RunPlan& plan, RunRope r) {
  if (r == RunRope::Config) return;
  if (r == RunRope::Drop) {
    j.field("rope", "drop");
    return;
  }
  j.key("rope_scaling");
  if (r == RunRope::None) {
    j.value("none");
    return;
  }
  const HfRopeScaling s = run_rope_scaling(r, plan.factor, plan.trained, plan.longrope ? &*plan.longrope : nullptr);
  j.begin_object().field("rope_type", *s.rope_type);
  optional_field(j, "factor", s.factor);
  optional_field(j, "original_max_position_embeddings", s.original_max_position_embeddings);
  optional_field(j, "low_freq_factor", s.low_freq_factor);
  optional_field(j, "high_freq_factor", s.high_freq_factor);
  for (const auto& [name, f] : {std::pair{"short_factor", &s.short_factor}, std::pair{"long_factor", &s.long_factor}})
    if (*f) j.key(name).values((*f)->data(), int((*f)->size()));
  j.end_object();
}

std::string forward_request(const RunPlan& plan, const std::vector<long long>& tokens, RunRope r) {
  JsonWriter j;
  j.begin_object().field("op", "forward").key("tokens").begin_array();
  for (const long long t : tokens) j.value(t);
  j.end_array().key("outputs").begin_array().value("nll").end_array();
  rope_fields(j, plan, r);
  j.end_object();
  return j.str() + "\n";
}

std::string passkey_request(const RunPlan& plan, RunRope r) {
  JsonWriter j;
  j.begin_object().field("op", "passkey").key("lengths").begin_array();
  for (const long long L : plan.passkey.lengths) j.value(L);
  j.end_array().key("depths").values(plan.passkey.depths.data(), int(plan.passkey.depths.size()));
  j.field("trials", plan.passkey.trials).field("seed", (long long)plan.passkey.seed);
  rope_fields(j, plan, r);
  j.end_object();
  return j.str() + "\n";
}

}  // namespace

std::vector<ExportFile> run_torch(App& app) {
  Expected<RunPlanned> planned = plan_loaded(app);
  if (!planned) {
    app.ui.notes.push_back("PyTorch export: " + planned.error().message);
    return {};
  }
  const RunPlan& plan = planned->plan;
  std::vector<ExportFile> out = {{"ropeviz_run.py", "text/x-python", std::string(run_script())}};
  const RunJob* window0 = nullptr;
  for (const RunJob& job : planned->jobs)
    if (job.kind == RunJobKind::Loss && !window0) window0 = &job;
  for (const RunRope r : plan.ropes) {
    const std::string rope = run_rope_name(r);
    if (plan.loss && window0)
      out.push_back(
          {"ropeviz-run-loss-" + rope + ".json", "application/json", forward_request(plan, window0->pass.tokens, r)});
    if (!plan.passkey.lengths.empty())
      out.push_back({"ropeviz-run-passkey-" + rope + ".json", "application/json", passkey_request(plan, r)});
  }
  app.ui.notes.push_back("PyTorch export: ropeviz_run.py and " + std::to_string(out.size() - 1) +
                         " requests; run each as python3 ropeviz_run.py --model CHECKPOINT_DIR --request "
                         "ropeviz-run-....json --out result.json [--device cuda] (docs/run-export.md)");
  return out;
}

}  // namespace rv
