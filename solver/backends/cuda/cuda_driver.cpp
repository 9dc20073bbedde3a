// The CUDA driver API through dlopen/dlsym (built only with CUDA; cuda_driver_nocuda.cpp stands in
// without it). cuda.h is used for its types and constants only: libcuda is never linked.
#include "solver/backends/cuda/cuda_driver.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "dgmax/config.hpp"
#include "solver/util/error.hpp"
#include "solver/util/env.hpp"

static_assert(DGMAX_HAS_CUDA, "solver/backends/cuda/cuda_driver.cpp is built only with CUDA (see CMakeLists.txt)");
static_assert(std::is_same_v<CUfunction, dgmax::cuda::Function>, "cuda_driver.hpp: Function must be CUfunction");
static_assert(std::is_same_v<CUstream, dgmax::cuda::Stream>, "cuda_driver.hpp: Stream must be CUstream");
static_assert(std::is_same_v<CUdeviceptr, dgmax::cuda::DevicePtr>, "cuda_driver.hpp: DevicePtr must be CUdeviceptr");
static_assert(std::is_same_v<CUcontext, CUctx_st*> && std::is_same_v<CUmodule, CUmod_st*> &&
                  std::is_same_v<CUevent, CUevent_st*>,
              "cuda_driver.hpp: handle types must match cuda.h");

