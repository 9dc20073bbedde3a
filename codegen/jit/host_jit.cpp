#include "codegen/jit/host_jit.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "codegen/jit/compile_log.hpp"
#include "codegen/jit/content_hash.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "codegen/jit/subprocess.hpp"
#include "solver/util/error.hpp"
#include "solver/util/env.hpp"

namespace dgmax::codegen {
namespace fs = std::filesystem;
namespace {

// Changes whenever the key's composition or the cache layout changes.
constexpr const char* kFormatTag = "dgmax host-jit 1";

struct State {
  std::mutex mutex;
  JitStats stats;
  std::map<std::string, std::string> compiler_identity;         // compiler -> `--version` line 1
  std::map<std::string, std::weak_ptr<LoadedLibrary>> loaded;   // "<dir>/<key>" -> library
  std::string cpu_identity;
  bool cpu_known = false;
};

State& state() {
  static State s;
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The first line that is not blank (nvc++ --version starts with an empty line).
std::string first_line(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) return line;
    start = end + 1;
  }
  return {};
}

// For messages: the command line as a shell would need it (it is never run through one).
std::string display_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (!a.empty() && a.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

const char* kCompilerHint = "install g++ or set DGMAX_CXX to a working C++ compiler";

std::string compiler_identity(const std::string& compiler) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (auto it = s.compiler_identity.find(compiler); it != s.compiler_identity.end()) return it->second;
  }
  const ProcessResult r = run_process({compiler, "--version"});
  if (r.spawn_errno == ENOENT || r.spawn_errno == ENOTDIR || compiler.empty())
    throw UserError("C++ compiler '" + compiler +
                    "' not found; the cpu backend needs one (install g++ or set DGMAX_CXX)");
  if (r.spawn_errno != 0)
    throw UserError("C++ compiler '" + compiler + "' cannot be run: " + std::strerror(r.spawn_errno), {},
                    kCompilerHint);
  const std::string id = first_line(r.output);
  if (!r.ok() || id.empty())
    throw UserError("C++ compiler '" + compiler + "' does not work: '" + compiler + " --version' gave " +
                        r.status_text() + (id.empty() ? std::string() : ": " + id),
                    {}, kCompilerHint);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.compiler_identity[compiler] = id;
  return id;
}

bool targets_host_cpu(const std::vector<std::string>& flags) {
  for (const auto& f : flags)
    if (f == "-march=native" || f == "-mtune=native" || f == "-mcpu=native" || f == "-xHost") return true;
  return false;
}

// The first processor's model and feature lines from /proc/cpuinfo.
std::string cpu_identity() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.cpu_known) return s.cpu_identity;
  static const char* keys[] = {"vendor_id", "cpu family", "model", "model name", "flags", "Features",
                               "CPU implementer", "CPU architecture", "CPU variant", "CPU part"};
  std::ifstream in("/proc/cpuinfo");
  std::string line, id;
  while (std::getline(in, line) && !line.empty()) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (std::find(std::begin(keys), std::end(keys), key) != std::end(keys)) id += line + "\n";
  }
  s.cpu_identity = id.empty() ? "unknown cpu" : id;
  s.cpu_known = true;
  return s.cpu_identity;
}

std::string make_key(const std::string& source, const HostJitOptions& opt, const std::string& identity) {
  ContentHash h;
  h.add(kFormatTag).add(identity).add(std::to_string(opt.flags.size()));
  for (const auto& f : opt.flags) h.add(f);
  h.add(targets_host_cpu(opt.flags) ? cpu_identity() : std::string());
  h.add(opt.extra_key).add(source);
  return h.key();
}

std::vector<std::string> compile_command(const HostJitOptions& opt, const std::string& out,
                                         const std::string& src) {
  std::vector<std::string> argv{opt.compiler};
  argv.insert(argv.end(), opt.flags.begin(), opt.flags.end());
  argv.insert(argv.end(), {"-o", out, src});
  return argv;
}

// Whether a one-line source builds with this compiler and these flags (if not, the toolchain is
// broken or misconfigured, not the generated code). Leaves nothing behind.
bool toolchain_works(const JitCacheDir& dir, const HostJitOptions& opt, std::string* log) {
  const std::string src = JitCacheDir::temp_name(dir.path() + "/toolchain-probe") + ".cpp";
  const std::string out = JitCacheDir::temp_name(dir.path() + "/toolchain-probe") + ".so";
  {
    std::ofstream f(src);
    f << "extern \"C\" int dgmax_toolchain_probe(void) { return 42; }\n";
    if (!f) return true;  // cannot tell; blame the generated code
  }
  const ProcessResult r = run_process(compile_command(opt, out, src));
  std::error_code ec;
  fs::remove(src, ec);
  fs::remove(out, ec);
  *log = r.output;
  return r.ok();
}

