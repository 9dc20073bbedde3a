// The face-trace exchange of a partitioned run on the GPU: the owned traces are gathered on the
// device into one buffer, copied to page-locked host memory on a stream of the exchange's own,
// sent and received by HaloExchange (MPI, host buffers), copied back and scattered into the
// ghosts' face nodes on that stream. Only 6·Nfp values per halo face travel over PCIe and the
// network. Work that reads no ghost (the interior elements) runs on the default stream meanwhile.
#pragma once

#include <functional>
#include <memory>

#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/parallel/halo_exchange.hpp"

namespace dgmax {

class CudaHalo {
 public:
  // stride: Np of the state layout [K][6][Np]; single: the state is float.
  CudaHalo(cuda::Context& ctx, const Halo& halo, const RefElement& ref, int stride, bool single);

  // The ghosts' face nodes of the device state q := the neighbours' current traces, for work queued
  // on the default stream after this call (the host waits for the messages, not for the device).
  // `interior`, if given, queues work on the default stream that reads no ghost of q and writes no
  // face node of an owned element's boundary face; it runs while the traces travel (and is queued
  // all the same when this part has no neighbour).
  void exchange(cuda::DevicePtr q, const std::function<void()>& interior = {});

  // Device time (s) the default stream stood waiting for the ghosts (exposed), and exchange time
  // spent behind `interior` work (hidden), over all exchanges so far. Both wait for the device.
  double exposed_seconds();
  double hidden_seconds();

 private:
  // Events of one exchange, on the device's clock: traces gathered, ghosts scattered, and the end
  // of the interior work between.
  struct Timing {
    cuda::Event gathered, scattered, interior_stop;
    bool pending = false, interior = false;
  };
  void harvest(Timing& t);
  cuda::Function function(const char* name);

  cuda::Context& ctx_;
  bool single_;
  HaloExchange host_;
  std::unique_ptr<cuda::Module> module_;
  cuda::DeviceBuffer send_index_, recv_index_, send_, recv_;
  cuda::PinnedBuffer send_host_, recv_host_;  // [send_index().size()], [recv_index().size()] values
  cuda::OwnedStream copies_;                  // the copies to and from the host, and the scatter
  Timing timing_[2];                          // this exchange's and the one before (read a stage late)
  int slot_ = 0;
  double exposed_s_ = 0, hidden_s_ = 0;
};

}  // namespace dgmax