namespace dgmax::cuda {
namespace {

// The driver entry points dgmax uses. Members are named after the library's symbols (the _v2 names
// are what cuda.h's macros map the plain names to); their types come from cuda.h's declarations.
#define DGMAX_CU_FUNCTIONS(X)                                                                         \
  X(cuGetErrorName)                                                                                   \
  X(cuGetErrorString)                                                                                 \
  X(cuInit)                                                                                           \
  X(cuDriverGetVersion)                                                                               \
  X(cuDeviceGetCount)                                                                                 \
  X(cuDeviceGet)                                                                                      \
  X(cuDeviceGetName)                                                                                  \
  X(cuDeviceGetAttribute)                                                                             \
  X(cuDeviceTotalMem_v2)                                                                              \
  X(cuDevicePrimaryCtxRetain)                                                                         \
  X(cuDevicePrimaryCtxRelease_v2)                                                                     \
  X(cuCtxSetCurrent)                                                                                  \
  X(cuCtxGetCurrent)                                                                                  \
  X(cuCtxSynchronize)                                                                                 \
  X(cuModuleLoadData)                                                                                 \
  X(cuModuleUnload)                                                                                   \
  X(cuModuleGetFunction)                                                                              \
  X(cuFuncSetAttribute)                                                                               \
  X(cuFuncGetAttribute)                                                                               \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                      \
  X(cuLaunchKernel)                                                                                   \
  X(cuMemAlloc_v2)                                                                                    \
  X(cuMemFree_v2)                                                                                     \
  X(cuMemcpyHtoD_v2)                                                                                  \
  X(cuMemcpyDtoH_v2)                                                                                  \
  X(cuMemcpyDtoD_v2)                                                                                  \
  X(cuMemcpyHtoDAsync_v2)                                                                             \
  X(cuMemcpyDtoHAsync_v2)                                                                             \
  X(cuMemHostAlloc)                                                                                   \
  X(cuMemFreeHost)                                                                                    \
  X(cuStreamCreate)                                                                                   \
  X(cuStreamDestroy_v2)                                                                               \
  X(cuStreamWaitEvent)                                                                                \
  X(cuMemsetD8_v2)                                                                                    \
  X(cuMemGetInfo_v2)                                                                                  \
  X(cuEventCreate)                                                                                    \
  X(cuEventRecord)                                                                                    \
  X(cuEventSynchronize)                                                                               \
  X(cuEventDestroy_v2)                                                                                \
  X(cuStreamSynchronize)

struct Api {
#define DGMAX_CU_MEMBER(name) decltype(&::name) name = nullptr;
  DGMAX_CU_FUNCTIONS(DGMAX_CU_MEMBER)
#undef DGMAX_CU_MEMBER
  // cuEventElapsedTime_v2 (CUDA >= 12.8), else the original cuEventElapsedTime (same signature).
  decltype(&::cuEventElapsedTime_v2) cuEventElapsedTime = nullptr;
};

struct DriverState {
  std::once_flag once;
  bool ok = false;
  std::string library;          // what was dlopen'ed
  std::string message, hint;    // why it is not available
  Api api;
  int version = 0;
  int count = 0;
};

const char* kCpuHint = "use backend cpu (`--backend cpu`, or `backend: cpu` in the config)";

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// "CUDA_ERROR_X (n): <driver's text>", or "CUresult n" when the driver cannot say.
std::string describe(const Api& a, int r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (!a.cuGetErrorName || a.cuGetErrorName(static_cast<CUresult>(r), &name) != CUDA_SUCCESS || !name)
    return "CUresult " + std::to_string(r);
  if (!a.cuGetErrorString || a.cuGetErrorString(static_cast<CUresult>(r), &text) != CUDA_SUCCESS || !text)
    text = "no description";
  return std::string(name) + " (" + std::to_string(r) + "): " + text;
}

void load(DriverState& d) {
  d.library = env("DGMAX_CUDA_DRIVER");
  if (d.library.empty()) d.library = "libcuda.so.1";
  dlerror();
  void* lib = dlopen(d.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    const std::string why = e ? e : "dlopen failed";
    if (why.find("No such file") != std::string::npos || why.find("cannot open shared object") != std::string::npos) {
      d.message = "no CUDA driver found (" + d.library + "): this machine has no NVIDIA GPU driver";
      d.hint = std::string(kCpuHint) + "; on a GPU machine, install the NVIDIA driver (nvidia-smi lists the GPUs)";
    } else {
      d.message = "the CUDA driver (" + d.library + ") cannot be loaded: " + why;
      d.hint = std::string(kCpuHint) + "; or repair the NVIDIA driver installation";
    }
    return;  // the library stays unloaded; nothing to close
  }
  Api& a = d.api;
  std::string missing;
  auto sym = [&](const char* name) {
    void* p = dlsym(lib, name);
    if (!p) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return p;
  };
#define DGMAX_CU_LOAD(name) a.name = reinterpret_cast<decltype(a.name)>(sym(#name));
  DGMAX_CU_FUNCTIONS(DGMAX_CU_LOAD)
#undef DGMAX_CU_LOAD
  void* elapsed = dlsym(lib, "cuEventElapsedTime_v2");
  if (!elapsed) elapsed = sym("cuEventElapsedTime");
  a.cuEventElapsedTime = reinterpret_cast<decltype(a.cuEventElapsedTime)>(elapsed);
  if (!missing.empty()) {
    int v = 0;
    if (a.cuDriverGetVersion) a.cuDriverGetVersion(&v);
    d.message = "the CUDA driver (" + d.library + (v ? ", CUDA " + version_text(v) : std::string()) +
                ") is too old for dgmax: it lacks " + missing;
    d.hint = std::string("update the NVIDIA driver, or ") + kCpuHint;
    return;  // never dlclose'd: the function pointers may have been handed out elsewhere
  }
  CUresult r = a.cuInit(0);
  if (r != CUDA_SUCCESS) {
    d.message = "the CUDA driver (" + d.library + ") cannot be initialised: cuInit failed: " + describe(a, r);
    if (r == CUDA_ERROR_NO_DEVICE)
      d.hint = "no GPU is visible: check nvidia-smi and CUDA_VISIBLE_DEVICES, or " + std::string(kCpuHint);
    else if (r == CUDA_ERROR_STUB_LIBRARY)
      d.hint = "this is the CUDA Toolkit's stub library, not a driver: remove its folder (…/lib64/stubs) from "
               "LD_LIBRARY_PATH, or " + std::string(kCpuHint);
    else if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH ||
             r == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
      d.hint = "the kernel module and the user-space driver do not match: reinstall the NVIDIA driver (or reboot "
               "after an update), or " + std::string(kCpuHint);
    else
      d.hint = kCpuHint;
    return;
  }
  a.cuDriverGetVersion(&d.version);
  r = a.cuDeviceGetCount(&d.count);
  if (r != CUDA_SUCCESS || d.count < 1) {
    d.message = "the CUDA driver (" + d.library + ", CUDA " + version_text(d.version) + ") sees no GPU" +
                (r != CUDA_SUCCESS ? ": cuDeviceGetCount failed: " + describe(a, r)
                                   : std::string(" (cuDeviceGetCount = 0)"));
    d.hint = "check nvidia-smi and CUDA_VISIBLE_DEVICES, or " + std::string(kCpuHint);
    return;
  }
  d.ok = true;
}

DriverState& driver_state() {
  static DriverState d;
  std::call_once(d.once, [] { load(d); });
  return d;
}

// The loaded driver; UserError when there is none.
const Api& api() {
  DriverState& d = driver_state();
  if (!d.ok) throw UserError(d.message, {}, d.hint);
  return d.api;
}

bool is_environment_error(int r) {
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_MPS_CONNECTION_FAILED:
    case CUDA_ERROR_MPS_RPC_FAILURE:
    case CUDA_ERROR_MPS_SERVER_NOT_READY:
    case CUDA_ERROR_MPS_MAX_CLIENTS_REACHED:
    case CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return true;
    default:
      return false;
  }
}

// Errors after which the context is unusable (faults inside a kernel).
bool is_sticky(int r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
      return true;
    default:
      return false;
  }
}

