// `ropeviz-cli lab-export`: writes lab_torch_script and lab_torch_data for the lab's flags into a directory.
#include "cli/lab_export.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "core/lab/lab_torch.hpp"

namespace rv::cli {

namespace {
constexpr int kMaxBatches = 10000;

// Takes --batches N / --batches=N out of args (the rest are lab flags); an error message, or empty.
std::string take_batches(std::vector<std::string>& args, int& batches) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string value;
    std::size_t used = 1;
    if (args[i] == "--batches") {
      if (i + 1 >= args.size()) return "--batches needs a value";
      value = args[i + 1];
      used = 2;
    } else if (args[i].rfind("--batches=", 0) == 0) {
      value = args[i].substr(10);
    } else {
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long v = value.empty() ? -1 : std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || v < 0 || v > kMaxBatches)
      return "--batches must be an integer in [0, " + std::to_string(kMaxBatches) + "], got \"" + value + "\"";
    batches = static_cast<int>(v);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + used));
    --i;
  }
  return {};
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
}  // namespace

int run_lab_export(int argc, char** argv, std::FILE* out, std::FILE* err) {
  if (argc < 3 || std::strncmp(argv[2], "--", 2) == 0) {
    std::fputs("ropeviz-cli lab-export: needs a directory: ropeviz-cli lab-export DIR [lab flags] [--batches N]\n",
               err);
    return 2;
  }
  const std::string dir = argv[2];
  std::vector<std::string> args(argv + 3, argv + argc);
  int batches = kLabTorchBatches;
  if (const std::string e = take_batches(args, batches); !e.empty()) {
    std::fprintf(err, "ropeviz-cli lab-export: %s\n", e.c_str());
    return 2;
  }
  const Expected<LabOptions> o = parse_lab_options(args);
  if (!o) {
    std::fprintf(err, "ropeviz-cli lab-export: %s\n", o.error().message.c_str());
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec && !std::filesystem::is_directory(dir)) {
    std::fprintf(err, "ropeviz-cli lab-export: cannot create directory %s: %s\n", dir.c_str(), ec.message().c_str());
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
  nlohmann::ordered_json line{
      {"script", script}, {"data", data}, {"batches", batches}, {"methods", nlohmann::json::array()}};
  for (PositionMethod m : o->methods) line["methods"].push_back(position_method_name(m));
  std::fprintf(out, "%s\n", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}

}  // namespace rv::cli
