#include "solver/io/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <regex>
#include <system_error>
#include <thread>
#include <utility>

#include "solver/util/error.hpp"

namespace dgmax {

namespace {

std::string os_reason(int err) { return std::strerror(err); }

// fsync of a file or directory; returns 0 or an errno value.
int sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return errno;
  int err = 0;
  if (::fsync(fd) != 0) err = errno;
  ::close(fd);
  // Some file systems refuse fsync on directories (EINVAL): not an error for us.
  if (directory && (err == EINVAL || err == EBADF)) err = 0;
  return err;
}

std::string parent_dir(const std::string& path) {
  const std::filesystem::path p(path);
  const auto parent = p.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// ".<pid>.<nonce>.<n>": unique per process and per call.
std::string unique_suffix() {
  static const unsigned nonce = std::random_device{}();
  static std::atomic<unsigned long> counter{0};
  return "." + std::to_string(::getpid()) + "." + std::to_string(nonce) + "." + std::to_string(counter++);
}

}  // namespace

std::string temp_path_for(const std::string& path) { return path + unique_suffix() + ".dgmax.tmp"; }

bool is_dgmax_temp_name(const std::string& name, std::string* file) {
  // <file>.<pid>.<nonce>.<n>[.dgmax].tmp; the unmarked form is what dgmax wrote before the mark
  static const std::regex re(R"((.+)\.\d{1,10}\.\d{1,10}\.\d{1,20}(\.dgmax)?\.tmp)");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return false;
  if (file) *file = m[1].str();
  return true;
}

std::string non_regular_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";  // missing (or unreadable: the write itself will say)
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

void require_replaceable_target(const std::string& path, const std::string& what) {
  const std::string kind = non_regular_kind(path);
  if (kind.empty()) return;
  if (!what.empty())
    throw UserError(what + " " + path + " is " + kind + ", not a regular file", {},
                    "dgmax writes only regular files (a new one, or one it replaces whole): give another path");
  throw UserError("cannot write '" + path + "': it is " + kind + ", not a regular file", {},
                  "dgmax replaces only regular files: move it away, or choose another output directory with --output");
}

namespace {
thread_local CommitDeferral* deferral = nullptr;  // the innermost CommitDeferral of this thread
}  // namespace

CommitDeferral::CommitDeferral() : outer_(deferral) { deferral = this; }

CommitDeferral::~CommitDeferral() {
  deferral = outer_;
  for (const PendingCommit& c : pending_) std::remove(c.tmp.c_str());
}

std::vector<PendingCommit> CommitDeferral::take() { return std::exchange(pending_, {}); }

void commit_pending(const std::vector<PendingCommit>& batch) {
  for (size_t i = 0; i < batch.size(); ++i) {
    try {
      commit_temp_file(batch[i].tmp, batch[i].path);
    } catch (...) {
      for (size_t j = i + 1; j < batch.size(); ++j) std::remove(batch[j].tmp.c_str());
      throw;
    }
  }
}

void commit_temp_file(const std::string& tmp, const std::string& path) {
  if (deferral) {
    deferral->pending_.push_back({tmp, path});
    return;
  }
  commit_temp_file_now(tmp, path);
}

namespace {
std::atomic<double> commit_delay_for_tests{0};
}  // namespace

void set_commit_delay_for_tests(double seconds) { commit_delay_for_tests = seconds; }

void commit_temp_file_now(const std::string& tmp, const std::string& path) {
  if (const double d = commit_delay_for_tests.load(); d > 0) std::this_thread::sleep_for(std::chrono::duration<double>(d));
  try {
    require_replaceable_target(path, "");  // never rename over a link, device or directory
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (const int err = sync_path(tmp, false); err != 0) {
    std::remove(tmp.c_str());
    throw UserError("cannot write '" + path + "': flushing '" + tmp + "' failed: " + os_reason(err), {},
                    "the disk may be full or the output directory gone; the files written before are intact");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw UserError("cannot write '" + path + "': renaming '" + tmp + "' failed: " + os_reason(err), {},
                    "check that the output directory still exists and is writable; the files written before are "
                    "intact");
  }
  sync_path(parent_dir(path), true);  // best effort: makes the rename itself durable
}

void write_text_atomically(const std::string& path, const std::string& content) {
  require_replaceable_target(path, "");  // before the work of writing it
  const std::string tmp = temp_path_for(path);
  // a new file of our own (O_EXCL: never one that someone put under the temporary name)
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  std::FILE* f = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (!f) {
    const int err = errno;
    if (fd >= 0) {
      ::close(fd);
      std::remove(tmp.c_str());
    }
    throw UserError("cannot write '" + path + "': " + os_reason(err),
                    {}, "check that the output directory exists and is writable");
  }
  const size_t n = std::fwrite(content.data(), 1, content.size(), f);
  int err = (n == content.size()) ? 0 : (errno ? errno : EIO);
  if (std::fclose(f) != 0 && err == 0) err = errno ? errno : EIO;
  if (err != 0) {
    std::remove(tmp.c_str());
    throw UserError("cannot write '" + path + "': " + os_reason(err),
                    {}, "the disk may be full");
  }
  commit_temp_file(tmp, path);
}

void ensure_writable_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string shown = dir.empty() ? std::string(".") : dir;
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) {
      throw UserError("cannot create output directory '" + shown + "': " + ec.message(), {},
                      "choose another output directory or fix its permissions");
    }
    if (!fs::is_directory(dir, ec)) {
      throw UserError("output directory '" + shown + "' exists but is not a directory", {},
                      "choose another output directory or fix its permissions");
    }
  }
  // Probe: permissions alone do not tell (root, read-only mounts, quotas).
  const std::string probe = (fs::path(shown) / (".dgmax_probe" + unique_suffix() + ".tmp")).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw UserError("output directory '" + shown + "' is not writable: " + os_reason(err), {},
                    "choose another output directory or fix its permissions");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace dgmax
