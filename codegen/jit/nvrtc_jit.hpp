// The NVRTC JIT: one entry point, nvrtc_compile(), that turns a complete CUDA C++ translation unit
// into a cubin (device code for one GPU architecture, loadable with cuModuleLoadData), compiling
// it at most once per content (on-disk cache, same layout and locking as the host JIT: see
// codegen/jit/jit_cache.hpp).
//
//   NvrtcOptions opt;
//   opt.arch = cuda::Context::get().info().arch();            // "sm_90"
//   std::vector<char> cubin = codegen::nvrtc_compile(source, "dgmax_cuda_N3", opt);
//
// Cache key: SHA-256 (first 128 bits, hex) of
//   a format tag | "nvrtc <major>.<minor>" (nvrtcVersion) | the arch | each option, in order
//   (NvrtcOptions::options(), which holds the arch too) | each header's name and text | extra_key |
//   the source.
// Files: <cache_dir>/cuda/<key>.cu (the source, kept), <key>.cubin (+ <key>.cubin.sum, naming the
// key: a cubin of another entry copied over this one is rebuilt with a note), <key>.log
// (only after a failed compile), <key>.lock. The program is named "<key>.cu" for NVRTC, so its log
// says "<key>.cu(LINE): error: ...".
//
// Errors:
// - no kernel cache directory, not creatable or not writable: UserError (as for the host JIT).
// - an arch that is not "sm_<digits>[suffix]": UserError.
// - NVRTC rejects the options (e.g. an arch this NVRTC does not know, or a bad extra option):
//   UserError listing the options, NVRTC's log and the architectures this NVRTC supports.
// - the NVRTC installation is broken (libnvrtc-builtins missing): UserError.
// - the generated source does not compile: InternalError ("please report") with the options, the
//   NVRTC log, the source lines the log names (numbered, ±5 lines; the first 200 lines when it names
//   none) and the paths of the kept source and log.
// - any other failing NVRTC call: InternalError naming the call and NVRTC's error string.
// Built only with CUDA (DGMAX_HAS_CUDA). Without it, the same functions exist and throw
// UserError("this build has no CUDA support") (nvrtc_stats() returns zeros).
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "codegen/jit/jit_cache.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {

// A header the source can #include "name" without a file on disk (NVRTC's in-memory headers).
struct NvrtcHeader {
  std::string name;  // as written in the #include
  std::string text;
};

struct NvrtcOptions {
  // The target, "sm_<cc>" such as "sm_90" (H100) or "sm_80" (A100): NVRTC emits a cubin for it
  // (-arch=sm_90). Required; cuda::DeviceInfo::arch() gives the one of a device.
  std::string arch;
  bool fast_math = false;  // --use_fast_math (approximate division, sqrt, transcendentals; ftz)
  bool fmad = true;        // false: --fmad=false (no contraction of a*b+c into fma)
  bool line_info = false;  // -lineinfo (source lines for profilers; changes no code)
  // Appended verbatim after the defaults (later options win), e.g. "-maxrregcount=64", "-DNP=20".
  std::vector<std::string> extra;
  std::vector<NvrtcHeader> headers;
  // Default: default_jit_cache_dir() ($DGMAX_CACHE_DIR, $XDG_CACHE_HOME/dgmax, ~/.cache/dgmax);
  // empty when there is no home directory, and then nvrtc_compile says so (UserError).
  std::string cache_dir = default_cache_dir();
  // Mixed into the key: anything the source depends on that is not in its text or the headers.
  std::string extra_key;

  // The options NVRTC is given, in order:
  //   -arch=<arch> -std=c++17 -default-device [--use_fast_math] [--fmad=false] [-lineinfo] extra...
  std::vector<std::string> options() const {
    std::vector<std::string> o{"-arch=" + arch, "-std=c++17", "-default-device"};
    if (fast_math) o.push_back("--use_fast_math");
    if (!fmad) o.push_back("--fmad=false");
    if (line_info) o.push_back("-lineinfo");
    o.insert(o.end(), extra.begin(), extra.end());
    return o;
  }

  // The options the solver's kernels are compiled with for `arch`: with DGMAX_CUDA_LINEINFO set
  // (any value) also -lineinfo, so that Nsight Compute can map samples to generated source lines
  // (the same code).
  static NvrtcOptions for_kernels(const std::string& arch) {
    NvrtcOptions o;
    o.arch = arch;
    o.line_info = std::getenv("DGMAX_CUDA_LINEINFO") != nullptr;
    return o;
  }

  static std::string default_cache_dir() {
    try {
      return default_jit_cache_dir();
    } catch (const UserError&) {
      return {};  // reported by nvrtc_compile, where it matters
    }
  }
};

// Process-wide counters, updated under a lock (the host JIT has its own, jit_stats()).
struct NvrtcStats {
  int compiled = 0;            // nvrtc_compile calls that ran NVRTC successfully
  int cache_hits = 0;          // calls served from the disk cache without compiling
  int rebuilt = 0;             // of `compiled`: cache entries found corrupt (or missing a .sum) and replaced
  double compile_seconds = 0;  // wall time of the compiled calls (NVRTC, writing the entry)
  double load_seconds = 0;     // wall time of the cache hits (read + checksum)
};
// A snapshot (a copy, consistent while other threads compile).
NvrtcStats nvrtc_stats();

// "NVRTC 13.0" (nvrtcVersion).
std::string nvrtc_version_string();

// The architectures this NVRTC can compile for, as "sm_75", "sm_80", ... (nvrtcGetSupportedArchs).
std::vector<std::string> nvrtc_supported_archs();

// The cache key nvrtc_compile uses for (source, opt): 32 hex digits.
std::string nvrtc_key(const std::string& source, const NvrtcOptions& opt);

// Compiles `source` (a complete CUDA C++ translation unit; kernels that are looked up by name should
// be extern "C") to a cubin for opt.arch, or reads it from the cache. Thread-safe; threads and
// processes asking for one key wait for a single build. `name_hint` names the program in messages
// (e.g. "dgmax_cuda_N3"). The result is a complete ELF image (starts with "\x7f" "ELF").
std::vector<char> nvrtc_compile(const std::string& source, const std::string& name_hint,
                                const NvrtcOptions& opt);

}  // namespace dgmax::codegen
