// Environment variables as the rest of the code reads them.
#pragma once

#include <cstdlib>
#include <string>

namespace dgmax {

// The value of environment variable `name`, "" when it is not set.
inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace dgmax
