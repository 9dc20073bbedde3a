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
  send_host_ = cuda::PinnedBuffer(ctx_, std::max<size_t>(1, host_.bytes_sent()), "halo traces sent (host)");
  recv_host_ = cuda::PinnedBuffer(ctx_, std::max<size_t>(1, host_.bytes_received()), "halo traces received (host)");
  host_.use_buffers(send_host_.data(), recv_host_.data());
  copies_ = cuda::OwnedStream(ctx_);
  for (Timing& t : timing_) {
    t.gathered = cuda::Event(ctx_);
    t.scattered = cuda::Event(ctx_);
    t.interior_stop = cuda::Event(ctx_);
  }
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

// Timeline of one exchange (default stream above, the exchange's stream below):
//   ... | gather | interior work ..................... | (wait) | rest
//                 \ copy to host | (MPI on the host) | copy back, scatter /
// The copies wait for the gather, the rest for the scatter: events, no host synchronization but
// the one before the messages are sent.
void CudaHalo::exchange(cuda::DevicePtr q, const std::function<void()>& interior) {
  if (!host_.active()) {  // a part with no neighbour (a mesh of several pieces): nothing to wait for
    if (interior) interior();
    return;
  }
  Timing& t = timing_[slot_];
  const cuda::Stream side = copies_.get();
  long n = static_cast<long>(host_.send_index().size());
  cuda::DevicePtr idx = send_index_.ptr(), buf = send_.ptr();
  void* gargs[] = {&n, &idx, &q, &buf};
  cuda::launch(function("dgmax_halo_gather"), "dgmax_halo_gather", static_cast<unsigned>((n + 255) / 256), 256, 0, gargs);
  t.gathered.record();
  t.gathered.wait_in(side);
  send_.download_async(send_host_.data(), host_.bytes_sent(), side);
  t.interior = static_cast<bool>(interior);
  if (interior) {
    interior();
    t.interior_stop.record();
  }
  cuda::synchronize(side);  // the traces are on the host (the interior work goes on)
  host_.post();
  // the exchange before this one is complete now (this gather came after its scatter): read it
  harvest(timing_[1 - slot_]);
  host_.wait();
  recv_.upload_async(recv_host_.data(), host_.bytes_received(), side);
  long m = static_cast<long>(host_.recv_index().size());
  cuda::DevicePtr ridx = recv_index_.ptr(), rbuf = recv_.ptr();
  void* sargs[] = {&m, &ridx, &rbuf, &q};
  cuda::launch(function("dgmax_halo_scatter"), "dgmax_halo_scatter", static_cast<unsigned>((m + 255) / 256), 256, 0,
               sargs, side);
  t.scattered.record(side);
  t.scattered.wait_in(nullptr);
  t.pending = true;
  slot_ = 1 - slot_;
}

// exposed: how long after the interior work (or the gather, without it) the ghosts arrived;
// hidden: the rest of the exchange's span.
void CudaHalo::harvest(Timing& t) {
  if (!t.pending) return;
  const double span = std::max(0.0, 1e-3 * t.scattered.elapsed_ms(t.gathered));
  const double exposed =
      t.interior ? std::clamp(1e-3 * t.scattered.elapsed_ms(t.interior_stop), 0.0, span) : span;
  exposed_s_ += exposed;
  hidden_s_ += span - exposed;
  t.pending = false;
}

double CudaHalo::exposed_seconds() {
  for (Timing& t : timing_) harvest(t);
  return exposed_s_;
}

double CudaHalo::hidden_seconds() {
  for (Timing& t : timing_) harvest(t);
  return hidden_s_;
}

}  // namespace dgmax
