// Shared by the libFuzzer targets. A UserError is the expected answer to bad input; anything else
// (another exception, a crash, a sanitizer report, a leak, a timeout, a broken invariant checked
// here) is a finding: libFuzzer stops and writes the input to crash-*/leak-*/timeout-*.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <stdlib.h>  // mkdtemp

#include "solver/util/error.hpp"

namespace dgmax::fuzz {

// A broken invariant: print what and where, then abort (libFuzzer saves the input).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n*** dgmax fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// "<a private temporary directory>/<name>" for a target whose entry point reads a file: the
// directory is made once per process (prefix "dgmax-fuzz-<tag>-") and removed at exit.
inline std::string temp_file(const char* tag, const char* name) {
  static const std::string dir = [tag] {
    std::string tmpl = (std::filesystem::temp_directory_path() / ("dgmax-fuzz-" + std::string(tag) + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    static std::string made = tmpl;
    std::atexit([] { std::filesystem::remove_all(made); });
    return tmpl;
  }();
  return dir + "/" + name;
}

// Bitwise equal, any NaN equal to any NaN (NaN payloads are not part of the contract).
inline bool same_value(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline std::string show(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Everything a UserError can be asked for, so the message/location code runs on every input.
inline void exercise(const UserError& e) {
  const std::string text = e.render();
  if (text.empty() || e.message().empty()) finding("UserError with an empty message");
}

}  // namespace dgmax::fuzz
