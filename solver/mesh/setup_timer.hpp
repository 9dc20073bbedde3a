// Opt-in timing of the set-up phases: with DGMAX_SETUP_TIMES=1 in the environment, every phase
// prints one line to stderr (wall seconds, resident memory after it). Costs nothing otherwise.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace dgmax {

class SetupTimer {
 public:
  explicit SetupTimer(const char* scope) : scope_(scope) {
    const char* env = std::getenv("DGMAX_SETUP_TIMES");
    on_ = env && *env && std::strcmp(env, "0") != 0;
    last_ = std::chrono::steady_clock::now();
  }
  // Ends the current phase: prints its time and the resident set size now.
  void phase(const char* name) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    std::fprintf(stderr, "[setup] %-10s %-22s %8.3f s   rss %7.2f GB\n", scope_, name, s, rss_gb());
    last_ = std::chrono::steady_clock::now();  // the printing is not part of the next phase
  }

 private:
  static double rss_gb() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    if (!(statm >> pages >> resident)) return 0;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e9;
  }
  const char* scope_;
  bool on_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace dgmax
