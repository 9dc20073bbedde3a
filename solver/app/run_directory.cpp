#include "solver/app/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace fs = std::filesystem;
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

// The earlier run's manifest, or null when there is none (or it cannot be read).
nlohmann::json read_manifest(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nullptr;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

std::string os_reason(int err) { return std::strerror(err); }

}  // namespace

bool is_run_output(const std::string& name, const std::string& stem) {
  if (name == "run.json" || name == "summary.json" || name == "energy.csv" || name == stem + ".pvd") return true;
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) return true;
  static const std::regex checkpoint(R"(checkpoint_\d+(_p\d{4,})?\.h5)");  // a set's record and pieces too
  if (std::regex_match(name, checkpoint)) return true;
  const std::regex snapshot(std::regex_replace(stem, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                            R"(_\d{5,}(_p\d{4,})?\.(vtu|pvtu|h5))");  // a partitioned run's pieces and indexes too
  return std::regex_match(name, snapshot);
}

// The hint when the earlier run's files cannot be moved aside or removed.
constexpr const char* kClearHint = "check the permissions of the output directory, or choose another with --output";

RunDirectory::RunDirectory(std::string dir, std::string stem, ClaimMode mode, nlohmann::json identity)
    : dir_(std::move(dir)), stem_(std::move(stem)) {
  if (dir_.empty())
    throw UserError("the output directory is empty", {}, "give a directory: output.dir or --output DIR");
  ensure_writable_directory(dir_);
  const fs::path root(dir_);
  const std::string lock_path = (root / ".dgmax.lock").string();
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0)
    throw UserError("cannot create " + lock_path + ": " + os_reason(errno), {},
                    "check that the output directory is writable, or choose another with --output");
  const nlohmann::json earlier = read_manifest(root / "run.json");
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    std::string who;
    if (earlier.is_object() && earlier.contains("pid"))
      who = " (pid " + earlier["pid"].dump() + " on " + earlier.value("host", std::string("?")) + ")";
    throw UserError("another dgmax run" + who + " is writing into " + dir_, {},
                    "wait for it to finish, or choose another directory with --output");
  }
  if (mode == ClaimMode::Continue) {
    if (!earlier.is_object())
      throw UserError(dir_ + " holds no dgmax run to continue (no readable run.json)", {},
                      "--restart takes the output directory of a run that wrote checkpoints");
  } else {
    // the earlier run's files go to previous/ (or away): a directory never mixes two runs
    std::vector<fs::path> ours;
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_regular_file() && is_run_output(e.path().filename().string(), stem_)) ours.push_back(e.path());
    if (!ours.empty()) {
      std::error_code ec;
      if (mode == ClaimMode::MoveAside) {
        const fs::path prev = root / "previous";
        fs::remove_all(prev, ec);
        if (ec) throw UserError("cannot remove " + prev.string() + " to make room for the earlier run's files: " + ec.message(), {}, kClearHint);
        fs::create_directory(prev, ec);
        if (ec) throw UserError("cannot create " + prev.string() + ": " + ec.message(), {}, kClearHint);
        for (const auto& f : ours) {
          fs::rename(f, prev / f.filename(), ec);
          if (ec) throw UserError("cannot move " + f.string() + " into " + prev.string() + ": " + ec.message(), {}, kClearHint);
        }
        cleared_to_ = prev.string();
      } else {
        for (const auto& f : ours) {
          fs::remove(f, ec);
          if (ec) throw UserError("cannot remove " + f.string() + ": " + ec.message(), {}, kClearHint);
        }
      }
      cleared_ = static_cast<int>(ours.size());
    }
  }
  manifest_ = std::move(identity);
  manifest_["started"] = utc_now();
  manifest_["pid"] = static_cast<long long>(::getpid());
  manifest_["host"] = host_name();
  if (mode == ClaimMode::Continue && earlier.is_object())
    manifest_["restarts"] = earlier.value("restarts", 0) + 1;
  set_state("running");
}

RunDirectory::~RunDirectory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void RunDirectory::set_state(const std::string& state, const nlohmann::json& extra) {
  manifest_["state"] = state;
  manifest_["updated"] = utc_now();
  for (const auto& [k, v] : extra.items()) manifest_[k] = v;
  write_text_atomically((fs::path(dir_) / "run.json").string(), manifest_.dump(2) + "\n");
}

}  // namespace dgmax
