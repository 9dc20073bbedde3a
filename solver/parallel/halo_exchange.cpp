#include "solver/parallel/halo_exchange.hpp"

#include "dgmax/config.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/util/clock.hpp"
#include "solver/util/error.hpp"

#if DGMAX_HAS_MPI
#include <mpi.h>
#endif

namespace dgmax {
namespace {

// The state indices of the six fields at the face nodes of every listed face, in list order.
std::vector<int> trace_indices(const std::vector<std::vector<HaloFace>>& lists, const RefElement& ref, int stride,
                               std::vector<size_t>& offsets) {
  std::vector<int> out;
  offsets.assign(1, 0);
  for (const auto& list : lists) {
    for (const HaloFace& hf : list)
      for (int c = 0; c < 6; ++c)
        for (int j = 0; j < ref.Nfp; ++j)
          out.push_back((hf.element * 6 + c) * stride + ref.Fmask(j, hf.face));
    offsets.push_back(out.size());
  }
  return out;
}

}  // namespace

bool halo_exchanges(const Halo& halo) { return halo.partitioned() && world().size() == halo.parts; }

HaloExchange::HaloExchange(const Halo& halo, const RefElement& ref, int stride, size_t value_bytes)
    : neighbours_(halo.neighbours), value_bytes_(value_bytes) {
  DGMAX_ASSERT(halo.send.size() == neighbours_.size() && halo.recv.size() == neighbours_.size(),
               "halo lists do not match the neighbour list");
  send_index_ = trace_indices(halo.send, ref, stride, send_offset_);
  recv_index_ = trace_indices(halo.recv, ref, stride, recv_offset_);
  send_.assign(send_index_.size() * value_bytes_, 0);
  recv_.assign(recv_index_.size() * value_bytes_, 0);
  send_data_ = send_.data();
  recv_data_ = recv_.data();
#if DGMAX_HAS_MPI
  requests_.assign(2 * neighbours_.size(), nullptr);
#else
  if (active()) throw InternalError("a halo exchange with neighbours in a build without MPI");
#endif
}

void HaloExchange::use_buffers(void* send, void* recv) {
  DGMAX_ASSERT((send || bytes_sent() == 0) && (recv || bytes_received() == 0), "use_buffers() without memory");
  send_data_ = static_cast<unsigned char*>(send);
  recv_data_ = static_cast<unsigned char*>(recv);
  send_ = {};
  recv_ = {};
}

HaloExchange::HaloExchange(HaloExchange&&) noexcept = default;
HaloExchange& HaloExchange::operator=(HaloExchange&&) noexcept = default;
HaloExchange::~HaloExchange() = default;

#if DGMAX_HAS_MPI
static_assert(sizeof(MPI_Request) <= sizeof(void*), "MPI_Request must fit the opaque slot");

void HaloExchange::post() {
  if (!active()) return;
  const int R = static_cast<int>(neighbours_.size());
  auto* req = reinterpret_cast<MPI_Request*>(requests_.data());
  constexpr int kTag = 7100;  // face traces
  for (int r = 0; r < R; ++r) {
    const size_t n = (recv_offset_[r + 1] - recv_offset_[r]) * value_bytes_;
    MPI_Irecv(recv_data_ + recv_offset_[r] * value_bytes_, static_cast<int>(n), MPI_BYTE, neighbours_[r], kTag,
              MPI_COMM_WORLD, &req[r]);
  }
  for (int r = 0; r < R; ++r) {
    const size_t n = (send_offset_[r + 1] - send_offset_[r]) * value_bytes_;
    MPI_Isend(send_data_ + send_offset_[r] * value_bytes_, static_cast<int>(n), MPI_BYTE, neighbours_[r], kTag,
              MPI_COMM_WORLD, &req[R + r]);
  }
}

void HaloExchange::wait() {
  if (!active()) return;
  const auto t0 = Clock::now();
  MPI_Waitall(static_cast<int>(requests_.size()), reinterpret_cast<MPI_Request*>(requests_.data()),
              MPI_STATUSES_IGNORE);
  wait_s_ += seconds_since(t0);
}
#else
void HaloExchange::post() {}
void HaloExchange::wait() {}
#endif

}  // namespace dgmax
