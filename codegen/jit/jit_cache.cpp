#include "codegen/jit/jit_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "codegen/jit/content_hash.hpp"
#include "solver/util/error.hpp"
#include "solver/util/env.hpp"
#include "solver/util/stop_request.hpp"

namespace dgmax::codegen {
namespace fs = std::filesystem;
namespace {

const char* kCacheHint =
    "set DGMAX_CACHE_DIR to a writable directory (default: $XDG_CACHE_HOME/dgmax or ~/.cache/dgmax)";

// The entry's key is the artifact's file name up to the first dot ("<key>.so" -> "<key>"). The
// sidecar records it, so that a valid artifact of another entry copied over this one (with its
// sidecar) is refused: the sidecar vouches for identity, not only integrity.
std::string key_of(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return name.substr(0, name.find('.'));
}

std::string sidecar_text(const std::string& key, std::string_view bytes) {
  return "dgmax-artifact-sum 2\nkey " + key + "\n" + std::to_string(bytes.size()) + " " +
         sha256_hex(bytes) + "\n";
}

// The key a sidecar names, or "" when it names none.
std::string sidecar_key(const std::string& sum) {
  const std::string tag = "dgmax-artifact-sum 2\nkey ";
  if (sum.compare(0, tag.size(), tag) != 0) return {};
  return sum.substr(tag.size(), sum.find('\n', tag.size()) - tag.size());
}

// Writes all of `bytes` to a new file `path`; errno on failure, else 0.
int write_new_file(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return err;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    return err;
  }
  return 0;
}

}  // namespace

std::string default_jit_cache_dir() {
  if (std::string d = env("DGMAX_CACHE_DIR"); !d.empty()) return d;
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') return x + "/dgmax";
  std::string home = env("HOME");
  if (home.empty()) {
    struct passwd pw;
    struct passwd* found = nullptr;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_dir)
      home = found->pw_dir;
  }
  if (home.empty())
    throw UserError("no directory for the kernel cache: DGMAX_CACHE_DIR, XDG_CACHE_HOME and HOME are unset", {},
                    "set DGMAX_CACHE_DIR to a writable directory");
  return home + "/.cache/dgmax";
}

JitCacheDir::JitCacheDir(const std::string& root, const std::string& backend) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(root) / backend, ec);
  if (ec) p = fs::path(root) / backend;
  path_ = p.lexically_normal().string();
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
}

std::string JitCacheDir::file(const std::string& key, const std::string& suffix) const {
  return path_ + "/" + key + suffix;
}

bool JitCacheDir::exists() const {
  std::error_code ec;
  return fs::is_directory(path_, ec);
}

void JitCacheDir::create() const {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec || !exists())
    throw UserError("cannot create the kernel cache directory '" + path_ + "': " +
                        (ec ? ec.message() : std::string("not a directory")),
                    {}, kCacheHint);
}

void JitCacheDir::throw_unwritable(const std::string& what, int err) const {
  throw UserError("cannot write to the kernel cache directory '" + path_ + "' (" + what +
                      "): " + std::strerror(err),
                  {}, kCacheHint);
}

std::string JitCacheDir::temp_name(const std::string& final_path) {
  static const unsigned nonce = std::random_device{}();
  static std::atomic<unsigned long> counter{0};
  return final_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(nonce) + "." +
         std::to_string(counter++);
}

void JitCacheDir::remove_temps(const std::string& key) const {
  std::error_code ec;
  for (fs::directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, key.size() + 1, key + ".") == 0 && name.find(".tmp.") != std::string::npos) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

double LockWait::from_env() {
  const std::string v = env("DGMAX_CACHE_LOCK_TIMEOUT");
  if (v.empty()) return 120;
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !(s >= 0))
    throw UserError("DGMAX_CACHE_LOCK_TIMEOUT='" + v + "' is not a number of seconds >= 0", {},
                    "it bounds how long dgmax waits for another process compiling the same kernel "
                    "(default 120)");
  return s;
}

namespace {

// "<pid> <host>" of the holder recorded in the lock file; pid 0 when unknown.
struct Holder {
  long pid = 0;
  std::string host;
};

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

Holder read_holder(int fd) {
  char buf[300] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  Holder h;
  if (n <= 0) return h;
  std::istringstream in(std::string(buf, static_cast<size_t>(n)));
  in >> h.pid >> h.host;
  if (!in) h = {};
  return h;
}

bool is_dead_here(const Holder& h) {
  return h.pid > 0 && h.host == this_host() && ::kill(static_cast<pid_t>(h.pid), 0) != 0 &&
         errno == ESRCH;
}

std::string describe(const Holder& h) {
  if (h.pid <= 0) return "another process";
  return "process " + std::to_string(h.pid) + (h.host == this_host() ? "" : " on " + h.host);
}

}  // namespace

