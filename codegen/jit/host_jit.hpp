// The host-compiler JIT: one entry point, jit_compile(), that turns a complete C++ translation
// unit into a loaded shared object, compiling it at most once per content (on-disk cache, see
// codegen/jit/jit_cache.hpp for the layout and locking) and at most once per process.
//
//   auto lib = codegen::jit_compile(source, "dgmax_cpu_N3");
//   auto f = reinterpret_cast<double (*)(double)>(lib->symbol("f"));
//
// Cache key: SHA-256 (first 128 bits, hex) of
//   a format tag | the compiler's identity (first line of `<compiler> --version`, run once per
//   process and compiler) | each flag | the host CPU (model and feature flags from /proc/cpuinfo,
//   only when a flag says -march/-mtune/-mcpu=native, so a cache shared by different machines
//   over NFS does not hand out code with instructions the CPU lacks) | extra_key | the source.
// Files: <cache_dir>/cpu/<key>.cpp (the source, kept, plus an exported `dgmax_cache_key` holding
// the key: a library is used only when it names its own entry), <key>.so (+ <key>.so.sum, which
// names the key too), <key>.log (only after a failed compile), <key>.lock (waits for it are
// bounded: see KeyLock in jit_cache.hpp). A refused entry is rebuilt with a note on stderr.
//
// Errors:
// - compiler not found / not runnable, cache directory not creatable, not writable or on a noexec
//   file system: UserError.
// - the generated source does not compile: InternalError ("please report") with the compiler's
//   command line and log, the source lines the log names (numbered, ±5 lines; the first 200 lines
//   when it names none), and the paths of the kept source and log. When a trivial source does not
//   compile with the same compiler and flags either, the toolchain is at fault: UserError instead.
// - a library that compiles but does not load (e.g. an undefined function): InternalError with
//   the loader's message.
// - a symbol missing from a library: InternalError listing the names the library exports.
// The compiler runs without a time limit; nothing is ever evicted from the cache (delete the
// directory to reclaim the space).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace dgmax::codegen {

// The compiler, flags and cache directory. A default-constructed object holds the defaults,
// read from the environment at construction.
struct HostJitOptions {
  // A single program, by name (searched in PATH) or path; never run through a shell, so paths
  // with spaces need no quoting, and wrappers such as "ccache g++" are not split (use a script).
  // Default: $DGMAX_CXX, else $CXX, else "c++".
  std::string compiler = default_compiler();
  // Default: default_flags(). The compiler is run as `compiler flags... -o <out.so> <key>.cpp`.
  std::vector<std::string> flags = default_flags();
  // Default: default_jit_cache_dir() ($DGMAX_CACHE_DIR, $XDG_CACHE_HOME/dgmax, ~/.cache/dgmax);
  // empty when there is no home directory, and then jit_compile says so (UserError).
  std::string cache_dir = default_cache_dir();
  // Mixed into the key: anything the source depends on that is not in its text, e.g. the contents
  // of headers it #includes through a flag such as -I.
  std::string extra_key;

  static std::string default_compiler();
  // -O3 -march=native -fopenmp -fPIC -shared -std=c++17 -ffp-contract=off -g0 -pipe.
  // -ffp-contract=off: no fused multiply-add unless the source writes std::fma, so generated
  // scalar code (e.g. the flux, emitted in the DAG interpreter's operation order) rounds exactly
  // like the same operations in dgmax itself (built without -march=native, so without FMA), and
  // backends can be compared bitwise where the operation order agrees. A plan that wants FMA
  // appends -ffp-contract=fast (the later flag wins) and gets its own cache key.
  static std::vector<std::string> default_flags();
  static std::string default_cache_dir();
};

// Process-wide counters, updated under a lock; printed in run logs.
struct JitStats {
  int compiled = 0;            // jit_compile calls that ran the compiler
  int cache_hits = 0;          // calls served without compiling (from memory or from disk)
  int rebuilt = 0;             // of `compiled`: cache entries found corrupt and replaced
  double compile_seconds = 0;  // wall time of the compiled calls (compiler run, write, load)
  double load_seconds = 0;     // wall time of the cache hits from disk (verify + dlopen)
};
// A snapshot (a copy, so that it is consistent while other threads compile).
JitStats jit_stats();

// A shared object loaded with dlopen(RTLD_NOW | RTLD_LOCAL); dlclose when the last owner lets go.
// Do not let go while code from it runs (e.g. OpenMP threads in one of its functions).
class LoadedLibrary {
 public:
  // Loads `path`; nullptr and the loader's message in *error when that fails.
  static std::shared_ptr<LoadedLibrary> open(const std::string& path, const std::string& name_hint,
                                             std::string* error);
  ~LoadedLibrary();
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  // Address of the exported symbol `name` (extern "C" names are plain). InternalError listing the
  // exported names when there is none.
  void* symbol(const std::string& name) const;
  // Exported functions and objects, read from the file's ELF dynamic symbol table (empty when the
  // file cannot be read), less the cache's own dgmax_cache_key.
  std::vector<std::string> exported_names() const;

  void* handle() const { return handle_; }                      // for dlsym
  const std::string& path() const { return path_; }            // the .so in the cache
  const std::string& name_hint() const { return name_hint_; }  // as given to jit_compile

 private:
  LoadedLibrary(void* handle, std::string path, std::string name_hint);
  void* handle_;
  std::string path_, name_hint_;
};

// The host processor's model: the "model name" of /proc/cpuinfo's first processor (else its
// vendor, family and model lines joined), "unknown cpu" where there is none.
std::string host_cpu_model();

// The cache key jit_compile uses for (source, opt): 32 hex digits. Runs `compiler --version` on the
// first use of a compiler (UserError when it cannot be run).
std::string host_jit_key(const std::string& source, const HostJitOptions& opt = {});

// Compiles `source` (a complete C++ translation unit) to a shared object and loads it, or loads
// it from the cache (memory first: a library still loaded in this process for the same cache
// directory and key is returned again; then disk). Thread-safe; threads asking for one key
// wait for a single build. `name_hint` names the library in messages (e.g. "dgmax_cpu_N3").
std::shared_ptr<LoadedLibrary> jit_compile(const std::string& source, const std::string& name_hint,
                                           const HostJitOptions& opt = {});

}  // namespace dgmax::codegen
