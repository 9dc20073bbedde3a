// Shared by the libFuzzer targets. A UserError is the expected answer to bad input; anything else
// (another exception, a crash, a sanitizer report, a leak, a timeout, a broken invariant checked
// here) is a finding: libFuzzer stops and writes the input to crash-*/leak-*/timeout-*.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "solver/util/error.hpp"

namespace dgmax::fuzz {

// A broken invariant: print what and where, then abort (libFuzzer saves the input).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n*** dgmax fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
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