KeyLock::KeyLock(const JitCacheDir& dir, const std::string& key, const LockWait& wait) {
  const std::string path = dir.file(key, ".lock");
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) dir.throw_unwritable(path, errno);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto waited = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  bool noted = false;
  double dead_since = -1;  // when the recorded holder was first seen dead
  auto delay = std::chrono::milliseconds(5);
  while (true) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
      locked_ = true;
      const std::string me = std::to_string(::getpid()) + " " + this_host() + "\n";
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) < 0) {
        // the record only serves messages
      }
      if (noted) cache_note("got the kernel cache lock '" + path + "' after " +
                            std::to_string(static_cast<int>(waited())) + " s");
      return;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) return;  // ENOLCK / EOPNOTSUPP: go on unlocked
    const Holder holder = read_holder(fd_);
    if (const int sig = stop_requested()) {  // Ctrl-C, SIGTERM, SIGHUP: the run stops, not waits
      ::close(fd_);
      fd_ = -1;
      throw Interrupted(sig, "waiting for the kernel cache lock '" + path + "' held by " + describe(holder));
    }
    const double t = waited();
    if (is_dead_here(holder)) {
      if (dead_since < 0) dead_since = t;
    } else {
      dead_since = -1;
    }
    // a holder that records its pid right after locking is never seen dead for long
    if (dead_since >= 0 && t - dead_since >= 1.0) {
      cache_note("the kernel cache lock '" + path + "' is held by " + describe(holder) +
                 ", which no longer exists; building without it");
      gave_up_ = true;
      return;
    }
    if (t >= wait.give_up_after_s) {
      cache_note("gave up waiting for the kernel cache lock '" + path + "' held by " +
                 describe(holder) + " after " + std::to_string(static_cast<int>(t)) +
                 " s; building without it (DGMAX_CACHE_LOCK_TIMEOUT sets the wait)");
      gave_up_ = true;
      return;
    }
    if (!noted && t >= wait.notice_after_s) {
      cache_note("waiting for the kernel cache lock '" + path + "', held by " + describe(holder) +
                 " (another dgmax compiling the same kernel; a stopped process keeps it) -- " +
                 "giving up after " + std::to_string(static_cast<int>(wait.give_up_after_s)) + " s");
      noted = true;
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(kStopPollMs));
  }
}

KeyLock::~KeyLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

void write_file_atomic(const JitCacheDir& dir, const std::string& path, std::string_view bytes) {
  const std::string tmp = JitCacheDir::temp_name(path);
  if (const int err = write_new_file(tmp, bytes)) dir.throw_unwritable(tmp, err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    dir.throw_unwritable(path, err);
  }
}

std::optional<std::string> read_side_file(const std::string& path, size_t max_bytes, std::string* problem) {
  if (problem) problem->clear();
  // O_NONBLOCK: a FIFO put in place of the file must not block the open (nor the read: refused below)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  auto refuse = [&](const std::string& why) -> std::optional<std::string> {
    if (problem) *problem = why;
    return std::nullopt;
  };
  if (!S_ISREG(st.st_mode))
    return refuse(std::string("it is not a regular file but ") +
                  (S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                                     : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                    : "a directory"));
  const std::string limit = "the limit of " + std::to_string(max_bytes >> 20) + " MiB";
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    return refuse("it is larger than " + limit + " (" + std::to_string(st.st_size) + " bytes)");
  std::string bytes;
  char buf[1 << 16];
  while (bytes.size() <= max_bytes) {  // a file that grows while read stops at the limit too
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  if (bytes.size() > max_bytes) return refuse("it grew past " + limit + " while read");
  return bytes;
}

std::optional<std::string> read_file(const std::string& path) { return read_side_file(path, kMaxCacheFileBytes); }

std::optional<std::string> read_valid_artifact(const std::string& path, std::string* problem) {
  if (problem) problem->clear();
  const auto sum = read_file(path + ".sum");
  if (!sum) return std::nullopt;
  auto bytes = read_file(path);
  if (!bytes) return std::nullopt;
  const std::string key = key_of(path), named = sidecar_key(*sum);
  if (!named.empty() && named != key) {
    if (problem) *problem = "it belongs to the cache key " + named + ", not " + key;
    return std::nullopt;
  }
  if (bytes->empty() || sidecar_text(key, *bytes) != *sum) {
    if (problem)
      *problem = named.empty() ? "its checksum sidecar is missing or of an older format"
                               : "its size or checksum does not match its sidecar";
    return std::nullopt;
  }
  return bytes;
}

bool artifact_is_valid(const std::string& path) { return read_valid_artifact(path).has_value(); }

void cache_note(const std::string& text) {
  const std::string line = "dgmax: note: " + text + "\n";
  std::fputs(line.c_str(), stderr);  // one call: lines of concurrent threads do not interleave
}

void publish_artifact(const JitCacheDir& dir, const std::string& temp_path, const std::string& path) {
  const auto bytes = read_file(temp_path);
  if (!bytes) dir.throw_unwritable(temp_path, errno ? errno : EIO);
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_path.c_str());
    dir.throw_unwritable(path, err);
  }
  write_file_atomic(dir, path + ".sum", sidecar_text(key_of(path), *bytes));
}

void publish_artifact_bytes(const JitCacheDir& dir, const std::string& path, std::string_view bytes) {
  write_file_atomic(dir, path, bytes);
  write_file_atomic(dir, path + ".sum", sidecar_text(key_of(path), bytes));
}

std::mutex& entry_build_mutex(const std::string& entry) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::unique_ptr<std::mutex>> registry;
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& m = registry[entry];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

}  // namespace dgmax::codegen