[[noreturn]] void report_compile_failure(const ProcessResult& r, const std::vector<std::string>& argv,
                                         const std::string& source, const std::string& name_hint,
                                         const JitCacheDir& dir, const std::string& key,
                                         const HostJitOptions& opt) {
  if (r.spawn_errno == ENOENT)
    throw UserError("C++ compiler '" + opt.compiler +
                    "' not found; the cpu backend needs one (install g++ or set DGMAX_CXX)");
  if (r.spawn_errno != 0)
    throw UserError("C++ compiler '" + opt.compiler + "' cannot be run: " + std::strerror(r.spawn_errno), {},
                    kCompilerHint);
  const std::string cpp = dir.file(key, ".cpp");
  const std::string log_path = dir.file(key, ".log");
  std::string log = r.output;
  if (r.ok()) log += "\n(the compiler reported success but wrote no output file)\n";
  write_file_atomic(dir, log_path,
                    "# " + display_command(argv) + "\n# " + r.status_text() + "\n" + log);

  std::string probe_log;
  if (!toolchain_works(dir, opt, &probe_log))
    throw UserError("the C++ compiler '" + opt.compiler + "' cannot build a shared library with the flags '" +
                        join(opt.flags, " ") + "': even a one-line test source fails. Its log:\n" +
                        truncate_lines(probe_log, 40, 4000),
                    {},
                    "fix the compiler installation (OpenMP needs libgomp or libomp), or set DGMAX_CXX "
                    "to another C++ compiler");

  std::string msg = "generated C++ source '" + name_hint + "' does not compile (" + r.status_text() + ")\n";
  msg += "  command: " + display_command(argv) + "\n";
  msg += "  source:  " + cpp + "\n";
  msg += "  log:     " + log_path + "\n";
  msg += "--- compiler log ---\n" + truncate_lines(log, 200, 20000);
  const std::vector<int> lines = lines_named_in_log(log, key + ".cpp");
  msg += "--- generated source " + cpp + (lines.empty() ? " (first lines)" : " (lines the log names)") + " ---\n";
  msg += numbered_source_excerpt(source, lines);
  throw InternalError(msg);
}

