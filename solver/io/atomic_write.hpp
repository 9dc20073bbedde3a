// Output files that are never seen half-written: every writer of solver/io writes to a temporary
// "<path>.<pid>.<nonce>.<n>.tmp" and then renames it over <path> (an atomic replace on POSIX file
// systems), so a run that fails or is killed mid-write leaves either the previous complete file or
// none at all. The temporary name is unique per process and per call, so two runs (or two threads)
// writing into one directory never write into each other's temporary file; left-overs of a
// killed run still end in ".tmp".
#pragma once

#include <string>

namespace dgmax {

// "<path>.<pid>.<nonce>.<n>.tmp": where a writer puts the file before commit_temp_file. <pid> is
// the process id, <nonce> a random number drawn once per process (pids repeat across hosts sharing
// a file system), <n> a per-process counter (distinct for every call, thread-safe).
std::string temp_path_for(const std::string& path);

// Flushes `tmp` to disk (fsync) and renames it to `path`, replacing any old file. On failure
// removes `tmp` and throws UserError naming `path` and the OS reason.
void commit_temp_file(const std::string& tmp, const std::string& path);

// Writes `content` to `path` atomically (temp file + commit_temp_file). UserError on failure.
void write_text_atomically(const std::string& path, const std::string& content);

// Creates `dir` (and its parents) when missing and checks that files can be created in it by
// creating and removing a probe file. Throws UserError naming `dir` and the OS reason otherwise.
void ensure_writable_directory(const std::string& dir);

}  // namespace dgmax
