// A write that fails for want of room (a file-size limit, `ulimit -f`: EFBIG, as a full disk gives
// ENOSPC) is a clean failure: one message naming the file and the system's reason, "failed" in
// run.json, exit 1. Never a crash: dgmax used to die of SIGXFSZ (exit 153) with run.json left
// "running", or, with SIGXFSZ ignored, of SIGSEGV in HDF5's exit handler (exit 139) after a
// checkpoint or monitors.h5 whose H5Fclose had failed (solver/io/hdf5_util.hpp says why).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"
#include "temp_path.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax_env;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every kind of file a run writes: VTU and HDF5 snapshots, checkpoints, probes, a DFT monitor
// (monitors.h5) and its far field.
const char* const kFileSizeLimitCase =
    "mesh: {box: {cells: [4, 4, 4]}}\n"
    "discretization: {order: 2}\n"
    "initial:\n"
    "  E: ['0', '0', 'sin(pi*x)*sin(pi*y)']\n"
    "  H: ['0', '0', '0']\n"
    "time: {final: 1}\n"
    "output: {vtk_every: 0.25, format: both, checkpoint_every: 10}\n"
    "probes: {every: 0.05, points: [{name: a, at: [0.3, 0.4, 0.55]}]}\n"
    "monitors: [{name: near, surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}},\n"
    "            frequencies: [0.7, 1.0]}]\n";

// Limits from a few hundred bytes to just under the largest file, each run with SIGXFSZ at its
// default (dgmax ignores it itself) and ignored by the parent (`trap '' XFSZ`): every run fails
// cleanly at whichever write reaches the limit.
TEST(RunFileSizeLimit, EveryWritePastTheLimitFailsCleanly) {
  const std::string dir = dgmax::test::unique_temp_dir("dgmax_fsize");
  const std::string config = dir + "case.yaml";
  std::ofstream(config) << kFileSizeLimitCase;
  // without a limit: the kernels are cached (a compile under the limit would fail first) and the
  // largest output is known
  const CliResult whole = run_dgmax_env("", "run -q --backend cpu " + config + " --output '" + dir + "whole'");
  ASSERT_EQ(whole.code, 0) << whole.err;
  std::uintmax_t largest = 0;
  for (const auto& e : fs::directory_iterator(dir + "whole")) largest = std::max(largest, e.file_size());
  ASSERT_GT(largest, 100u * 1024);
  int clean = 0, runs = 0;
  for (const double fraction : {0.02, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95}) {
    // `ulimit -f` counts 512-byte blocks in POSIX sh (1024 in bash): either is below `largest`
    const auto blocks = static_cast<long long>(fraction * static_cast<double>(largest) / 1024);
    for (const std::string parent : {"", "trap '' XFSZ; "}) {
      const std::string out = dir + "out_" + std::to_string(runs++);
      const CliResult r = run_dgmax_env("ulimit -f " + std::to_string(std::max(1LL, blocks)) + "; " + parent,
                                        "run -q --backend cpu " + config + " --output '" + out + "'");
      SCOPED_TRACE("limit " + std::to_string(blocks) + " blocks, '" + parent + "': exit " + std::to_string(r.code) +
                   "\n" + r.err);
      EXPECT_EQ(r.code, 1) << "128 + n: killed by signal n";
      EXPECT_NE(r.err.find("File too large"), std::string::npos);
      EXPECT_EQ(r.err.find("internal error"), std::string::npos);
      const json manifest = json::parse(read_all(out + "/run.json"));
      EXPECT_EQ(manifest["state"], "failed");
      EXPECT_NE(manifest.value("error", "").find("File too large"), std::string::npos) << manifest.dump(2);
      clean += r.code == 1 && manifest["state"] == "failed";
    }
  }
  EXPECT_EQ(clean, runs) << clean << " of " << runs << " runs failed cleanly";
  fs::remove_all(dir);
}

}  // namespace
