// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and dlsym of the functions dgmax
// uses, so that the dgmax binary starts (and its cpu backend runs) on machines without an NVIDIA
// driver; only asking for a GPU fails there, with a UserError. A small RAII layer on top:
//
//   auto& ctx = cuda::Context::get();                    // device 0, primary context
//   cuda::DeviceBuffer x(n * sizeof(double), "E field"); // "E field" names it in out-of-memory errors
//   x.upload(host.data(), n * sizeof(double));
//   cuda::Module m(codegen::nvrtc_compile(src, "saxpy", {.arch = ctx.info().arch()}), "saxpy");
//   cuda::DevicePtr px = x.ptr();
//   void* args[] = {&n, &px};
//   cuda::launch(m.function("saxpy"), "saxpy", cuda::Dim3(blocks), cuda::Dim3(256), 0, args);
//
// Threads: every call makes the object's context current on the calling thread first (a cheap
// thread-local check of what dgmax last made current there; code that switches contexts behind
// dgmax's back must call Context::make_current() again), so objects can be used from any thread.
// launch() takes a bare CUfunction: its context must be current (any object of that context used
// on the thread makes it so; a thread with no current context gets the only context, if there is
// just one). Lazy initialisation (loading the driver, retaining a device's context) happens once,
// under a mutex.
//
// Errors (all exceptions carry the failing driver call, CUDA_ERROR_<name> and the driver's text):
// - no libcuda.so.1: UserError "no CUDA driver found (libcuda.so.1): this machine has no NVIDIA GPU
//   driver", hint: use backend cpu. A driver lacking a function: UserError (driver too old).
// - cuInit fails, no device, device ordinal out of range: UserError with the reason.
// - out of device memory (cuMemAlloc): UserError with the bytes requested, what they were for, and
//   the device's free and total memory.
// - errors the environment causes (no device, unsupported driver, device busy/unavailable, ECC
//   errors...): UserError; everything else (invalid arguments or launch shapes, illegal addresses
//   in kernels, ...): InternalError ("please report").
// - launch(): checks the launch, and when DGMAX_CUDA_SYNC=1 (or in builds without NDEBUG) also
//   synchronizes and checks the kernel's execution; the message names the kernel and its shape.
//   Kernel faults are reported asynchronously otherwise, by the next checked call.
//
// Environment: DGMAX_CUDA_DRIVER=<path> loads that library instead of libcuda.so.1 (tests, unusual
// installs); DGMAX_CUDA_SYNC=1 synchronizes after every launch.
//
// This header does not need cuda.h: the handle types below are the ones cuda.h declares
// (CUfunction is CUfunc_st*, CUstream is CUstream_st*, CUdeviceptr is unsigned long long), so code
// that includes cuda.h can pass its handles here. In builds without CUDA (DGMAX_HAS_CUDA 0) the
// same API exists: driver_available() returns false ("this build has no CUDA support") and every
// other entry point that needs the driver throws that as a UserError.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
struct CUstream_st;

namespace dgmax::cuda {

using Function = ::CUfunc_st*;      // CUfunction
using Stream = ::CUstream_st*;      // CUstream; nullptr: the default (legacy) stream
using DevicePtr = unsigned long long;  // CUdeviceptr

// True when the driver library loads, cuInit succeeds and it reports at least one device; else false
// and the reason (the message the UserError would carry) in *why. Never throws; the answer is
// computed once per process.
bool driver_available(std::string* why = nullptr);

// Driver API version, e.g. 13000 for CUDA 13.0 (cuDriverGetVersion). UserError without a driver.
int driver_version();
// Number of devices. UserError without a (working) driver.
int device_count();

// Throws when `result` (a CUresult) is not CUDA_SUCCESS: "<call> failed: CUDA_ERROR_X (n): <text>".
// UserError for errors of the environment (see above), InternalError otherwise.
void check(int result, const char* call);
// "CUDA_ERROR_X (n): <text>" for a CUresult.
std::string error_text(int result);

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;  // compute capability
  int sm_count = 0;
  size_t total_mem = 0;            // bytes
  size_t free_mem = 0;             // bytes, when the context was created (Context::mem_info() for now)
  size_t max_shared_per_block = 0;        // bytes, without opting in
  size_t max_shared_per_block_optin = 0;  // bytes, with cuFuncSetAttribute (set_max_dynamic_shared)
  size_t max_shared_per_sm = 0;           // bytes
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  int max_regs_per_block = 0;
  int warp_size = 0;
  int l2_bytes = 0;
  int memory_bus_bits = 0;
  int driver_version = 0;  // as driver_version()

  std::string arch() const;     // "sm_90": what NVRTC compiles for (codegen::NvrtcOptions::arch)
  std::string summary() const;  // "device 0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, driver 13.0)"
};

struct MemInfo {
  size_t free = 0, total = 0;  // bytes
};

// A device's primary context, retained on first use and kept for the life of the process (the
// driver tears it down at exit).
class Context {
 public:
  // The context of `device` (an ordinal < device_count()), made current on the calling thread.
  // device < 0: this process's device, the MPI launcher's local rank modulo the device count (one
  // GPU per rank on a node), 0 outside an MPI job. UserError without a driver or device.
  static Context& get(int device = -1);