// Throws for a failed call: "<what> failed: CUDA_ERROR_X (n): <text><details>".
[[noreturn]] void fail(int r, const std::string& what, const std::string& details = {}) {
  std::string msg = what + " failed: " + error_text(r) + details;
  if (is_environment_error(r)) {
    std::string hint;
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
      hint = "the NVIDIA driver is older than the CUDA Toolkit dgmax was built with: update the driver, or " +
             std::string(kCpuHint);
    else if (r == CUDA_ERROR_DEVICE_UNAVAILABLE)
      hint = "the GPU is busy (exclusive compute mode) or unavailable: check nvidia-smi, or " + std::string(kCpuHint);
    else
      hint = kCpuHint;
    throw UserError(msg, {}, hint);
  }
  if (is_sticky(r)) {
    msg += "\n  a kernel faulted; the CUDA context cannot be used any more.";
    if (!sync_after_launch())
      msg += " Kernel faults are reported by the next checked call: rerun with DGMAX_CUDA_SYNC=1 to name the "
             "kernel that faulted.";
  }
  throw InternalError(msg);
}

void ok_or_fail(CUresult r, const std::string& what) {
  if (r != CUDA_SUCCESS) fail(r, what);
}

// "123456 bytes (1.18 MiB)".
std::string bytes_text(size_t b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(b) + " bytes";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu bytes (%.2f %s)", b, v, units[u]);
  return buf;
}

std::string gib(size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// The context current on this thread as far as dgmax knows (set by Context::make_current).
thread_local const Context* t_current = nullptr;

struct Registry {
  std::mutex mutex;
  std::map<int, Context*> contexts;  // never freed: primary contexts live as long as the process
};

Registry& registry() {
  static Registry r;
  return r;
}

// The calling thread's context, else device 0's.
Context& default_context() { return t_current ? const_cast<Context&>(*t_current) : Context::get(0); }

}  // namespace

// ---- free functions --------------------------------------------------------------------------------

bool driver_available(std::string* why) {
  DriverState& d = driver_state();
  if (why) *why = d.ok ? std::string() : d.message;
  return d.ok;
}

int driver_version() {
  api();
  return driver_state().version;
}

int device_count() {
  api();
  return driver_state().count;
}

std::string error_text(int result) { return describe(driver_state().api, result); }

void check(int result, const char* call) {
  if (result != CUDA_SUCCESS) fail(result, call);
}

bool sync_after_launch() {
#ifdef NDEBUG
  static const bool sync = [] {
    const std::string v = env("DGMAX_CUDA_SYNC");
    return !v.empty() && v != "0";
  }();
  return sync;
#else
  return true;
#endif
}

