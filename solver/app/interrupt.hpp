// Ctrl-C, `kill` and a closed terminal: SIGINT, SIGTERM and SIGHUP stop a run between two steps
// instead of killing it, so the snapshot being written is completed, and summary.json, energy.csv
// and the run manifest say how far it got ("status": "interrupted"). A wait that can block for
// long (a config that is a FIFO, a kernel cache lock, a tuning database) polls the same request
// and ends at once (solver/util/stop_request.hpp). A second signal kills the process at once.
#pragma once

#include "solver/util/stop_request.hpp"

namespace dgmax {

// Installs the SIGINT/SIGTERM/SIGHUP handlers for its lifetime (restores the previous ones after).
// A SIGHUP that was ignored when dgmax started (`nohup`) stays ignored.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal that asked the run to stop (SIGINT, SIGTERM or SIGHUP), 0 when none came.
  static int pending() { return stop_requested(); }
};

// InterruptGuard::pending() over all ranks: the signal any rank has seen (the larger number when
// two were), on every rank. Collective with several ranks (one small reduction): every rank calls
// it at the same step boundary, so that a signal one rank got stops all at the same step, and a
// checkpoint written on the way out holds one step on every rank.
int collective_stop_signal();

// The exit status of a process stopped by `signal` (130 for SIGINT, 143 for SIGTERM, 129 for
// SIGHUP), as a shell reports a process killed by it.
inline int interrupted_exit_code(int signal) { return 128 + signal; }

}  // namespace dgmax
