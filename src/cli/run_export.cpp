// `ropeviz-cli run-export DIR` (cli/run_export.hpp): core's embedded ropeviz_run.py written into a directory.
#include "cli/run_export.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>

#include "core/infer/run_script.hpp"

namespace rv::cli {

int run_run_export(int argc, char** argv, std::FILE* out, std::FILE* err) {
  if (argc != 3 || std::strncmp(argv[2], "--", 2) == 0 || argv[2][0] == '\0') {
    std::fputs("ropeviz-cli run-export: needs one directory and nothing else: ropeviz-cli run-export DIR\n", err);
    return 2;
  }
  const std::filesystem::path dir = argv[2];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) {
    std::fprintf(err, "ropeviz-cli run-export: cannot create directory %s: %s\n", argv[2],
                 (ec ? ec : std::make_error_code(std::errc::not_a_directory)).message().c_str());
    return 1;
  }
  const std::string script = (dir / "ropeviz_run.py").string();
  const std::string_view text = run_script();
  errno = 0;
  std::ofstream file(script, std::ios::binary | std::ios::trunc);
  file.write(text.data(), std::streamsize(text.size()));
  file.close();
  if (!file) {
    std::fprintf(err, "ropeviz-cli run-export: cannot write %s: %s\n", script.c_str(),
                 errno ? std::strerror(errno) : "write failed");
    return 1;
  }
  const nlohmann::ordered_json line{{"script", script}};
  std::fprintf(out, "%s\n", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}

}  // namespace rv::cli