std::string Dim3::str() const {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

// ---- DeviceInfo -------------------------------------------------------------------------------------

std::string DeviceInfo::arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

std::string DeviceInfo::summary() const {
  return "device " + std::to_string(ordinal) + ": " + name + " (" + arch() + ", " + std::to_string(sm_count) +
         " SMs, " + gib(total_mem) + ", driver CUDA " + version_text(driver_version) + ")";
}

// ---- Context ----------------------------------------------------------------------------------------

struct ContextFactory {
  static Context* create(int device) {
    const Api& a = api();
    const int count = driver_state().count;
    if (device < 0 || device >= count)
      throw UserError("CUDA device " + std::to_string(device) + " does not exist: this machine has " +
                          std::to_string(count) + (count == 1 ? " GPU (device 0)" : " GPUs (devices 0.." +
                                                                                       std::to_string(count - 1) + ")"),
                      {}, "choose a device below " + std::to_string(count) + " (see nvidia-smi and CUDA_VISIBLE_DEVICES)");
    std::unique_ptr<Context> c(new Context());
    DeviceInfo& info = c->info_;
    info.ordinal = device;
    info.driver_version = driver_state().version;
    const std::string dev_text = "CUDA device " + std::to_string(device);
    CUdevice dev = 0;
    ok_or_fail(a.cuDeviceGet(&dev, device), "cuDeviceGet(" + dev_text + ")");
    c->handle_ = dev;
    char name[256] = {};
    ok_or_fail(a.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName(" + dev_text + ")");
    info.name = name;
    auto attr = [&](CUdevice_attribute what, const char* label) {
      int v = 0;
      ok_or_fail(a.cuDeviceGetAttribute(&v, what, dev),
                 std::string("cuDeviceGetAttribute(") + label + ", " + dev_text + ")");
      return v;
    };
    info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
    info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
    info.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
    info.max_shared_per_block =
        static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"));
    info.max_shared_per_block_optin = static_cast<size_t>(
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"));
    info.max_shared_per_sm = static_cast<size_t>(
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"));
    info.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    info.max_block_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X");
    info.max_block_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y");
    info.max_block_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z");
    info.max_grid_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X");
    info.max_grid_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y");
    info.max_grid_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z");
    info.max_regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "MAX_REGISTERS_PER_BLOCK");
    info.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE");
    info.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
    info.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "GLOBAL_MEMORY_BUS_WIDTH");
    size_t total = 0;
    ok_or_fail(a.cuDeviceTotalMem_v2(&total, dev), "cuDeviceTotalMem(" + dev_text + ")");
    info.total_mem = total;

    const std::string described = dev_text + " (" + info.name + ")";
    CUcontext ctx = nullptr;
    ok_or_fail(a.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain(" + described + ")");
    const CUresult r = a.cuCtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) {
      a.cuDevicePrimaryCtxRelease_v2(dev);
      fail(r, "cuCtxSetCurrent(" + described + ")");
    }
    c->ctx_ = ctx;
    size_t free = 0;
    ok_or_fail(a.cuMemGetInfo_v2(&free, &total), "cuMemGetInfo(" + described + ")");
    info.free_mem = free;
    t_current = c.get();
    return c.release();
  }
};

namespace {
// The local rank the MPI launcher gives this process (0 outside a job).
int local_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"})
    if (const char* v = std::getenv(var)) return std::max(0, std::atoi(v));
  return 0;
}
}  // namespace

Context& Context::get(int device) {
  api();  // UserError without a driver, before taking the lock
  if (device < 0) {
    const int n = device_count();
    device = n > 0 ? local_rank() % n : 0;
  }
  Registry& reg = registry();
  Context* c = nullptr;
  {
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto it = reg.contexts.find(device);
    if (it != reg.contexts.end()) {
      c = it->second;
    } else {
      c = ContextFactory::create(device);
      reg.contexts[device] = c;
    }
  }
  c->make_current();
  return *c;
}

void Context::make_current() const {
  if (t_current == this) return;
  ok_or_fail(api().cuCtxSetCurrent(ctx_), "cuCtxSetCurrent(CUDA device " + std::to_string(info_.ordinal) + ")");
  t_current = this;
}

void Context::synchronize() const {
  make_current();
  ok_or_fail(api().cuCtxSynchronize(), "cuCtxSynchronize(CUDA device " + std::to_string(info_.ordinal) + ")");
}

MemInfo Context::mem_info() const {
  make_current();
  MemInfo m;
  ok_or_fail(api().cuMemGetInfo_v2(&m.free, &m.total),
             "cuMemGetInfo(CUDA device " + std::to_string(info_.ordinal) + ")");
  return m;
}

// ---- DeviceBuffer -----------------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(size_t bytes, std::string what) : DeviceBuffer(default_context(), bytes, std::move(what)) {}

DeviceBuffer::DeviceBuffer(Context& ctx, size_t bytes, std::string what) : ctx_(&ctx), what_(std::move(what)) {
  if (bytes == 0) return;
  ctx.make_current();
  CUdeviceptr p = 0;
  const CUresult r = api().cuMemAlloc_v2(&p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    MemInfo m;
    try {
      m = ctx.mem_info();
    } catch (const std::exception&) {
      m.total = ctx.info().total_mem;  // free unknown
    }
    throw UserError("out of GPU memory: cannot allocate " + bytes_text(bytes) +
                        (what_.empty() ? std::string() : " for " + what_) + " on " + ctx.info().summary() + ": " +
                        bytes_text(m.free) + " of " + bytes_text(m.total) + " are free",
                    {},
                    "use a coarser mesh, a lower order or single precision, or a GPU with more memory; or " +
                        std::string(kCpuHint));
  }
  if (r != CUDA_SUCCESS)
    fail(r, "cuMemAlloc(" + bytes_text(bytes) + (what_.empty() ? std::string() : " for " + what_) + ")");
  ptr_ = p;
  size_ = bytes;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ctx_(other.ctx_), ptr_(other.ptr_), size_(other.size_), what_(std::move(other.what_)) {
  other.ptr_ = 0;
  other.size_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = other.ctx_;
    ptr_ = other.ptr_;
    size_ = other.size_;
    what_ = std::move(other.what_);
    other.ptr_ = 0;
    other.size_ = 0;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (ptr_ && ctx_) {
    try {
      ctx_->make_current();
      api().cuMemFree_v2(ptr_);  // a failure (e.g. at exit, after the driver shut down) leaves nothing to do
    } catch (...) {
    }
  }
  ptr_ = 0;
  size_ = 0;
}

namespace {
void check_range(const DeviceBuffer& b, const char* op, size_t bytes, size_t offset) {
  DGMAX_ASSERT(offset <= b.size() && bytes <= b.size() - offset,
               std::string(op) + " of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                   " overruns the device buffer '" + b.what() + "' of " + std::to_string(b.size()) + " bytes");
}
}  // namespace

void DeviceBuffer::upload(const void* src, size_t bytes, size_t offset) {
  check_range(*this, "upload", bytes, offset);
  if (bytes == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemcpyHtoD_v2(ptr_ + offset, src, bytes),
             "cuMemcpyHtoD(" + bytes_text(bytes) + " to '" + what_ + "')");
}

void DeviceBuffer::download(void* dst, size_t bytes, size_t offset) const {
  check_range(*this, "download", bytes, offset);
  if (bytes == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemcpyDtoH_v2(dst, ptr_ + offset, bytes),
             "cuMemcpyDtoH(" + bytes_text(bytes) + " from '" + what_ + "')");
}

void DeviceBuffer::upload_async(const void* src, size_t bytes, Stream stream, size_t offset) {
  check_range(*this, "upload_async", bytes, offset);
  if (bytes == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemcpyHtoDAsync_v2(ptr_ + offset, src, bytes, stream),
             "cuMemcpyHtoDAsync(" + bytes_text(bytes) + " to '" + what_ + "')");
}

void DeviceBuffer::download_async(void* dst, size_t bytes, Stream stream, size_t offset) const {
  check_range(*this, "download_async", bytes, offset);
  if (bytes == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemcpyDtoHAsync_v2(dst, ptr_ + offset, bytes, stream),
             "cuMemcpyDtoHAsync(" + bytes_text(bytes) + " from '" + what_ + "')");
}

void DeviceBuffer::copy_from(const DeviceBuffer& src, size_t bytes, size_t dst_offset, size_t src_offset) {
  check_range(*this, "copy_from (destination)", bytes, dst_offset);
  check_range(src, "copy_from (source)", bytes, src_offset);
  if (bytes == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemcpyDtoD_v2(ptr_ + dst_offset, src.ptr_ + src_offset, bytes),
             "cuMemcpyDtoD(" + bytes_text(bytes) + " from '" + src.what_ + "' to '" + what_ + "')");
}

void DeviceBuffer::zero() {
  if (size_ == 0) return;
  ctx_->make_current();
  ok_or_fail(api().cuMemsetD8_v2(ptr_, 0, size_), "cuMemsetD8(" + bytes_text(size_) + " of '" + what_ + "')");
}

// ---- Module ------------------------------------------------------------------------------------------

Module::Module(const std::vector<char>& cubin, std::string name) : Module(default_context(), cubin, std::move(name)) {}

Module::Module(Context& ctx, const std::vector<char>& cubin, std::string name) : ctx_(&ctx), name_(std::move(name)) {
  DGMAX_ASSERT(!cubin.empty(), "the kernel module '" + name_ + "' is empty");
  ctx.make_current();
  CUmodule m = nullptr;
  const CUresult r = api().cuModuleLoadData(&m, cubin.data());
  if (r != CUDA_SUCCESS) {
    std::string what = "cuModuleLoadData(kernel module '" + name_ + "', " + bytes_text(cubin.size()) + ", on " +
                       ctx.info().summary() + ")";
    if (cubin.size() < 4 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) what += " [the image is not an ELF cubin]";
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE)
      what += " [the cubin must be compiled for this device's architecture, " + ctx.info().arch() +
              ", by an NVRTC no newer than the driver (CUDA " + version_text(ctx.info().driver_version) + ")]";
    fail(r, what);
  }
  module_ = m;
}

Module::~Module() { release(); }

Module::Module(Module&& other) noexcept : ctx_(other.ctx_), module_(other.module_), name_(std::move(other.name_)) {
  other.module_ = nullptr;
}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = other.ctx_;
    module_ = other.module_;
    name_ = std::move(other.name_);
    other.module_ = nullptr;
  }
  return *this;
}

