// Wall-clock timing on the host: the one clock the run report, the bench and the writers use.
#pragma once

#include <chrono>

namespace dgmax {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Adds the lifetime of the object to a seconds counter.
class HostTimer {
 public:
  explicit HostTimer(double& total) : total_(total), t0_(Clock::now()) {}
  ~HostTimer() { total_ += seconds_since(t0_); }
  HostTimer(const HostTimer&) = delete;
  HostTimer& operator=(const HostTimer&) = delete;

 private:
  double& total_;
  Clock::time_point t0_;
};

}  // namespace dgmax
