// The lab's run, experiment and weights as files (app/lab/lab_export.hpp).
#include "app/lab/lab_export.hpp"

#include <optional>
#include <string>

#include "app/lab/lab_params.hpp"
#include "app/state/export.hpp"
#include "core/base/format.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/lab/lab_torch.hpp"

namespace rv {

ExportFile export_lab_csv(const App& app) {
  std::string out = "# ropeviz lab";
  if (!app.lab.run) return {"ropeviz-lab.csv", "text/csv", out + ": not run\n"};
  const LabResult& r = app.lab.run->result();
  for (const std::string& flag : lab_option_flags(r.options)) out += " " + flag;
  out += std::string(app.lab.running ? " (running)" : app.lab.stopped ? " (stopped early)" : "") + "\n";
  out += "method,seed,series,x,value,error\n";
  const auto rows = [&out](const std::string& method, const std::string& seed, const char* series, const auto& values,
                           const std::string& error) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::optional<double> v = values[i];
      out += method + "," + seed + "," + series + "," + std::to_string(i + 1) + "," + (v ? format_number(*v) : "") +
             "," + (v ? "" : csv_quoted(error)) + "\n";
    }
  };
  for (const LabMethodResult& m : r.methods) {
    const std::string name = position_method_name(m.method), error = m.error.value_or("");
    rows(name, "mean", "exact_match", m.accuracy, error);
    rows(name, "mean", "token_accuracy", m.token_accuracy, error);
    rows(name, "mean", "accuracy_scaled", m.accuracy_scaled, error);  // rope with --rope-scaling only
    rows(name, "mean", "token_accuracy_scaled", m.token_accuracy_scaled, error);
    for (const LabSeedRun& run : m.runs) {
      const std::string seed = std::to_string(run.seed), run_error = run.error.value_or("");
      rows(name, seed, "exact_match", run.accuracy, run_error);
      rows(name, seed, "token_accuracy", run.token_accuracy, run_error);
      rows(name, seed, "train_loss", run.train_loss, run_error);
      rows(name, seed, "accuracy_scaled", run.accuracy_scaled, run_error);
      rows(name, seed, "token_accuracy_scaled", run.token_accuracy_scaled, run_error);
    }
  }
  return {"ropeviz-lab-" + std::string(lab_task_name(r.options.task)) + "-L" + std::to_string(r.options.train_len) +
              "-seed" + std::to_string(r.options.seed) + ".csv",
          "text/csv", out};
}

std::vector<ExportFile> lab_torch(const App& app) {
  const LabOptions o = app.lab.run ? app.lab.run->result().options : lab_options(app.params);
  return {{"ropeviz_lab.py", "text/x-python", lab_torch_script(o)},
          {"ropeviz_lab_data.json", "application/json", lab_torch_data(o, kLabTorchBatches)}};
}

std::vector<ExportFile> lab_weights(const App& app) {
  std::vector<ExportFile> out;
  if (!app.lab.run) return out;
  const LabResult& r = app.lab.run->result();
  for (const LabTrained& t : app.lab.run->trained()) {
    const Expected<std::vector<std::uint8_t>> bytes = lab_safetensors(t);
    if (!bytes) continue;
    const std::string stem = std::string("ropeviz-lab-") + position_method_name(t.method);
    out.push_back({stem + "-model.safetensors", "application/octet-stream", std::string(bytes->begin(), bytes->end())});
    out.push_back({stem + "-config.json", "application/json", lab_config_json(t, r.options, t.steps_run)});
  }
  return out;
}

}  // namespace rv
