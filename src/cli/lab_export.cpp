// `ropeviz-cli lab` (the lab document, on --jobs threads; --save-weights writes each trained decoder as a checkpoint)
// and `ropeviz-cli lab-export` (lab_torch_script and lab_torch_data for the lab's flags, into a directory).
#include "cli/lab_export.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "core/base/json_writer.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/lab/lab_parallel.hpp"
#include "core/lab/lab_torch.hpp"

namespace rv::cli {

namespace {
constexpr int kMaxBatches = 10000;
constexpr int kMaxJobs = 64;

// Takes FLAG VALUE / FLAG=VALUE out of args (the rest are lab flags): true with value set when it was there; an
// error message in `error` when it had no value.
bool take_value(std::vector<std::string>& args, const std::string& flag, std::string& value, std::string& error) {
  bool found = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::size_t used = 1;
    if (args[i] == flag) {
      if (i + 1 >= args.size()) {
        error = flag + " needs a value";
        return false;
      }
      value = args[i + 1];
      used = 2;
    } else if (args[i].rfind(flag + "=", 0) == 0) {
      value = args[i].substr(flag.size() + 1);
    } else {
      continue;
    }
    found = true;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + used));
    --i;
  }
  return found;
}

// Takes FLAG N out of args, an integer in [lo, hi] (left as it was when absent); an error message, or empty.
std::string take_int(std::vector<std::string>& args, const std::string& flag, int lo, int hi, int& n) {
  std::string value, error;
  if (!take_value(args, flag, value, error)) return error;
  char* end = nullptr;
  errno = 0;
  const long v = value.empty() ? -1 : std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    return flag + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got \"" + value +
           "\"";
  n = static_cast<int>(v);
  return {};
}

// Trains the lab to its end on `jobs` threads (polled every 20 ms). One job too: each run (method, seed) is then a
// LabRun of its own, as on more threads, so every --jobs gives the same document.
std::unique_ptr<LabEngine> train(const LabOptions& o, int jobs) {
  auto run = std::make_unique<LabParallel>(o, jobs);
  while (!run->done()) {
    run->step();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return run;
}

// Writes text to path; the reason it could not, or empty.
std::string write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return std::strerror(errno);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int saved = errno;
  if (std::fclose(f) != 0 || !ok) return std::strerror(ok ? errno : saved);
  return {};
}

// Creates dir if needed; the reason it could not, or empty.
std::string make_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return ec && !std::filesystem::is_directory(dir) ? ec.message() : std::string();
}
}  // namespace

int run_lab(int argc, char** argv, std::FILE* out, std::FILE* err) {
  std::vector<std::string> args(argv + 2, argv + argc);
  std::string dir, error;
  const bool save = take_value(args, "--save-weights", dir, error);
  if (!error.empty() || (save && dir.empty())) {
    std::fprintf(err, "ropeviz-cli lab: %s\n", error.empty() ? "--save-weights needs a directory" : error.c_str());
    return 2;
  }
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));  // the cores unless --jobs says
  if (const std::string e = take_int(args, "--jobs", 1, kMaxJobs, jobs); !e.empty()) {
    std::fprintf(err, "ropeviz-cli lab: %s\n", e.c_str());
    return 2;
  }
  const Expected<LabOptions> o = parse_lab_options(args);
  if (!o) {
    std::fprintf(err, "ropeviz-cli lab: %s\n", o.error().message.c_str());
    return 2;
  }
  const std::unique_ptr<LabEngine> run = train(*o, jobs);
  if (save) {
    for (const LabTrained& t : run->trained()) {
      const std::string method = position_method_name(t.method);
      const std::string at = (std::filesystem::path(dir) / method).string();
      const Expected<std::vector<std::uint8_t>> bytes = lab_safetensors(t);
      std::string why = bytes ? make_directory(at) : bytes.error().message;
      if (why.empty())
        why = write_file((std::filesystem::path(at) / "model.safetensors").string(),
                         std::string(bytes->begin(), bytes->end()));
      if (why.empty())
        why = write_file((std::filesystem::path(at) / "config.json").string(), lab_config_json(t, *o, t.steps_run));
      if (!why.empty()) {
        std::fprintf(err, "ropeviz-cli lab: cannot save %s's weights in %s: %s\n", method.c_str(), at.c_str(),
                     why.c_str());
        return 1;
      }
      std::fprintf(err, "ropeviz-cli lab: saved %s/model.safetensors and config.json\n", at.c_str());
    }
  }
  std::fputs((lab_json(run->result()) + "\n").c_str(), out);
  return 0;
}

int run_lab_export(int argc, char** argv, std::FILE* out, std::FILE* err) {
  if (argc < 3 || std::strncmp(argv[2], "--", 2) == 0) {
    std::fputs("ropeviz-cli lab-export: needs a directory: ropeviz-cli lab-export DIR [lab flags] [--batches N]\n",
               err);
    return 2;
  }
  const std::string dir = argv[2];
  std::vector<std::string> args(argv + 3, argv + argc);
  int batches = kLabTorchBatches;
  if (const std::string e = take_int(args, "--batches", 0, kMaxBatches, batches); !e.empty()) {
    std::fprintf(err, "ropeviz-cli lab-export: %s\n", e.c_str());
    return 2;
  }
  const Expected<LabOptions> o = parse_lab_options(args);
  if (!o) {
    std::fprintf(err, "ropeviz-cli lab-export: %s\n", o.error().message.c_str());
    return 2;
  }
  if (const std::string e = make_directory(dir); !e.empty()) {
    std::fprintf(err, "ropeviz-cli lab-export: cannot create directory %s: %s\n", dir.c_str(), e.c_str());
    return 1;
  }
  const std::string script = (std::filesystem::path(dir) / "ropeviz_lab.py").string();
  const std::string data = (std::filesystem::path(dir) / "ropeviz_lab_data.json").string();
  for (const auto& [path, text] :
       {std::pair{script, lab_torch_script(*o)}, std::pair{data, lab_torch_data(*o, batches)}})
    if (const std::string e = write_file(path, text); !e.empty()) {
      std::fprintf(err, "ropeviz-cli lab-export: cannot write %s: %s\n", path.c_str(), e.c_str());
      return 1;
    }
  JsonWriter line;
  line.begin_object().field("script", script).field("data", data).field("batches", batches);
  line.key("methods").begin_array();
  for (PositionMethod m : o->methods) line.value(position_method_name(m));
  line.end_array().end_object();
  std::fprintf(out, "%s\n", line.str().c_str());
  return 0;
}

}  // namespace rv::cli
