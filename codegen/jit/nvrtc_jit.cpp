// NVRTC JIT (built only with CUDA; codegen/jit/nvrtc_jit_nocuda.cpp stands in without it).
#include "codegen/jit/nvrtc_jit.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "codegen/jit/compile_log.hpp"
#include "codegen/jit/content_hash.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "dgmax/config.hpp"
#include "solver/util/error.hpp"

static_assert(DGMAX_HAS_CUDA, "codegen/jit/nvrtc_jit.cpp is built only with CUDA (see CMakeLists.txt)");

namespace dgmax::codegen {
namespace fs = std::filesystem;
namespace {

// Changes whenever the key's composition or the cache layout changes.
constexpr const char* kFormatTag = "dgmax nvrtc-jit 1";

struct State {
  std::mutex mutex;
  NvrtcStats stats;
};

State& state() {
  static State s;
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string result_text(nvrtcResult r) {
  const char* s = nvrtcGetErrorString(r);
  return std::string(s ? s : "unknown NVRTC error") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

// Every NVRTC call goes through this: a failure names the call.
void check(nvrtcResult r, const char* call, const std::string& name_hint) {
  if (r == NVRTC_SUCCESS) return;
  if (r == NVRTC_ERROR_OUT_OF_MEMORY)
    throw UserError(std::string(call) + " ran out of host memory while compiling '" + name_hint + "'", {},
                    "free memory on this machine or use a smaller order / fewer tuning variants");
  throw InternalError(std::string(call) + " failed for '" + name_hint + "': " + result_text(r));
}

std::pair<int, int> version() {
  static const std::pair<int, int> v = [] {
    int major = 0, minor = 0;
    check(nvrtcVersion(&major, &minor), "nvrtcVersion", "(version query)");
    return std::make_pair(major, minor);
  }();
  return v;
}

// "sm_<digits>" with an optional lower-case suffix ("sm_90a", "sm_100f").
bool is_sm_arch(const std::string& arch) {
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0) return false;
  size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) ++i;
  if (i == 3) return false;
  while (i < arch.size() && std::islower(static_cast<unsigned char>(arch[i]))) ++i;
  return i == arch.size();
}

// Owns an nvrtcProgram.
class Program {
 public:
  Program(const std::string& source, const std::string& program_name, const std::vector<NvrtcHeader>& headers,
          const std::string& name_hint)
      : name_hint_(name_hint) {
    std::vector<const char*> texts, names;
    for (const auto& h : headers) {
      texts.push_back(h.text.c_str());
      names.push_back(h.name.c_str());
    }
    check(nvrtcCreateProgram(&prog_, source.c_str(), program_name.c_str(), static_cast<int>(headers.size()),
                             headers.empty() ? nullptr : texts.data(), headers.empty() ? nullptr : names.data()),
          "nvrtcCreateProgram", name_hint_);
  }
  ~Program() {
    if (prog_) nvrtcDestroyProgram(&prog_);  // nothing to do about a failure here
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcResult compile(const std::vector<std::string>& options) {
    std::vector<const char*> argv;
    for (const auto& o : options) argv.push_back(o.c_str());
    return nvrtcCompileProgram(prog_, static_cast<int>(argv.size()), argv.empty() ? nullptr : argv.data());
  }

  std::string log() const {
    size_t size = 0;
    check(nvrtcGetProgramLogSize(prog_, &size), "nvrtcGetProgramLogSize", name_hint_);
    std::string log(size, '\0');
    if (size > 0) check(nvrtcGetProgramLog(prog_, log.data()), "nvrtcGetProgramLog", name_hint_);
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
  }

  std::vector<char> cubin() const {
    size_t size = 0;
    check(nvrtcGetCUBINSize(prog_, &size), "nvrtcGetCUBINSize", name_hint_);
    std::vector<char> bytes(size);
    if (size > 0) check(nvrtcGetCUBIN(prog_, bytes.data()), "nvrtcGetCUBIN", name_hint_);
    return bytes;
  }

 private:
  nvrtcProgram prog_ = nullptr;
  std::string name_hint_;
};

bool is_elf(const char* data, size_t size) { return size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0; }

void count_hit(double seconds) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats.cache_hits += 1;
  s.stats.load_seconds += seconds;
}

}  // namespace

// ---- queries --------------------------------------------------------------------------------------

NvrtcStats nvrtc_stats() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

std::string nvrtc_version_string() {
  const auto [major, minor] = version();
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_supported_archs() {
  int n = 0;
  check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs", "(architecture query)");
  std::vector<int> archs(static_cast<size_t>(std::max(n, 0)));
  if (n > 0) check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs", "(architecture query)");
  std::vector<std::string> out;
  for (int a : archs) out.push_back("sm_" + std::to_string(a));
  return out;
}

std::string nvrtc_key(const std::string& source, const NvrtcOptions& opt) {
  const auto [major, minor] = version();
  const std::vector<std::string> options = opt.options();
  ContentHash h;
  h.add(kFormatTag).add("nvrtc " + std::to_string(major) + "." + std::to_string(minor)).add(opt.arch);
  h.add(std::to_string(options.size()));
  for (const auto& o : options) h.add(o);
  h.add(std::to_string(opt.headers.size()));
  for (const auto& hd : opt.headers) h.add(hd.name).add(hd.text);
  h.add(opt.extra_key).add(source);
  return h.key();
}

// ---- nvrtc_compile ----------------------------------------------------------------------------------

std::vector<char> nvrtc_compile(const std::string& source, const std::string& name_hint, const NvrtcOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!is_sm_arch(opt.arch))
    throw UserError("invalid CUDA architecture '" + opt.arch + "' for '" + name_hint +
                        "': expected sm_<compute capability>, such as sm_90",
                    {}, "the architecture of a GPU is sm_<major><minor> of its compute capability (H100: sm_90)");
  const std::string key = nvrtc_key(source, opt);
  const JitCacheDir dir(opt.cache_dir.empty() ? default_jit_cache_dir() : opt.cache_dir, "cuda");
  const std::string entry = dir.path() + "/" + key;

  State& s = state();
  std::lock_guard<std::mutex> build_lock(entry_build_mutex(entry));  // one build per entry in this process

  const std::string cubin_path = dir.file(key, ".cubin");
  std::string problem;  // why an existing cubin was refused (its sidecar names another key...)
  auto valid_cubin = [&]() -> std::optional<std::vector<char>> {
    const auto bytes = read_valid_artifact(cubin_path, &problem);
    if (bytes && !is_elf(bytes->data(), bytes->size())) problem = "it is not an ELF image";
    if (!bytes || !is_elf(bytes->data(), bytes->size())) return std::nullopt;
    return std::vector<char>(bytes->begin(), bytes->end());
  };
  // Disk, without a lock: a valid entry is complete and never rewritten in place.
  if (auto hit = valid_cubin()) {
    count_hit(seconds_since(t0));
    return *hit;
  }

  dir.create();
  const KeyLock lock(dir, key);
  std::error_code ec;
  const bool existed = fs::exists(cubin_path, ec);
  if (lock.locked()) {
    if (existed) {
      if (auto hit = valid_cubin()) {  // another process built it while we waited
        count_hit(seconds_since(t0));
        return *hit;
      }
    }
    dir.remove_temps(key);
  }
  if (!problem.empty()) cache_note("rebuilding the kernel cache entry '" + cubin_path + "': " + problem);

  const std::string cu = dir.file(key, ".cu");
  const std::string log_path = dir.file(key, ".log");
  write_file_atomic(dir, cu, source);
  const std::vector<std::string> options = opt.options();
  const std::string version = nvrtc_version_string();

  Program prog(source, key + ".cu", opt.headers, name_hint);
  const nvrtcResult r = prog.compile(options);
  const std::string log = prog.log();
  if (r != NVRTC_SUCCESS) {
    write_file_atomic(dir, log_path,
                      "# " + version + " " + join(options, " ") + "\n# " + result_text(r) + "\n" + log);
    const std::string where = "\n  options: " + join(options, " ") + "\n  source:  " + cu + "\n  log:     " + log_path;
    if (r == NVRTC_ERROR_INVALID_OPTION) {
      std::string supported;
      try {
        supported = join(nvrtc_supported_archs(), " ");
      } catch (const std::exception&) {
        supported = "(unknown)";
      }
      throw UserError(version + " rejects the options for '" + name_hint + "' (" + result_text(r) + ")" + where +
                          "\n--- NVRTC log ---\n" + truncate_lines(log, 40, 4000) +
                          "architectures this NVRTC supports: " + supported,
                      {},
                      "a GPU newer than this CUDA Toolkit needs a newer one; otherwise check the extra NVRTC "
                      "options");
    }
    if (r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
      throw UserError(version + " cannot compile '" + name_hint + "': " + result_text(r) + where +
                          "\n--- NVRTC log ---\n" + truncate_lines(log, 40, 4000),
                      {},
                      "the NVRTC installation is incomplete: libnvrtc-builtins.so must sit next to libnvrtc.so "
                      "(reinstall the CUDA Toolkit or fix LD_LIBRARY_PATH)");
    if (r != NVRTC_ERROR_COMPILATION) check(r, "nvrtcCompileProgram", name_hint);
    std::string msg = "generated CUDA source '" + name_hint + "' does not compile with " + version + " for " +
                      opt.arch + where + "\n";
    msg += "--- NVRTC log ---\n" + truncate_lines(log, 200, 20000);
    const std::vector<int> lines = lines_named_in_log(log, key + ".cu");
    msg += "--- generated source " + cu + (lines.empty() ? " (first lines)" : " (lines the log names)") + " ---\n";
    msg += numbered_source_excerpt(source, lines);
    throw InternalError(msg);
  }

  std::vector<char> cubin = prog.cubin();
  if (!is_elf(cubin.data(), cubin.size()))
    throw InternalError(version + " compiled '" + name_hint + "' for " + opt.arch + " but gave " +
                        (cubin.empty() ? std::string("no cubin") : std::string("a cubin that is not an ELF image")) +
                        "\n  options: " + join(options, " ") + "\n  source:  " + cu);
  publish_artifact_bytes(dir, cubin_path, std::string_view(cubin.data(), cubin.size()));
  fs::remove(log_path, ec);
  {
    std::lock_guard<std::mutex> guard(s.mutex);
    s.stats.compiled += 1;
    if (existed) s.stats.rebuilt += 1;
    s.stats.compile_seconds += seconds_since(t0);
  }
  return cubin;
}

}  // namespace dgmax::codegen
