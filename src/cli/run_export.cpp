// `ropeviz-cli run-export DIR [REQUEST]` (cli/run_export.hpp): core's embedded ropeviz_run.py, and a request for it.
#include "cli/run_export.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "cli/eval_forward.hpp"
#include "cli/eval_passkey.hpp"
#include "cli/json_text.hpp"
#include "core/infer/run_script.hpp"

namespace rv::cli {
namespace {

namespace fs = std::filesystem;

const char* const kUsage = "ropeviz-cli run-export DIR [REQUEST]";
const char* const kModelFields[] = {"file", "index", "config", "preset"};  // the script's --model replaces them

// All of `in`, at most kMaxJsonBytes + 1 bytes (parse_json_text refuses a longer text); false on a read error.
bool read_all(std::FILE* in, std::string& text) {
  char buffer[1 << 16];
  while (text.size() <= kMaxJsonBytes) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, in);
    text.append(buffer, n);
    if (n < sizeof buffer) return !std::ferror(in);
  }
  return true;
}

// A JSON argument's text: inline when it starts with '{', stdin for "-", else the file it names.
Expected<std::string> argument_text(const char* arg) {
  if (arg[0] == '{') return std::string(arg);
  std::string text;
  if (std::strcmp(arg, "-") == 0) {
    if (!read_all(stdin, text)) return bad_request("cannot read stdin");
    return text;
  }
  errno = 0;
  std::FILE* f = std::fopen(arg, "rb");
  const bool ok = f && read_all(f, text);
  const int code = errno;
  if (f) std::fclose(f);
  if (!ok) return bad_request(std::string("cannot read it: ") + (code ? std::strerror(code) : "read failed"));
  return text;
}

// REQUEST as one JSON object: a forward or passkey request, its fields checked as eval checks them without the
// checkpoint (cli/eval_forward.hpp, cli/eval_passkey.hpp).
Expected<JsonValue> read_request(const char* arg) {
  Expected<std::string> text = argument_text(arg);
  if (!text) return text.error();
  Expected<JsonValue> parsed = parse_json_text(*text);
  if (!parsed) return parsed.error();
  if (parsed->kind != JsonValue::Kind::Object) return bad_request("the request must be a JSON object");
  FieldReader r(*parsed);
  const std::string op = r.string("op");
  if (r.error) return *r.error;
  std::optional<Error> refused;
  if (op == "forward")
    refused = check_forward_request(r);
  else if (op == "passkey")
    refused = check_passkey_request(r);
  else
    refused = bad_request("op \"" + op + "\": the script answers forward and passkey requests only");
  if (refused) return *refused;
  return parsed;
}

// The checkpoint folder the request's "file" (or "index") names: itself when a folder, else the folder holding it.
std::string model_of(const JsonValue& request) {
  for (const char* key : {"file", "index"}) {
    const JsonValue* v = request.find(key);
    if (!v || v->kind != JsonValue::Kind::String || v->string.empty()) continue;
    const fs::path path = v->string;
    const bool file = fs::is_regular_file(path) || path.extension() == ".safetensors" || path.extension() == ".json";
    if (!file) return path.string();
    return path.has_parent_path() ? path.parent_path().string() : ".";
  }
  return "CHECKPOINT_DIR";
}

// One word for a POSIX shell: as it is when that is safe, else in single quotes.
std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789@%+=:,./_-") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// text into path, replacing it; false with a message on err when it cannot be written.
bool write_file(const std::string& path, std::string_view text, std::FILE* err) {
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(text.data(), std::streamsize(text.size()));
  file.close();
  if (file) return true;
  std::fprintf(err, "ropeviz-cli run-export: cannot write %s: %s\n", path.c_str(),
               errno ? std::strerror(errno) : "write failed");
  return false;
}

bool is_flag_or_empty(const char* arg) {
  return std::strncmp(arg, "--", 2) == 0 || arg[0] == '\0';
}

}  // namespace

int run_run_export(int argc, char** argv, std::FILE* out, std::FILE* err) {
  if (argc < 3 || argc > 4 || is_flag_or_empty(argv[2]) || (argc == 4 && is_flag_or_empty(argv[3]))) {
    std::fprintf(err, "ropeviz-cli run-export: needs one directory and at most one request: %s\n", kUsage);
    return 2;
  }
  std::optional<JsonValue> request;
  if (argc == 4) {
    Expected<JsonValue> read = read_request(argv[3]);
    if (!read) {
      std::fprintf(err, "ropeviz-cli run-export: REQUEST %s: %s\n", argv[3][0] == '{' ? "(inline)" : argv[3],
                   read.error().message.c_str());
      return 2;
    }
    request = *read;
  }
  const fs::path dir = argv[2];
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) {
    std::fprintf(err, "ropeviz-cli run-export: cannot create directory %s: %s\n", argv[2],
                 (ec ? ec : std::make_error_code(std::errc::not_a_directory)).message().c_str());
    return 1;
  }
  const std::string script = (dir / "ropeviz_run.py").string();
  if (!write_file(script, run_script(), err)) return 1;
  JsonWriter line = response_writer();
  line.begin_object().field("script", script);
  if (request) {
    const std::string path = (dir / "request.json").string();
    const std::string model = model_of(*request);
    if (request->find("config") || request->find("preset"))
      std::fputs(
          "ropeviz-cli run-export: note: the script reads the config.json in its --model folder, not the "
          "request's \"config\" or \"preset\"\n",
          err);
    auto& members = request->object;
    for (const char* key : kModelFields)
      members.erase(std::remove_if(members.begin(), members.end(), [key](const auto& m) { return m.first == key; }),
                    members.end());
    if (!write_file(path, json_text(*request) + "\n", err)) return 1;
    line.field("request", path);
    line.field("command", "python3 " + shell_word(script) + " --model " + shell_word(model) + " --request " +
                              shell_word(path) + " --out " + shell_word((dir / "result.json").string()));
  }
  std::fprintf(out, "%s\n", line.end_object().str().c_str());
  return 0;
}

}  // namespace rv::cli
