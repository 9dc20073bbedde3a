// Runs a program without a shell (posix_spawnp: no quoting issues, no fork of a large process)
// and captures what it prints. Used to run the host compiler.
#pragma once

#include <string>
#include <vector>

namespace dgmax::codegen {

struct ProcessResult {
  int spawn_errno = 0;  // nonzero: the program could not be started (ENOENT: not found); the rest is empty
  int exit_code = -1;   // exit status; -1 if it was killed by a signal
  int signal = 0;       // the signal that killed it, else 0
  std::string output;   // stdout and stderr, interleaved as written

  bool ok() const { return spawn_errno == 0 && exit_code == 0; }
  // "exit status 1" / "killed by signal 9 (Killed)" / "could not start: No such file or directory"
  std::string status_text() const;
};

// Runs argv[0] (searched in PATH when it has no '/') with arguments argv[1..], stdin from /dev/null.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace dgmax::codegen
