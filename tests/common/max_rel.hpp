// The largest difference between two arrays relative to the largest magnitude of the second (the
// reference): how far a backend's fields are from ref's, in units of the field's size.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace dgmax::test {

inline double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i])), m = std::max(m, std::abs(b[i]));
  return m > 0 ? d / m : d;
}

}  // namespace dgmax::test
