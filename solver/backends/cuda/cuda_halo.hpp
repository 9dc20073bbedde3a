// The face-trace exchange of a partitioned run on the GPU: the owned traces are gathered on the
// device into one buffer, copied to the host, sent and received by HaloExchange (MPI, host
// buffers), copied back and scattered into the ghosts' face nodes. Only 6·Nfp values per halo
// face travel over PCIe and the network.
#pragma once

#include <memory>

#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/parallel/halo_exchange.hpp"

namespace dgmax {

class CudaHalo {
 public:
  // stride: Np of the state layout [K][6][Np]; single: the state is float.
  CudaHalo(cuda::Context& ctx, const Halo& halo, const RefElement& ref, int stride, bool single);
  // The ghosts' face nodes of the device state q := the neighbours' current traces (synchronous).
  void exchange(cuda::DevicePtr q) {
    begin(q);
    end(q);
  }
  // The same in two halves, for work that needs no ghost in between: begin gathers the owned traces
  // (after the work queued so far), copies them to the host and posts the messages; end waits for
  // the neighbours' traces and scatters them into q (stream-ordered after what was queued between).
  void begin(cuda::DevicePtr q);
  void end(cuda::DevicePtr q);
  double wait_seconds() const { return host_.wait_seconds(); }

 private:
  cuda::Function function(const char* name);

  cuda::Context& ctx_;
  bool single_;
  HaloExchange host_;
  std::unique_ptr<cuda::Module> module_;
  cuda::DeviceBuffer send_index_, recv_index_, send_, recv_;
};

}  // namespace dgmax
