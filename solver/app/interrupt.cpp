#include "solver/app/interrupt.hpp"

#include <csignal>

#include "solver/parallel/comm.hpp"

namespace dgmax {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_old[std::size(kStopSignals)];

extern "C" void on_stop_signal(int sig) {
  // the first signal asks for a clean stop; a second one gets the default action (kill)
  if (!request_stop(sig)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  clear_stop_request();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file writes in flight are not cut short
  for (size_t i = 0; i < std::size(kStopSignals); ++i) {
    sigaction(kStopSignals[i], &sa, &g_old[i]);
    // `nohup dgmax run ...` ignores SIGHUP so that the run outlives its terminal: keep it so
    if (kStopSignals[i] == SIGHUP && g_old[i].sa_handler == SIG_IGN) sigaction(SIGHUP, &g_old[i], nullptr);
  }
}

InterruptGuard::~InterruptGuard() {
  for (size_t i = 0; i < std::size(kStopSignals); ++i) sigaction(kStopSignals[i], &g_old[i], nullptr);
}

int collective_stop_signal() {
  const int mine = InterruptGuard::pending();
  if (!world().parallel()) return mine;
  return static_cast<int>(world().max(static_cast<double>(mine)));
}

}  // namespace dgmax
