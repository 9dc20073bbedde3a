// The on-disk kernel cache shared by the JIT backends: where it is, how entries are named and
// written so that concurrent processes and killed runs never leave something loadable but wrong.
//
// Layout: <root>/<backend>/ holds, per content key (codegen/jit/content_hash.hpp),
//   <key>.<src-ext>   the generated source, kept for reading (e.g. .cpp, .cu)
//   <key>.<art-ext>   the built artifact (e.g. .so, .cubin)
//   <key>.<art-ext>.sum   the key, the artifact's size and SHA-256; an artifact without a matching
//                         .sum is ignored and rebuilt (truncated, zero-length, garbage,
//                         half-copied, or a valid artifact of another key copied over it)
//   <key>.log         the compiler log, only after a failed build
//   <key>.lock        the build lock, holding "<pid> <host>" of the last holder (kept, since
//                     deleting a lock file races)
// Every file is written under a temporary name in the same folder and rename()d into place, so a
// reader sees the old file or the new one, never a partial one.
//
// Locking: a build holds an exclusive flock() on <key>.lock, so two processes (or threads) that
// need the same missing entry build it once; the second waits, then finds it (a bounded wait that
// says what it waits for: see KeyLock). Readers of a valid entry take no lock. On file systems without flock the lock does nothing; then concurrent builds
// of one key both run and the last rename wins (both results are valid).
#pragma once

#include <cstddef>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>

namespace dgmax::codegen {

// The cache root: $DGMAX_CACHE_DIR, else $XDG_CACHE_HOME/dgmax (when absolute), else
// $HOME/.cache/dgmax (home from the password database when HOME is unset). Empty variables count
// as unset. UserError when there is no home directory either.
std::string default_jit_cache_dir();

// One backend's folder of the cache, <root>/<backend>, as an absolute path.
class JitCacheDir {
 public:
  JitCacheDir(const std::string& root, const std::string& backend);  // touches nothing on disk

  const std::string& path() const { return path_; }
  // <path>/<key><suffix>, e.g. file(key, ".so").
  std::string file(const std::string& key, const std::string& suffix) const;
  bool exists() const;
  // Creates the folder and its parents. UserError naming it (hint: DGMAX_CACHE_DIR) when that fails.
  void create() const;
  // UserError for a failed write of `what` (a path in this folder) with errno `err`.
  [[noreturn]] void throw_unwritable(const std::string& what, int err) const;
  // A fresh name next to `final_path` to write it under before the rename:
  // "<final_path>.tmp.<pid>.<nonce>.<n>".
  static std::string temp_name(const std::string& final_path);
  // Deletes "<key>.*.tmp.*" left by killed builds. Only while holding the key's KeyLock.
  void remove_temps(const std::string& key) const;

 private:
  std::string path_;
};

// How long KeyLock waits. Default: a note after 2 s, giving up after $DGMAX_CACHE_LOCK_TIMEOUT
// seconds (default 120; UserError when it is not a number >= 0).
struct LockWait {
  double notice_after_s = 2;
  double give_up_after_s = from_env();
  static double from_env();
};

// Exclusive lock of one key across threads and processes (flock on <dir>/<key>.lock), held for the
// object's lifetime. The holder writes "<pid> <host>" into the lock file, so that a waiter can say
// who holds it. Waiting prints a note (lock file, holder) after wait.notice_after_s, and ends
// without the lock (locked() false, gave_up() true, with a note) after wait.give_up_after_s, or as
// soon as the holder named in the file is a process of this host that no longer exists (its lock
// lives on in an inherited descriptor). Builds without the lock stay safe: every file is published
// by an atomic rename, so concurrent builders of one key only duplicate work.
// UserError when the lock file cannot be created; Interrupted (stop_request.hpp) as soon as a
// Ctrl-C, SIGTERM or SIGHUP asks the run to stop while it waits.
class KeyLock {
 public:
  KeyLock(const JitCacheDir& dir, const std::string& key, const LockWait& wait = {});
  ~KeyLock();
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  bool locked() const { return locked_; }    // false where the file system has no flock
  bool gave_up() const { return gave_up_; }  // stopped waiting for another holder

 private:
  int fd_ = -1;
  bool locked_ = false;
  bool gave_up_ = false;
};

// Replaces `path` (in `dir`) by `bytes` atomically. UserError when the folder is not writable.
void write_file_atomic(const JitCacheDir& dir, const std::string& path, std::string_view bytes);

// The largest file of the cache that is read whole (a generated library or cubin is a few MB).
inline constexpr size_t kMaxCacheFileBytes = size_t{256} << 20;

// Whole file, or nullopt when it cannot be read, is not a regular file or is larger than
// kMaxCacheFileBytes (a FIFO or /dev/zero put in its place can neither block nor fill memory).
std::optional<std::string> read_file(const std::string& path);
// The same with a limit of `max_bytes`; when a file that exists is refused, *problem (when given)
// says why ("it is not a regular file but a FIFO", "it is larger than the limit of 16 MiB ..."),
// else it is left empty.
std::optional<std::string> read_side_file(const std::string& path, size_t max_bytes, std::string* problem = nullptr);

// True when `path` ("<dir>/<key>.<ext>") exists and its sidecar "<path>.sum" names the same key
// and matches its size and SHA-256.
bool artifact_is_valid(const std::string& path);
// The artifact's bytes when valid (as above), else nullopt; then *problem (when given) says why
// an artifact that exists was refused ("it belongs to the cache key ..."), or is empty.
std::optional<std::string> read_valid_artifact(const std::string& path, std::string* problem = nullptr);
// Prints "dgmax: note: <text>" on stderr (cache entries refused and rebuilt, lock waits).
void cache_note(const std::string& text);
// Publishes a complete artifact written at `temp_path` (a temp_name of `path`) as `path`: renames
// it into place, then writes the sidecar. Call while holding the key's KeyLock.
void publish_artifact(const JitCacheDir& dir, const std::string& temp_path, const std::string& path);
// The same for an artifact held in memory (e.g. a cubin from NVRTC).
void publish_artifact_bytes(const JitCacheDir& dir, const std::string& path, std::string_view bytes);

// One mutex per cache entry ("<dir>/<key>"), process-wide: builds of the same entry in this process
// run one at a time (other processes are kept out by KeyLock).
std::mutex& entry_build_mutex(const std::string& entry);

}  // namespace dgmax::codegen