void Module::release() noexcept {
  if (module_ && ctx_) {
    try {
      ctx_->make_current();
      api().cuModuleUnload(module_);
    } catch (...) {
    }
  }
  module_ = nullptr;
}

Function Module::function(const std::string& kernel) const {
  DGMAX_ASSERT(module_ != nullptr, "function('" + kernel + "') on an empty (moved-from) module '" + name_ + "'");
  ctx_->make_current();
  CUfunction f = nullptr;
  const CUresult r = api().cuModuleGetFunction(&f, module_, kernel.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw InternalError("the kernel module '" + name_ + "' has no kernel '" + kernel +
                        "' (kernels looked up by name must be extern \"C\" __global__ functions)");
  if (r != CUDA_SUCCESS) fail(r, "cuModuleGetFunction('" + kernel + "' in module '" + name_ + "')");
  return f;
}

// ---- kernels -----------------------------------------------------------------------------------------

KernelAttributes kernel_attributes(Function f) {
  const Api& a = api();
  auto get = [&](CUfunction_attribute what, const char* label) {
    int v = 0;
    ok_or_fail(a.cuFuncGetAttribute(&v, what, f), std::string("cuFuncGetAttribute(") + label + ")");
    return v;
  };
  KernelAttributes k;
  k.num_regs = get(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
  k.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
  k.static_shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES");
  k.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES");
  k.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION");
  return k;
}

int max_active_blocks(Function f, const char* kernel_name, int threads, size_t dynamic_shared_bytes) {
  int blocks = 0;
  ok_or_fail(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads, dynamic_shared_bytes),
             std::string("cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel '") + kernel_name + "', " +
                 std::to_string(threads) + " threads)");
  return blocks;
}

void set_max_dynamic_shared(Function f, const char* kernel_name, int bytes) {
  ok_or_fail(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
             std::string("cuFuncSetAttribute(kernel '") + kernel_name + "', MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                 std::to_string(bytes) + ")");
}

namespace {

std::string launch_text(const char* kernel_name, Dim3 grid, Dim3 block, size_t shared_bytes) {
  return std::string("launching kernel '") + kernel_name + "' with grid " + grid.str() + ", block " + block.str() +
         ", " + std::to_string(shared_bytes) + " bytes of dynamic shared memory";
}

// What is wrong with a launch shape, as far as the limits of the current device and the kernel tell.
std::string shape_problems(Function f, Dim3 grid, Dim3 block, size_t shared_bytes) {
  if (!t_current) return {};
  const DeviceInfo& d = t_current->info();
  std::string out;
  auto note = [&](const std::string& s) { out += "\n  " + s; };
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) note("the grid " + grid.str() + " is empty");
  if (threads == 0) note("the block " + block.str() + " is empty");
  if (threads > static_cast<unsigned long long>(d.max_threads_per_block))
    note("the block has " + std::to_string(threads) + " threads; " + d.name + " allows at most " +
         std::to_string(d.max_threads_per_block) + " per block");
  const unsigned bd[3] = {block.x, block.y, block.z}, gd[3] = {grid.x, grid.y, grid.z};
  const char* axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (bd[i] > static_cast<unsigned>(d.max_block_dim[i]))
      note(std::string("block.") + axis[i] + " = " + std::to_string(bd[i]) + " exceeds the device's " +
           std::to_string(d.max_block_dim[i]));
    if (gd[i] > static_cast<unsigned>(d.max_grid_dim[i]))
      note(std::string("grid.") + axis[i] + " = " + std::to_string(gd[i]) + " exceeds the device's " +
           std::to_string(d.max_grid_dim[i]));
  }
  int kernel_max = 0;
  if (api().cuFuncGetAttribute(&kernel_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS &&
      kernel_max > 0 && threads > static_cast<unsigned long long>(kernel_max) &&
      kernel_max < d.max_threads_per_block)
    note("this kernel allows at most " + std::to_string(kernel_max) + " threads per block (register use)");
  if (shared_bytes > d.max_shared_per_block_optin)
    note(std::to_string(shared_bytes) + " bytes of shared memory exceed the device's " +
         std::to_string(d.max_shared_per_block_optin) + " per block");
  else if (shared_bytes > d.max_shared_per_block)
    note("more than " + std::to_string(d.max_shared_per_block) +
         " bytes of dynamic shared memory need set_max_dynamic_shared() first");
  return out;
}

}  // namespace

