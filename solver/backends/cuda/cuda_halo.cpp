#include "solver/backends/cuda/cuda_halo.hpp"

#include <algorithm>
#include <string>

#include "codegen/emit/cuda_halo_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"

namespace dgmax {

CudaHalo::CudaHalo(cuda::Context& ctx, const Halo& halo, const RefElement& ref, int stride, bool single)
    : ctx_(ctx), single_(single), host_(halo, ref, stride, single ? sizeof(float) : sizeof(double)) {
  const size_t w = single ? sizeof(float) : sizeof(double);
  auto buffer = [&](const std::vector<int>& v, cuda::DeviceBuffer& idx, cuda::DeviceBuffer& vals, const char* what) {
    idx = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, v.size()) * sizeof(int), what);
    if (!v.empty()) idx.upload(v);
    vals = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, v.size()) * w, what);
  };
  buffer(host_.send_index(), send_index_, send_, "halo traces sent");
  buffer(host_.recv_index(), recv_index_, recv_, "halo traces received");
}

cuda::Function CudaHalo::function(const char* name) {
  if (!module_) {
    const codegen::NvrtcOptions opt = codegen::NvrtcOptions::for_kernels(ctx_.info().arch());
    const std::string what = std::string("dgmax_cuda_halo_") + (single_ ? "fp32" : "fp64");
    module_ = std::make_unique<cuda::Module>(ctx_, codegen::nvrtc_compile(codegen::cuda_halo_source(single_), what, opt),
                                             what);
  }
  return module_->function(name);
}

void CudaHalo::begin(cuda::DevicePtr q) {
  if (!host_.active()) return;
  const size_t w = single_ ? sizeof(float) : sizeof(double);
  long n = static_cast<long>(host_.send_index().size());
  cuda::DevicePtr idx = send_index_.ptr(), buf = send_.ptr();
  void* gargs[] = {&n, &idx, &q, &buf};
  cuda::launch(function("dgmax_halo_gather"), "dgmax_halo_gather", static_cast<unsigned>((n + 255) / 256), 256, 0, gargs);
  send_.download(host_.send_buffer(), static_cast<size_t>(n) * w);  // waits for the gather
  host_.post();
}

void CudaHalo::end(cuda::DevicePtr q) {
  if (!host_.active()) return;
  const size_t w = single_ ? sizeof(float) : sizeof(double);
  host_.wait();
  // (a copy from pageable memory: it starts after the work queued since begin)
  long m = static_cast<long>(host_.recv_index().size());
  recv_.upload(host_.recv_buffer(), static_cast<size_t>(m) * w);
  cuda::DevicePtr ridx = recv_index_.ptr(), rbuf = recv_.ptr();
  void* sargs[] = {&m, &ridx, &rbuf, &q};
  cuda::launch(function("dgmax_halo_scatter"), "dgmax_halo_scatter", static_cast<unsigned>((m + 255) / 256), 256, 0,
               sargs);
}

}  // namespace dgmax
