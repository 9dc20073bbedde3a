// Runs a postprocess/ script with /usr/bin/python3 and captures exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "run_cli.hpp"

namespace dgmax::test {

inline const std::string kPython = "/usr/bin/python3";

// Single-quoted for /bin/sh.
inline std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string postprocess_script(const std::string& name) {
  return std::string(DGMAX_SOURCE_DIR) + "/postprocess/" + name;
}

// Whether /usr/bin/python3 imports these modules ("numpy" or "numpy, matplotlib").
inline bool python_has(const std::string& modules) {
  return std::system((kPython + " -c 'import " + modules + "' >/dev/null 2>&1").c_str()) == 0;
}

// `python3 postprocess/<name> <args>` (args quoted by the caller); `base` names the capture files.
inline CliResult run_python_script(const std::string& name, const std::string& args, const std::string& base) {
  const std::string cmd = kPython + " " + sh_quote(postprocess_script(name)) + " " + args + " >" +
                          sh_quote(base + ".out") + " 2>" + sh_quote(base + ".err");
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(base + ".out"), read_all(base + ".err")};
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

}  // namespace dgmax::test
