// The parallel sizing helpers: the size and zero (or given) values a serial resize/assign gives,
// for arrays below and above the parallel threshold, slices that do not divide the size, and a
// vector that held data before. (Where the pages land is the kernel's business; not testable here.)
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "solver/mesh/parallel_fill.hpp"

using namespace dgmax;

TEST(ParallelFill, ResizeFirstTouchGivesZerosOfTheSize) {
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(3) << 20}) {
    for (size_t slice : {size_t(1), size_t(7), size_t(4096), n + 5}) {
      std::vector<double> v(17, 3.0);  // old content and capacity go
      resize_first_touch(v, n, slice);
      ASSERT_EQ(v.size(), n) << "slice " << slice;
      EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; })) << n << ", slice " << slice;
    }
  }
  std::vector<int> w;
  resize_first_touch(w, 12345, 100);
  EXPECT_EQ(w.size(), 12345u);
  EXPECT_EQ(std::count(w.begin(), w.end(), 0), 12345);
}

TEST(ParallelFill, AssignParallelSetsEveryElement) {
  std::vector<int> v(5, 1);
  assign_parallel(v, size_t(5) << 20, -1);
  ASSERT_EQ(v.size(), size_t(5) << 20);
  EXPECT_EQ(std::count(v.begin(), v.end(), -1), static_cast<long>(v.size()));
}