// Whether the compiler makes a library that loads: the one-line probe compiled, opened and its
// symbol found. False, with *problem saying why, when it does not (the compiler is not the C++
// compiler it claims to be, or writes something else than a shared library).
bool toolchain_library_loads(const JitCacheDir& dir, const HostJitOptions& opt, std::string* problem) {
  const std::string base = JitCacheDir::temp_name(dir.path() + "/toolchain-probe");
  const std::string src = base + ".cpp", out = base + ".so";
  {
    std::ofstream f(src);
    f << "extern \"C\" int dgmax_toolchain_probe(void) { return 42; }\n";
    if (!f) return true;  // cannot tell; blame the generated code
  }
  const ProcessResult r = run_process(compile_command(opt, out, src));
  std::error_code ec;
  bool loads = false;
  if (!r.ok()) {
    *problem = "it fails on a one-line source (" + r.status_text() + ")";
  } else if (void* handle = dlopen(out.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    using Probe = int (*)();
    const auto probe = reinterpret_cast<Probe>(dlsym(handle, "dgmax_toolchain_probe"));
    loads = probe && probe() == 42;
    if (!loads) *problem = "its library of a one-line source does not export the source's function";
    dlclose(handle);
  } else {
    const char* e = dlerror();
    *problem = "its library of a one-line source does not load either: " + std::string(e ? e : "dlopen failed");
  }
  fs::remove(src, ec);
  fs::remove(out, ec);
  return loads;
}

// ELF64 dynamic symbol table of a shared object: defined global/weak functions and objects.
std::vector<std::string> elf_exported_names(const std::string& b) {
  std::vector<std::string> names;
  if (b.size() < sizeof(Elf64_Ehdr) || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64)
    return names;
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > b.size() ||
      eh.e_shnum > (b.size() - eh.e_shoff) / sizeof(Elf64_Shdr))
    return names;
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  if (eh.e_shnum > 0) std::memcpy(sh.data(), b.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  auto in_file = [&](uint64_t off, uint64_t size) { return off <= b.size() && size <= b.size() - off; };
  for (const auto& s : sh) {
    if (s.sh_type != SHT_DYNSYM || s.sh_link >= sh.size() || !in_file(s.sh_offset, s.sh_size)) continue;
    const Elf64_Shdr& str = sh[s.sh_link];
    if (!in_file(str.sh_offset, str.sh_size)) continue;
    for (uint64_t i = 0; i < s.sh_size / sizeof(Elf64_Sym); ++i) {
      Elf64_Sym sym;
      std::memcpy(&sym, b.data() + s.sh_offset + i * sizeof(Elf64_Sym), sizeof sym);
      const int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) continue;
      if (sym.st_name >= str.sh_size) continue;
      const char* p = b.data() + str.sh_offset + sym.st_name;
      names.emplace_back(p, strnlen(p, str.sh_size - sym.st_name));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Every library exports its cache key, appended to its source, and is used only after dlopen
// finds the right one there: an artifact that passed the sidecar check but is another entry's
// (copied over this one with a sidecar made for it) would otherwise be called with the wrong
// signatures.
constexpr const char* kKeySymbol = "dgmax_cache_key";

std::string with_key_symbol(const std::string& source, const std::string& key) {
  return source + "\n// the cache entry's identity, checked after loading\nextern \"C\" const char " +
         kKeySymbol + "[] = \"" + key + "\";\n";
}

// Loads `so` when it is the library of `key`; else nullptr, and *problem says why.
std::shared_ptr<LoadedLibrary> open_entry(const std::string& so, const std::string& key,
                                          const std::string& name_hint, std::string* problem) {
  auto lib = LoadedLibrary::open(so, name_hint, problem);
  if (!lib) return nullptr;
  const auto* id = static_cast<const char*>(dlsym(lib->handle(), kKeySymbol));
  if (id && std::strncmp(id, key.c_str(), key.size() + 1) == 0) return lib;
  *problem = id ? "it identifies itself as the entry " + std::string(id, strnlen(id, 64))
                : std::string("it does not export ") + kKeySymbol;
  return nullptr;
}

void count_hit(double seconds) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats.cache_hits += 1;
  s.stats.load_seconds += seconds;
}

}  // namespace

std::string host_cpu_model() {
  const std::string id = cpu_identity();
  std::istringstream in(id);
  std::string line, joined;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (line.rfind("model name", 0) == 0) return value;
    joined += (joined.empty() ? "" : " ") + value;
  }
  return joined.empty() ? "unknown cpu" : joined;
}

// ---- options ------------------------------------------------------------------------------------

std::string HostJitOptions::default_compiler() {
  if (std::string c = env("DGMAX_CXX"); !c.empty()) return c;
  if (std::string c = env("CXX"); !c.empty()) return c;
  return "c++";
}

std::vector<std::string> HostJitOptions::default_flags() {
  return {"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17", "-ffp-contract=off", "-g0",
          "-pipe"};
}

std::string HostJitOptions::default_cache_dir() {
  try {
    return default_jit_cache_dir();
  } catch (const UserError&) {
    return {};  // reported by jit_compile, where it matters
  }
}

JitStats jit_stats() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

// ---- LoadedLibrary --------------------------------------------------------------------------------

LoadedLibrary::LoadedLibrary(void* handle, std::string path, std::string name_hint)
    : handle_(handle), path_(std::move(path)), name_hint_(std::move(name_hint)) {}

LoadedLibrary::~LoadedLibrary() {
  if (handle_) dlclose(handle_);
}

std::shared_ptr<LoadedLibrary> LoadedLibrary::open(const std::string& path, const std::string& name_hint,
                                                   std::string* error) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    if (error) *error = e ? e : "dlopen failed";
    return nullptr;
  }
  return std::shared_ptr<LoadedLibrary>(new LoadedLibrary(handle, path, name_hint));
}

void* LoadedLibrary::symbol(const std::string& name) const {
  dlerror();
  void* p = dlsym(handle_, name.c_str());
  if (p) return p;
  const std::vector<std::string> names = exported_names();
  throw InternalError("the generated library '" + name_hint_ + "' (" + path_ + ") has no symbol '" + name +
                      "'; it exports " + (names.empty() ? std::string("nothing") : join(names, ", ")));
}

