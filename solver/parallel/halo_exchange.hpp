// The face-trace exchange of a partitioned run (halo.hpp): each rank sends the six fields at the
// face nodes of its owned elements' rank-boundary faces and receives its ghosts' in return. Only
// traces travel (6·Nfp values per face), never whole elements.
//
// The exchange is split so that work can hide it: start() packs and posts the messages, the
// caller computes what needs no neighbour (the volume terms), finish() waits and unpacks into the
// ghosts' face nodes. Host-state backends pass their state; a device backend packs and unpacks on
// the device with the index lists and hands over host buffers (post / wait).
#pragma once

#include <cstddef>
#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/halo.hpp"

namespace dgmax {

// Whether a backend on a problem with this halo exchanges traces: only when this process is one of
// the job's ranks the halo was made for. A local problem used in one process (tests that build each
// part and fill its ghosts themselves) keeps the ghost values set with the state.
bool halo_exchanges(const Halo& halo);

class HaloExchange {
 public:
  HaloExchange() = default;
  // stride: nodes per field in the backend's state layout [K][6][stride] (Np, or a padded Np);
  // value_bytes: 8 (double) or 4 (float).
  HaloExchange(const Halo& halo, const RefElement& ref, int stride, size_t value_bytes);
  HaloExchange(HaloExchange&&) noexcept;
  HaloExchange& operator=(HaloExchange&&) noexcept;
  ~HaloExchange();

  bool active() const { return !neighbours_.empty(); }
  // state indices ((k·6 + c)·stride + node) packed into the send buffer, in buffer order; and the
  // ghost indices the receive buffer is unpacked into
  const std::vector<int>& send_index() const { return send_index_; }
  const std::vector<int>& recv_index() const { return recv_index_; }

  template <class Real>
  void start(const Real* q) {
    Real* buf = static_cast<Real*>(send_buffer());
    for (size_t i = 0; i < send_index_.size(); ++i) buf[i] = q[send_index_[i]];
    post();
  }
  template <class Real>
  void finish(Real* q) {
    wait();
    const Real* buf = static_cast<const Real*>(recv_buffer());
    for (size_t i = 0; i < recv_index_.size(); ++i) q[recv_index_[i]] = buf[i];
  }

  // Host buffers (send: [send_index().size()], recv: [recv_index().size()] values): a device
  // backend copies its packed traces into send_buffer(), then post(); wait(), then copies
  // recv_buffer() to the device.
  void* send_buffer() { return send_data_; }
  void* recv_buffer() { return recv_data_; }
  // The caller's host memory instead of the exchange's own (a device backend's page-locked
  // buffers, which its copies reach at full rate), each of bytes_sent() / bytes_received() at
  // least, kept alive by the caller while the exchange is used.
  void use_buffers(void* send, void* recv);
  void post();
  void wait();
  // Seconds spent inside wait(): the exchange time the overlapped work did not hide.
  double wait_seconds() const { return wait_s_; }
  // Messages and bytes sent per exchange.
  int messages() const { return static_cast<int>(neighbours_.size()); }
  size_t bytes_sent() const { return send_index_.size() * value_bytes_; }
  size_t bytes_received() const { return recv_index_.size() * value_bytes_; }

 private:
  std::vector<int> neighbours_;
  std::vector<size_t> send_offset_, recv_offset_;  // [R + 1] value offsets per neighbour
  std::vector<int> send_index_, recv_index_;
  std::vector<unsigned char> send_, recv_;  // own buffers, unless use_buffers() gave others
  unsigned char* send_data_ = nullptr;
  unsigned char* recv_data_ = nullptr;
  size_t value_bytes_ = 8;
  std::vector<void*> requests_;  // opaque MPI requests (an MPI build only), [2R]
  double wait_s_ = 0;
};

}  // namespace dgmax
