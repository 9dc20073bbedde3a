// The request to stop this process: the signal (SIGINT, SIGTERM, SIGHUP) that the run command's
// handler caught (solver/app/interrupt.hpp sets it). A handled signal does not cut a blocking call
// short (the handler restarts it, so that file writes in flight complete), so every wait that can
// block for long polls this instead: a config that is a FIFO or a terminal, a kernel cache lock, a
// tuning database. Such a wait ends with Interrupted, which the run records as "interrupted".
#pragma once

#include <stdexcept>
#include <string>

namespace dgmax {

// The signal that asked the process to stop, 0 when none came.
int stop_requested();
// Records `signal` as the stop request unless one is recorded already; returns whether it was the
// first. Async-signal-safe (a lock-free atomic).
bool request_stop(int signal);
// Forgets the request (a new InterruptGuard starts with none).
void clear_stop_request();

// A blocking wait ended because a stop was requested. Not a UserError: the user asked for it.
class Interrupted : public std::runtime_error {
 public:
  // `what`: what was waited for ("opening the config 'x.yaml'").
  Interrupted(int signal, const std::string& what);
  int signal() const { return signal_; }
  const std::string& waited_for() const { return waited_for_; }

 private:
  int signal_;
  std::string waited_for_;
};

// Throws Interrupted (naming `what`) when a stop was requested.
void throw_if_stop_requested(const std::string& what);

// How often a wait that polls checks for a stop: a user's Ctrl-C ends it within this time.
inline constexpr int kStopPollMs = 50;

}  // namespace dgmax