std::vector<std::string> LoadedLibrary::exported_names() const {
  const auto bytes = read_file(path_);
  std::vector<std::string> names = bytes ? elf_exported_names(*bytes) : std::vector<std::string>{};
  names.erase(std::remove(names.begin(), names.end(), kKeySymbol), names.end());  // ours, not the kernel's
  return names;
}

// ---- jit_compile --------------------------------------------------------------------------------

std::string host_jit_key(const std::string& source, const HostJitOptions& opt) {
  return make_key(source, opt, compiler_identity(opt.compiler));
}

std::shared_ptr<LoadedLibrary> jit_compile(const std::string& source, const std::string& name_hint,
                                           const HostJitOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string key = host_jit_key(source, opt);
  const JitCacheDir dir(opt.cache_dir.empty() ? default_jit_cache_dir() : opt.cache_dir, "cpu");
  const std::string entry = dir.path() + "/" + key;

  State& s = state();
  std::lock_guard<std::mutex> build_lock(entry_build_mutex(entry));  // one build per entry in this process
  auto remember = [&](const std::shared_ptr<LoadedLibrary>& lib) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.loaded[entry] = lib;
  };
  {
    std::shared_ptr<LoadedLibrary> lib;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (auto it = s.loaded.find(entry); it != s.loaded.end()) lib = it->second.lock();
    }
    if (lib) {
      count_hit(0);
      return lib;
    }
  }

  const std::string so = dir.file(key, ".so");
  // Disk, without a lock: a valid entry is complete and never rewritten in place.
  std::string problem;
  auto load_valid = [&]() -> std::shared_ptr<LoadedLibrary> {
    if (!read_valid_artifact(so, &problem)) return nullptr;
    return open_entry(so, key, name_hint, &problem);
  };
  if (auto lib = load_valid()) {
    remember(lib);
    count_hit(seconds_since(t0));
    return lib;
  }

  dir.create();
  const KeyLock lock(dir, key);
  std::error_code ec;
  const bool existed = fs::exists(so, ec);
  if (lock.locked() && existed) {
    if (auto lib = load_valid()) {  // another process built it while we waited
      remember(lib);
      count_hit(seconds_since(t0));
      return lib;
    }
  }
  if (lock.locked()) dir.remove_temps(key);
  if (!problem.empty()) cache_note("rebuilding the kernel cache entry '" + so + "': " + problem);

  const std::string cpp = dir.file(key, ".cpp");
  write_file_atomic(dir, cpp, with_key_symbol(source, key));
  const std::string tmp = JitCacheDir::temp_name(so);
  const std::vector<std::string> argv = compile_command(opt, tmp, cpp);
  const ProcessResult r = run_process(argv);
  if (!r.ok() || !fs::exists(tmp, ec)) {
    fs::remove(tmp, ec);
    report_compile_failure(r, argv, source, name_hint, dir, key, opt);
  }
  publish_artifact(dir, tmp, so);
  fs::remove(dir.file(key, ".log"), ec);

  std::string error;
  auto lib = open_entry(so, key, name_hint, &error);
  struct statvfs fs_info;
  if (!lib && statvfs(dir.path().c_str(), &fs_info) == 0 && (fs_info.f_flag & ST_NOEXEC))
    throw UserError("cannot load compiled kernels from the kernel cache directory '" + dir.path() +
                        "': its file system is mounted noexec (" + error + ")",
                    {}, "set DGMAX_CACHE_DIR to a directory on a file system that allows running code");
  // the compiler's fault (a DGMAX_CXX that writes something else than a shared library) is the
  // user's to fix; only a library that a working compiler made and that still does not load is ours
  if (std::string why; !lib && !toolchain_library_loads(dir, opt, &why))
    throw UserError("the C++ compiler '" + opt.compiler + "' wrote '" + so + "', which is not a loadable shared library (" +
                        error + "); " + why,
                    {},
                    "set DGMAX_CXX (or CXX) to a C++ compiler that builds shared libraries with -shared -fPIC, "
                    "such as g++ or clang++");
  if (!lib)
    throw InternalError("the generated library '" + name_hint + "' compiled but does not load: " + error +
                        "\n  source: " + cpp + "\n  command: " + display_command(argv));
  remember(lib);
  {
    std::lock_guard<std::mutex> guard(s.mutex);
    s.stats.compiled += 1;
    if (existed) s.stats.rebuilt += 1;
    s.stats.compile_seconds += seconds_since(t0);
  }
  return lib;
}

}  // namespace dgmax::codegen
