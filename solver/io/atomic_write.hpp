// Output files that are never seen half-written: every writer of solver/io writes to a temporary
// "<path>.<pid>.<nonce>.<n>.dgmax.tmp" and then renames it over <path> (an atomic replace on POSIX
// file systems), so a run that fails or is killed mid-write leaves either the previous complete file
// or none at all. The temporary name is unique per process and per call, so two runs (or two
// threads) writing into one directory never write into each other's temporary file; left-overs of a
// killed run end in ".dgmax.tmp", so they are told apart from another program's "*.tmp"
// (is_dgmax_temp_name), and only those are ever cleaned up.
//
// dgmax replaces only regular files: a target that exists as a symbolic link, device, FIFO, socket
// or directory is refused (require_replaceable_target), both up front by the commands that take a
// path (bench/tune --json) and again at the rename, so `--json /dev/full` run as root leaves the
// device node in place and a symlink is never replaced by a file.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

// "<path>.<pid>.<nonce>.<n>.dgmax.tmp": where a writer puts the file before commit_temp_file. <pid>
// is the process id, <nonce> a random number drawn once per process (pids repeat across hosts
// sharing a file system), <n> a per-process counter (distinct for every call, thread-safe).
std::string temp_path_for(const std::string& path);

// Whether `name` (a file name, no directory) is a temporary file of dgmax's writers: the form
// above, or the "<file>.<pid>.<nonce>.<n>.tmp" of dgmax before it carried ".dgmax". On true, `*file`
// (when given) is the name it was to be committed to.
bool is_dgmax_temp_name(const std::string& name, std::string* file = nullptr);

// "a symbolic link", "a character device", ... for a path that exists and is not a regular file;
// "" when it is a regular file or does not exist (the link itself is looked at, not its target).
std::string non_regular_kind(const std::string& path);

// Throws UserError when `path` exists and is not a regular file (non_regular_kind): dgmax never
// writes into or renames over one. `what` names where the path came from ("--json"), or "" for an
// output file of a run.
void require_replaceable_target(const std::string& path, const std::string& what);

// Flushes `tmp` to disk (fsync) and renames it to `path`, replacing an old regular file. On failure,
// or when `path` exists and is not a regular file, removes `tmp` and throws UserError naming `path`
// and the reason.
void commit_temp_file(const std::string& tmp, const std::string& path);

// commit_temp_file, always at once, also under a CommitDeferral (for files whose commit others
// depend on right away, like a checkpoint before the older ones are deleted).
void commit_temp_file_now(const std::string& tmp, const std::string& path);

// Tests only: every commit_temp_file_now first sleeps this long (a disk that syncs slowly); 0: not.
void set_commit_delay_for_tests(double seconds);

// A file written to its temporary name whose fsync and rename were deferred (CommitDeferral).
struct PendingCommit {
  std::string tmp, path;
};

// While one is alive on a thread, commit_temp_file() on that thread only records (tmp, path):
// writing stays in the page cache and the caller moves on, while another thread makes the files
// durable and visible later, in order, with commit_pending() (the background snapshot writer does
// this, so the time stepping never waits for the disk). A file is still never visible half-written
// under its final name. The destructor removes the temporary files that were not taken.
class CommitDeferral {
 public:
  CommitDeferral();
  ~CommitDeferral();
  CommitDeferral(const CommitDeferral&) = delete;
  CommitDeferral& operator=(const CommitDeferral&) = delete;
  std::vector<PendingCommit> take();  // the recorded commits, in order

 private:
  CommitDeferral* outer_;
  std::vector<PendingCommit> pending_;
  friend void commit_temp_file(const std::string&, const std::string&);
};

// commit_temp_file for each, in order. On the first failure removes the remaining temporary files
// and rethrows (files committed before stay).
void commit_pending(const std::vector<PendingCommit>& batch);

// Writes `content` to `path` atomically (temp file + commit_temp_file). UserError on failure.
void write_text_atomically(const std::string& path, const std::string& content);

// Creates `dir` (and its parents) when missing and checks that files can be created in it by
// creating and removing a probe file. Throws UserError naming `dir` and the OS reason otherwise.
void ensure_writable_directory(const std::string& dir);

}  // namespace dgmax
