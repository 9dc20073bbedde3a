// Stand-in for cuda_driver.cpp in builds without CUDA (DGMAX_USE_CUDA=OFF): the same API, so that
// callers compile and link unchanged. driver_available() answers false; everything that would need
// the driver throws UserError("... this build has no CUDA support"). No object that owns a device
// resource can be made, so destructors and moves have nothing to do.
#include "dgmax/config.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/util/error.hpp"

static_assert(!DGMAX_HAS_CUDA,
              "solver/backends/cuda/cuda_driver_nocuda.cpp is built only without CUDA (see CMakeLists.txt)");

namespace dgmax::cuda {
namespace {

const char* kNoCuda = "this build has no CUDA support";

[[noreturn]] void no_cuda() {
  throw UserError(std::string("cannot use a GPU: ") + kNoCuda, {},
                  "use backend cpu, or rebuild dgmax with the CUDA Toolkit installed (CMake finds NVRTC and turns "
                  "DGMAX_USE_CUDA on)");
}

}  // namespace

bool driver_available(std::string* why) {
  if (why) *why = kNoCuda;
  return false;
}

int driver_version() { no_cuda(); }
int device_count() { no_cuda(); }

void check(int result, const char* call) {
  if (result != 0) throw InternalError(std::string(call) + " failed: " + error_text(result));
}

std::string error_text(int result) { return "CUresult " + std::to_string(result) + " (" + kNoCuda + ")"; }

bool sync_after_launch() { return false; }

std::string Dim3::str() const {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

std::string DeviceInfo::arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
std::string DeviceInfo::summary() const { return "device " + std::to_string(ordinal) + ": " + name; }

Context& Context::get(int) { no_cuda(); }
void Context::make_current() const { no_cuda(); }
void Context::synchronize() const { no_cuda(); }
MemInfo Context::mem_info() const { no_cuda(); }

DeviceBuffer::DeviceBuffer(size_t, std::string) { no_cuda(); }
DeviceBuffer::DeviceBuffer(Context&, size_t, std::string) { no_cuda(); }
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : what_(std::move(other.what_)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  what_ = std::move(other.what_);
  return *this;
}
void DeviceBuffer::release() noexcept {}
void DeviceBuffer::upload(const void*, size_t, size_t) { no_cuda(); }
void DeviceBuffer::download(void*, size_t, size_t) const { no_cuda(); }
void DeviceBuffer::upload_async(const void*, size_t, Stream, size_t) { no_cuda(); }
void DeviceBuffer::download_async(void*, size_t, Stream, size_t) const { no_cuda(); }
void DeviceBuffer::copy_from(const DeviceBuffer&, size_t, size_t, size_t) { no_cuda(); }

PinnedBuffer::PinnedBuffer(Context&, size_t, std::string) { no_cuda(); }
PinnedBuffer::~PinnedBuffer() = default;
PinnedBuffer::PinnedBuffer(PinnedBuffer&&) noexcept {}
PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&&) noexcept { return *this; }
void PinnedBuffer::release() noexcept {}

OwnedStream::OwnedStream(Context&) { no_cuda(); }
OwnedStream::~OwnedStream() = default;
OwnedStream::OwnedStream(OwnedStream&&) noexcept {}
OwnedStream& OwnedStream::operator=(OwnedStream&&) noexcept { return *this; }
void OwnedStream::release() noexcept {}
void DeviceBuffer::zero() { no_cuda(); }

Module::Module(const std::vector<char>&, std::string) { no_cuda(); }
Module::Module(Context&, const std::vector<char>&, std::string) { no_cuda(); }
Module::~Module() = default;
Module::Module(Module&& other) noexcept : name_(std::move(other.name_)) {}
Module& Module::operator=(Module&& other) noexcept {
  name_ = std::move(other.name_);
  return *this;
}
void Module::release() noexcept {}
Function Module::function(const std::string&) const { no_cuda(); }

KernelAttributes kernel_attributes(Function) { no_cuda(); }
int max_active_blocks(Function, const char*, int, size_t) { no_cuda(); }
void set_max_dynamic_shared(Function, const char*, int) { no_cuda(); }
void launch(Function, const char*, Dim3, Dim3, size_t, void**, Stream) { no_cuda(); }
void synchronize(Stream) { no_cuda(); }

Event::Event() { no_cuda(); }
Event::Event(Context&) { no_cuda(); }
Event::~Event() = default;
Event::Event(Event&&) noexcept {}
Event& Event::operator=(Event&&) noexcept { return *this; }
void Event::release() noexcept {}
void Event::record(Stream) { no_cuda(); }
void Event::synchronize() const { no_cuda(); }
void Event::wait_in(Stream) const { no_cuda(); }
float Event::elapsed_ms(const Event&) const { no_cuda(); }

}  // namespace dgmax::cuda
