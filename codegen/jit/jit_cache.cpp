#include "codegen/jit/jit_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <fstream>
#include <random>
#include <sstream>

#include "codegen/jit/content_hash.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace fs = std::filesystem;
namespace {

const char* kCacheHint =
    "set DGMAX_CACHE_DIR to a writable directory (default: $XDG_CACHE_HOME/dgmax or ~/.cache/dgmax)";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string sidecar_text(std::string_view bytes) {
  return "dgmax-artifact-sum 1\n" + std::to_string(bytes.size()) + " " + sha256_hex(bytes) + "\n";
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

KeyLock::KeyLock(const JitCacheDir& dir, const std::string& key) {
  const std::string path = dir.file(key, ".lock");
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) dir.throw_unwritable(path, errno);
  int rc;
  while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
  }
  locked_ = rc == 0;  // ENOLCK / EOPNOTSUPP on some network file systems: go on unlocked
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

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(ss).str();
}

std::optional<std::string> read_valid_artifact(const std::string& path) {
  const auto sum = read_file(path + ".sum");
  if (!sum) return std::nullopt;
  auto bytes = read_file(path);
  if (!bytes || bytes->empty() || sidecar_text(*bytes) != *sum) return std::nullopt;
  return bytes;
}

bool artifact_is_valid(const std::string& path) { return read_valid_artifact(path).has_value(); }

void publish_artifact(const JitCacheDir& dir, const std::string& temp_path, const std::string& path) {
  const auto bytes = read_file(temp_path);
  if (!bytes) dir.throw_unwritable(temp_path, errno ? errno : EIO);
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_path.c_str());
    dir.throw_unwritable(path, err);
  }
  write_file_atomic(dir, path + ".sum", sidecar_text(*bytes));
}

void publish_artifact_bytes(const JitCacheDir& dir, const std::string& path, std::string_view bytes) {
  write_file_atomic(dir, path, bytes);
  write_file_atomic(dir, path + ".sum", sidecar_text(bytes));
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