void launch(Function f, const char* kernel_name, Dim3 grid, Dim3 block, size_t shared_bytes, void** args,
            Stream stream) {
  const Api& a = api();
  if (!t_current) {
    // A thread that has not touched CUDA yet: use the only context there is, if there is one.
    CUcontext cur = nullptr;
    if (a.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && !cur) {
      Registry& reg = registry();
      Context* only = nullptr;
      {
        std::lock_guard<std::mutex> lock(reg.mutex);
        if (reg.contexts.size() == 1) only = reg.contexts.begin()->second;
      }
      if (only) only->make_current();
    }
  }
  DGMAX_ASSERT(f != nullptr, std::string("launch of kernel '") + kernel_name + "' without a function");
  CUresult r = a.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                static_cast<unsigned>(shared_bytes), stream, args, nullptr);
  if (r != CUDA_SUCCESS)
    fail(r, launch_text(kernel_name, grid, block, shared_bytes), shape_problems(f, grid, block, shared_bytes));
  if (sync_after_launch()) {
    r = a.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS)
      fail(r, "kernel '" + std::string(kernel_name) + "' (grid " + grid.str() + ", block " + block.str() + ", " +
                  std::to_string(shared_bytes) + " bytes of dynamic shared memory), synchronized after its launch,");
  }
}

