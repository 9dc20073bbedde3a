// Stand-in for codegen/jit/nvrtc_jit.cpp in builds without CUDA (DGMAX_USE_CUDA=OFF): the same
// functions, so that callers compile and link unchanged; each says that this build has no CUDA.
#include "codegen/jit/nvrtc_jit.hpp"
#include "dgmax/config.hpp"
#include "solver/util/error.hpp"

static_assert(!DGMAX_HAS_CUDA, "codegen/jit/nvrtc_jit_nocuda.cpp is built only without CUDA (see CMakeLists.txt)");

namespace dgmax::codegen {
namespace {

[[noreturn]] void no_cuda(const std::string& what) {
  throw UserError(what + ": this build has no CUDA support", {},
                  "use backend cpu, or rebuild dgmax with the CUDA Toolkit installed (CMake finds NVRTC and "
                  "turns DGMAX_USE_CUDA on)");
}

}  // namespace

NvrtcStats nvrtc_stats() { return {}; }

std::string nvrtc_version_string() { no_cuda("NVRTC is not available"); }

std::vector<std::string> nvrtc_supported_archs() { no_cuda("NVRTC is not available"); }

std::string nvrtc_key(const std::string&, const NvrtcOptions&) { no_cuda("NVRTC is not available"); }

std::vector<char> nvrtc_compile(const std::string&, const std::string& name_hint, const NvrtcOptions&) {
  no_cuda("cannot compile the CUDA kernel '" + name_hint + "'");
}

}  // namespace dgmax::codegen
