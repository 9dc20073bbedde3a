// bench/mpi_scaling.sh is the README's command for the scaling over GPUs. Here it runs on the cpu
// backend (BACKEND=cpu) on a tiny box: each case must run and the table must hold one row per case
// with the element counts the script promises, an efficiency and the traces' megabytes per stage.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_runs.hpp"
#include "temp_path.hpp"

namespace dgmax::test {
namespace {

std::vector<std::vector<std::string>> scaling_table_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    rows.push_back(row);
  }
  return rows;
}

TEST(MpiScalingScript, RunsOneWeakAndStrongOnTheCpuBackend) {
  REQUIRE_LAUNCHER(mpi, 2);
  const std::string out = unique_temp_dir("mpi_scaling_script");
  const std::string build = std::filesystem::path(DGMAX_BINARY).parent_path().string();
  // order 2, 3x3x3 cells (162 elements) per rank, 4 steps, fp64, 2 ranks
  const std::string cmd = "cd " DGMAX_SOURCE_DIR " && OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none "
                          "OUT=" + out + " BACKEND=cpu BUILD=" + build +
                          " OMP_NUM_THREADS=1 bench/mpi_scaling.sh 2 3 4 double 2 > " + out + "log.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n(see " << out << "log.txt)";
  const auto rows = scaling_table_rows(out + "mpi_scaling/table.txt");
  ASSERT_EQ(rows.size(), 4u) << "a header and one row per case";
  // prec case ranks K steps ms/step GDOF/s per-GPU eff waited hidden MB/stage plan...
  ASSERT_GE(rows[0].size(), 12u);
  EXPECT_EQ(rows[0][8], "eff");
  EXPECT_EQ(rows[0][11], "MB/stage");
  const std::string cases[] = {"one", "weak", "strong"};
  const char* ranks[] = {"1", "2", "2"};
  const char* elements[] = {"162", "324", "162"};  // weak: twice the box, strong: the same box
  for (int i = 0; i < 3; ++i) {
    const auto& r = rows[i + 1];
    ASSERT_GE(r.size(), 12u) << i;
    EXPECT_EQ(r[0], "double");
    EXPECT_EQ(r[1], cases[i]);
    EXPECT_EQ(r[2], ranks[i]);
    EXPECT_EQ(r[3], elements[i]);
    EXPECT_GT(std::stod(r[5]), 0.0) << "ms per step";
    if (i > 0) {
      const double eff = std::stod(r[8]), mb = std::stod(r[11]);
      EXPECT_GT(eff, 0.0);
      EXPECT_LT(eff, 10.0);
      EXPECT_GT(mb, 0.0) << "the ranks exchange traces";
    }
  }
}

}  // namespace
}  // namespace dgmax::test
