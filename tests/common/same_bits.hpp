// Bitwise equality of arrays of doubles: the test of a round trip that must keep every bit (signed
// zeros, NaN payloads), which == does not.
#pragma once

#include <cstring>
#include <vector>

namespace dgmax::test {

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace dgmax::test