  const DeviceInfo& info() const { return info_; }
  int device() const { return info_.ordinal; }
  void make_current() const;      // on the calling thread (no-op when it already is)
  void synchronize() const;       // cuCtxSynchronize, checked: waits for all work in the context
  MemInfo mem_info() const;       // cuMemGetInfo now

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  Context() = default;
  friend struct ContextFactory;
  DeviceInfo info_;
  CUctx_st* ctx_ = nullptr;
  int handle_ = 0;  // CUdevice
};

// Device memory (cuMemAlloc / cuMemFree). Move-only; an empty buffer (size 0) owns nothing.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `what` names the data in messages (e.g. "fields (6 x 1843200 doubles, 307200 DOF)").
  explicit DeviceBuffer(size_t bytes, std::string what = {});
  DeviceBuffer(Context& ctx, size_t bytes, std::string what = {});
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  size_t size() const { return size_; }
  DevicePtr ptr() const { return ptr_; }
  bool empty() const { return size_ == 0; }
  const std::string& what() const { return what_; }

  // Synchronous copies of `bytes` at byte `offset` of this buffer; InternalError when out of range.
  void upload(const void* src, size_t bytes, size_t offset = 0);
  void download(void* dst, size_t bytes, size_t offset = 0) const;
  // The same queued on `stream` (host memory should be a PinnedBuffer's: pageable memory makes the
  // driver copy synchronously through a staging buffer).
  void upload_async(const void* src, size_t bytes, Stream stream, size_t offset = 0);
  void download_async(void* dst, size_t bytes, Stream stream, size_t offset = 0) const;
  void copy_from(const DeviceBuffer& src, size_t bytes, size_t dst_offset = 0, size_t src_offset = 0);
  void zero();  // all bytes 0 (cuMemsetD8)

  template <class T>
  void upload(const std::vector<T>& v) { upload(v.data(), v.size() * sizeof(T)); }
  template <class T>
  void download(std::vector<T>& v) const { download(v.data(), v.size() * sizeof(T)); }

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  DevicePtr ptr_ = 0;
  size_t size_ = 0;
  std::string what_;
};

// Page-locked host memory (cuMemHostAlloc / cuMemFreeHost), for copies that run at the link's full
// rate and asynchronously. Move-only; an empty buffer owns nothing.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(Context& ctx, size_t bytes, std::string what = {});
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void* data() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

// A stream of its own that does not wait for the legacy default stream (CU_STREAM_NON_BLOCKING):
// copies queued on it run beside the kernels of the default stream; order the two with events
// (Event::record on one, Event::wait_in on the other). Move-only.
class OwnedStream {
 public:
  OwnedStream() = default;
  explicit OwnedStream(Context& ctx);
  ~OwnedStream();  // waits for the work queued on it first
  OwnedStream(OwnedStream&& other) noexcept;
  OwnedStream& operator=(OwnedStream&& other) noexcept;
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;

  Stream get() const { return stream_; }

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  Stream stream_ = nullptr;
};

// A loaded cubin (cuModuleLoadData / cuModuleUnload). Move-only.
class Module {
 public:
  Module(const std::vector<char>& cubin, std::string name);
  Module(Context& ctx, const std::vector<char>& cubin, std::string name);
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The kernel `kernel` (an extern "C" __global__ name). InternalError naming the module when absent.
  Function function(const std::string& kernel) const;
  const std::string& name() const { return name_; }

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  CUmod_st* module_ = nullptr;
  std::string name_;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3() = default;
  constexpr Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  std::string str() const;  // "(x, y, z)"
};

// What the compiler made of a kernel (cuFuncGetAttribute).
struct KernelAttributes {
  int num_regs = 0;
  int max_threads_per_block = 0;  // for this kernel (registers may limit it below the device's)
  int static_shared_bytes = 0;
  int local_bytes = 0;            // per thread: spills show up here
  int binary_version = 0;         // e.g. 90
};
KernelAttributes kernel_attributes(Function f);
// Blocks of `threads` threads (and `dynamic_shared_bytes`) that fit on one multiprocessor at once.
int max_active_blocks(Function f, const char* kernel_name, int threads, size_t dynamic_shared_bytes = 0);

// Allows `bytes` of dynamic shared memory (above 48 KiB needs this; at most
// DeviceInfo::max_shared_per_block_optin minus the kernel's static shared memory).
void set_max_dynamic_shared(Function f, const char* kernel_name, int bytes);

// cuLaunchKernel, checked; see the header comment for when it also synchronizes. The error names
// `kernel_name`, grid, block and shared bytes, and what is wrong with the shape when it exceeds a
// device limit.
void launch(Function f, const char* kernel_name, Dim3 grid, Dim3 block, size_t shared_bytes, void** args,
            Stream stream = nullptr);
// Whether launch() synchronizes after each launch.
bool sync_after_launch();

// A CUDA event (cuEventCreate / cuEventDestroy) for timing work on a stream. Move-only.
class Event {
 public:
  Event();
  explicit Event(Context& ctx);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(Stream stream = nullptr);
  void synchronize() const;
  // Work queued on `stream` from now on waits for this event's last record (cuStreamWaitEvent).
  void wait_in(Stream stream) const;
  // Milliseconds from `start` to this event, both recorded; waits for this event first (and for
  // `start`, which may have been recorded on another stream; the result is then negative when
  // `start` came later).
  float elapsed_ms(const Event& start) const;

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  CUevent_st* event_ = nullptr;
};

// Waits for all work queued on `stream` (cuStreamSynchronize), checked.
void synchronize(Stream stream = nullptr);

}  // namespace dgmax::cuda
