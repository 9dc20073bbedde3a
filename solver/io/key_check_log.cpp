#include "solver/io/key_check_log.hpp"

#include <atomic>

#include "solver/util/error.hpp"

namespace dgmax {
namespace {

std::atomic<KeyCheckLog*> g_live{nullptr};

}  // namespace

KeyCheckLog::KeyCheckLog() {
  KeyCheckLog* none = nullptr;
  DGMAX_ASSERT(g_live.compare_exchange_strong(none, this), "a KeyCheckLog is already recording");
}

KeyCheckLog::~KeyCheckLog() { g_live.store(nullptr); }

std::vector<KeyCheck> KeyCheckLog::checks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return checks_;
}

void KeyCheckLog::record(KeyCheck check) {
  KeyCheckLog* log = g_live.load();
  if (!log) return;
  std::lock_guard<std::mutex> lock(log->mutex_);
  log->checks_.push_back(std::move(check));
}

}  // namespace dgmax