// ---- PinnedBuffer, OwnedStream -------------------------------------------------------------------

PinnedBuffer::PinnedBuffer(Context& ctx, size_t bytes, std::string what) : ctx_(&ctx) {
  if (bytes == 0) return;
  ctx.make_current();
  void* p = nullptr;
  ok_or_fail(api().cuMemHostAlloc(&p, bytes, 0),
             "cuMemHostAlloc(" + bytes_text(bytes) + (what.empty() ? std::string() : " for " + what) + ")");
  ptr_ = p;
  size_ = bytes;
}

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept : ctx_(other.ctx_), ptr_(other.ptr_), size_(other.size_) {
  other.ptr_ = nullptr;
  other.size_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = other.ctx_;
    ptr_ = other.ptr_;
    size_ = other.size_;
    other.ptr_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void PinnedBuffer::release() noexcept {
  if (ptr_ && ctx_) {
    try {
      ctx_->make_current();
      api().cuMemFreeHost(ptr_);
    } catch (...) {
    }
  }
  ptr_ = nullptr;
  size_ = 0;
}

OwnedStream::OwnedStream(Context& ctx) : ctx_(&ctx) {
  ctx.make_current();
  CUstream s = nullptr;
  ok_or_fail(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  stream_ = s;
}

OwnedStream::~OwnedStream() { release(); }

OwnedStream::OwnedStream(OwnedStream&& other) noexcept : ctx_(other.ctx_), stream_(other.stream_) {
  other.stream_ = nullptr;
}

OwnedStream& OwnedStream::operator=(OwnedStream&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = other.ctx_;
    stream_ = other.stream_;
    other.stream_ = nullptr;
  }
  return *this;
}

void OwnedStream::release() noexcept {
  if (stream_ && ctx_) {
    try {
      ctx_->make_current();
      api().cuStreamSynchronize(stream_);  // its copies may still read or write buffers freed next
      api().cuStreamDestroy_v2(stream_);
    } catch (...) {
    }
  }
  stream_ = nullptr;
}

void synchronize(Stream stream) { ok_or_fail(api().cuStreamSynchronize(stream), "cuStreamSynchronize"); }

// ---- Event -------------------------------------------------------------------------------------------

Event::Event() : Event(default_context()) {}

Event::Event(Context& ctx) : ctx_(&ctx) {
  ctx.make_current();
  CUevent e = nullptr;
  ok_or_fail(api().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  event_ = e;
}

Event::~Event() { release(); }

Event::Event(Event&& other) noexcept : ctx_(other.ctx_), event_(other.event_) { other.event_ = nullptr; }

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = other.ctx_;
    event_ = other.event_;
    other.event_ = nullptr;
  }
  return *this;
}

