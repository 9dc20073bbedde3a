#include "solver/util/stop_request.hpp"

#include <atomic>
#include <csignal>
#include <cstring>

namespace dgmax {
namespace {

std::atomic<int> g_stop{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

}  // namespace

int stop_requested() { return g_stop.load(); }

bool request_stop(int signal) {
  int none = 0;
  return g_stop.compare_exchange_strong(none, signal);
}

void clear_stop_request() { g_stop = 0; }

Interrupted::Interrupted(int signal, const std::string& what)
    : std::runtime_error("interrupted by " + signal_name(signal) + " while " + what), signal_(signal),
      waited_for_(what) {}

void throw_if_stop_requested(const std::string& what) {
  if (const int sig = stop_requested()) throw Interrupted(sig, what);
}

}  // namespace dgmax
