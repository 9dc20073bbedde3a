#include "solver/app/interrupt.hpp"

#include <atomic>
#include <csignal>

#include "solver/parallel/comm.hpp"

namespace dgmax {
namespace {

std::atomic<int> g_signal{0};
struct sigaction g_old_int, g_old_term;

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  // the first signal asks for a clean stop; a second one gets the default action (kill)
  if (!g_signal.compare_exchange_strong(none, sig)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file writes in flight are not cut short
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int InterruptGuard::pending() { return g_signal.load(); }

int collective_stop_signal() {
  const int mine = InterruptGuard::pending();
  if (!world().parallel()) return mine;
  return static_cast<int>(world().max(static_cast<double>(mine)));
}

}  // namespace dgmax