void Event::release() noexcept {
  if (event_ && ctx_) {
    try {
      ctx_->make_current();
      api().cuEventDestroy_v2(event_);
    } catch (...) {
    }
  }
  event_ = nullptr;
}

void Event::record(Stream stream) {
  DGMAX_ASSERT(event_ != nullptr, "record() on an empty (moved-from) event");
  ctx_->make_current();
  ok_or_fail(api().cuEventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() const {
  DGMAX_ASSERT(event_ != nullptr, "synchronize() on an empty (moved-from) event");
  ctx_->make_current();
  ok_or_fail(api().cuEventSynchronize(event_), "cuEventSynchronize");
}

void Event::wait_in(Stream stream) const {
  DGMAX_ASSERT(event_ != nullptr, "wait_in() on an empty (moved-from) event");
  ctx_->make_current();
  ok_or_fail(api().cuStreamWaitEvent(stream, event_, 0), "cuStreamWaitEvent");
}

float Event::elapsed_ms(const Event& start) const {
  DGMAX_ASSERT(event_ != nullptr && start.event_ != nullptr, "elapsed_ms() with an empty (moved-from) event");
  start.synchronize();
  synchronize();
  float ms = 0;
  ok_or_fail(api().cuEventElapsedTime(&ms, start.event_, event_), "cuEventElapsedTime");
  return ms;
}

}  // namespace dgmax::cuda
