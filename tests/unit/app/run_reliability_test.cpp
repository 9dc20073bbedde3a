// The reliability checks of the run itself: no wrong answer with exit 0 (the energy guard, checked
// step counts, a finite error), an output directory owned by one run (manifest, earlier runs moved
// aside, a second concurrent run refused, a failure recorded), and SIGINT/SIGTERM/SIGHUP handled
// (exit 130/143/129, "status": "interrupted"). Every case runs the real binary on a tiny problem.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "previous_runs.hpp"
#include "run_cli.hpp"

using dgmax::test::CliResult;
using dgmax::test::lsan_tracer_failed;
using dgmax::test::newest_previous_run;
using dgmax::test::previous_runs;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
using dgmax::test::run_dgmax_env;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kCavity =
    "mesh: {box: {cells: [2, 2, 2]}}\n"
    "discretization: {order: 2}\n"
    "initial:\n"
    "  E: ['0', '0', 'sin(pi*x)*sin(pi*y)']\n"
    "  H: ['0', '0', '0']\n"
    "time: {final: 0.5}\n";

// The cavity on 4x4x4 cells (384 tets): a run long enough to be stopped or contended.
std::string bigger_cavity() {
  std::string s = kCavity;
  return s.replace(0, s.find('\n'), "mesh: {box: {cells: [4, 4, 4]}}");
}

// A run that should succeed, with its stderr in the failure message (a flaky failure in CI must
// say why).
::testing::AssertionResult succeeded(const CliResult& r) {
  if (r.code == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "dgmax exited " << r.code << "; stderr:\n" << r.err << "\nstdout:\n" << r.out;
}

class RunReliability : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_reliability_" + std::to_string(::getpid()) + "_" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = dir_ + "/out";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string config(const std::string& text, const std::string& name = "case.yaml") {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  CliResult run(const std::string& cfg_text, const std::string& extra = "") {
    return run_dgmax("run -q --backend cpu " + config(cfg_text) + " --output '" + out_ + "' " + extra);
  }
  json summary() const { return json::parse(read_all(out_ + "/summary.json")); }
  json manifest() const { return json::parse(read_all(out_ + "/run.json")); }

  std::string dir_, out_;
};

// ---- the energy guard: blow-ups are refused, whatever their size ---------------------------------

TEST_F(RunReliability, UnstableCflIsRefusedEarlyAndNamed) {
  const CliResult r = run(kCavity, "--set time.cfl=2");
  EXPECT_EQ(r.code, 1) << r.err;
  // located at the config (a blow-up has no source line; user guide: "file:line:column (or the
  // file)"): the message starts with "<config>: error: "
  const std::string prefix = dir_ + "/case.yaml: error: the solution blew up at step ";
  EXPECT_TRUE(r.err.rfind(prefix, 0) == 0 || r.err.find("\n" + prefix) != std::string::npos) << r.err;
  EXPECT_NE(r.err.find("time.cfl = 2 is beyond the measured stability limit"), std::string::npos) << r.err;
  EXPECT_EQ(summary()["status"], "failed");
  EXPECT_EQ(manifest()["state"], "failed");
  EXPECT_NE(summary()["error"].get<std::string>().find("blew up"), std::string::npos);
}

// A flux that adds energy (here: none at all, so the elements do not talk) grows the energy by
// tens of percent without sources: far below the old 1e12 threshold, and still wrong.
TEST_F(RunReliability, NonDissipativeFluxIsRefused) {
  const CliResult r = run(std::string(kCavity) + "flux: {E: '0*n', H: '0*n'}\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("without sources"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the user-written `flux:` is not energy-stable"), std::string::npos) << r.err;
}

// With a strong loss term the step accounts for sigma: the run is stable and the energy decays
// (it grew by 1.4e9 and exited 0 when dt ignored sigma).
TEST_F(RunReliability, StrongConductivityIsStable) {
  const CliResult r = run(kCavity, "--set materials.default.sigma=100");
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = summary();
  EXPECT_LT(s["energy"]["final"].get<double>(), 1e-2 * s["energy"]["initial"].get<double>());
  EXPECT_EQ(s["status"], "finished");
}

// A current source adds energy: allowed up to the bound from its work, and a stable run with a
// source that grows for a while is not flagged.
TEST_F(RunReliability, SourceWorkIsAllowedAndInstabilityWithSourcesIsNot) {
  const std::string driven =
      "mesh: {box: {cells: [2, 2, 2]}}\n"
      "discretization: {order: 2}\n"
      "sources: {J: ['0', '0', 'sin(pi*x)*sin(pi*y)*sin(3*t)']}\n"
      "time: {final: 2}\n";
  CliResult r = run(driven);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GT(summary()["energy"]["final"].get<double>(), 0.0);
  r = run(driven, "--set time.cfl=1.9");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the energy exceeds what the sources can supply"), std::string::npos) << r.err;
}

// A short pulse of current between two energy samples: the refined integral sees it.
TEST_F(RunReliability, SourcePulseBetweenSamplesIsNotABlowUp) {
  const std::string pulse =
      "mesh: {box: {cells: [2, 2, 2]}}\n"
      "discretization: {order: 2}\n"
      "sources: {J: ['0', '0', 'sin(pi*x)*sin(pi*y)*50*exp(-((t-0.33)/0.02)^2)']}\n"
      "time: {final: 1}\n"
      "output: {energy_every: 1000}\n";
  const CliResult r = run(pulse);
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(RunReliability, NonFiniteExactSolutionIsRefused) {
  const CliResult r = run(std::string(kCavity) +
                          "exact:\n  E: ['0', '0', 'sqrt(-1 - x)']\n  H: ['0', '0', '0']\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the error against `exact:` is not finite"), std::string::npos) << r.err;
}

// ---- checked arithmetic: the step count, the snapshot count ------------------------------------

TEST_F(RunReliability, StepCountBeyondTheLimitIsRefused) {
  // ceil(final/dt) used to overflow long long and give one step across the interval
  CliResult r = run(kCavity, "--set time.final=1e20");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("steps, more than the limit of 1000000000"), std::string::npos) << r.err;
  r = run("mesh: {box: {lower: [0, 0, 0], upper: [1e-15, 1e-15, 1e-15], cells: [1, 1, 1]}}\n"
          "discretization: {order: 1}\ntime: {final: 1}\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("more than the limit"), std::string::npos) << r.err;
}

TEST_F(RunReliability, TinySnapshotIntervalIsRefusedNotLoopedOn) {
  const CliResult r = run(kCavity, "--set output.vtk_every=1e-20");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("vtk_every"), std::string::npos) << r.err;
}

// A run whose fields would not fit in host memory is refused before they are allocated, with the
// numbers (the box mesher checks its own part before building).
TEST_F(RunReliability, ARunTooLargeForHostMemoryIsRefused) {
  const CliResult r = run_dgmax_env("DGMAX_MEMORY_AVAILABLE=1000000 ", "run -q --backend cpu " + config(kCavity) +
                                                                           " --set discretization.order=6 --output '" + out_ + "'");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("a run of order 6 on box:2,2,2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_ + "/run.json"));
}

#if DGMAX_HAS_GMSH
// Curved elements count their operators too (4 Np² values each): the cylinder cavity at N = 6 has
// 229 elements, whose fields need about 10 MB on the cpu backend, but its 140 curved ones about 64 MB more.
TEST_F(RunReliability, CurvedElementsTooLargeForHostMemoryAreRefused) {
  const CliResult r = run_dgmax_env("DGMAX_MEMORY_AVAILABLE=20e6 ",
                                    "run -q --backend cpu '" DGMAX_SOURCE_DIR "/configs/cylinder_cavity.yaml'"
                                    " --set discretization.order=6 --output '" + out_ + "'");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("a run of order 6 on"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(140 of its elements curved)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mesh.geometry_order: 1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_ + "/run.json"));
}

// A layer whose elements are not cubes' tetrahedra gets a note saying why it reflects more (the
// sphere's mesh with structured_layer 0, set before the shipped .geo is included); the shipped one
// (a layer of cubes) none.
TEST_F(RunReliability, AnUnstructuredLayerIsNoted) {
  const std::string geo = out_ + "_unstructured.geo";
  std::ofstream(geo) << "pec = 1;\nstructured_layer = 0;\nInclude \"" DGMAX_SOURCE_DIR "/meshes/sphere_rcs.geo\";\n";
  const std::string cfg = "'" DGMAX_SOURCE_DIR "/configs/sphere_rcs_pec.yaml' --set time.final=0.01";
  const CliResult u = run_dgmax("run --backend cpu " + cfg + " --set mesh.file=" + geo + " --output '" + out_ + "'");
  EXPECT_EQ(u.code, 0) << u.err;
  EXPECT_NE(u.err.find("note: pml: 0% of the layer's elements are tetrahedra of axis-aligned cells"), std::string::npos)
      << u.err;
  const CliResult s = run_dgmax("run --backend cpu --overwrite " + cfg + " --output '" + out_ + "'");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.err.find("note: pml"), std::string::npos) << s.err;
  fs::remove(geo);
}
#endif

// ---- the output directory: one run at a time -----------------------------------------------------

TEST_F(RunReliability, AnEarlierRunIsMovedAsideNotMixed) {
  ASSERT_TRUE(succeeded(run(kCavity, "--set output.vtk_every=0.1")));
  const size_t first_files = std::distance(fs::directory_iterator(out_), fs::directory_iterator{});
  // a failing run into the same directory: its partial output, and the earlier run complete aside
  const CliResult r = run(kCavity, "--set time.cfl=2");
  ASSERT_EQ(r.code, 1);
  EXPECT_EQ(summary()["status"], "failed");
  ASSERT_EQ(previous_runs(out_).size(), 1u);
  const std::string earlier = newest_previous_run(out_);
  EXPECT_TRUE(fs::exists(earlier + "/summary.json"));
  EXPECT_EQ(json::parse(read_all(earlier + "/summary.json"))["status"], "finished");
  EXPECT_TRUE(fs::exists(earlier + "/fields_00005.vtu") || fs::exists(earlier + "/fields_00005.h5"));
  EXPECT_FALSE(fs::exists(out_ + "/fields_00005.vtu") || fs::exists(out_ + "/fields_00005.h5"));
  // all its files but the lock, which stays with the directory
  EXPECT_EQ(std::distance(fs::directory_iterator(earlier), fs::directory_iterator{}), first_files - 1);
  // --overwrite deletes instead
  ASSERT_TRUE(succeeded(run(kCavity, "--overwrite")));
  EXPECT_EQ(previous_runs(out_).size(), 1u);
  EXPECT_EQ(manifest()["state"], "finished");
}

// An HDF5 run into a directory of an earlier VTU run: no fields.pvd is left pointing at old data.
TEST_F(RunReliability, AnHdf5RunLeavesNoStaleCollection) {
  if (!DGMAX_HAS_VTK) GTEST_SKIP() << "dgmax built without VTK (-DDGMAX_USE_VTK=OFF): no VTU run to follow";
  // (a failing VTU run is a failure, not a reason to skip)
  ASSERT_TRUE(succeeded(run(kCavity, "--set output.format=vtu")));
  ASSERT_TRUE(fs::exists(out_ + "/fields.pvd"));
  ASSERT_TRUE(succeeded(run(kCavity, "--set output.format=hdf5")));
  EXPECT_FALSE(fs::exists(out_ + "/fields.pvd"));
  EXPECT_FALSE(fs::exists(out_ + "/fields_00000.vtu"));
  EXPECT_TRUE(fs::exists(newest_previous_run(out_) + "/fields.pvd"));
}

// The cavity with probes, a closed-surface DFT monitor (monitors.h5, far_field_m.csv) and
// checkpoints: every kind of output a run writes.
const char* const kEveryOutput =
    "mesh: {box: {cells: [4, 4, 4]}}\n"
    "discretization: {order: 1}\n"
    "initial:\n"
    "  E: ['0', '0', 'sin(pi*x)*sin(pi*y)']\n"
    "  H: ['0', '0', '0']\n"
    "time: {final: 0.2}\n"
    "probes: {every: 0.1, points: [{name: c, at: [0.5, 0.5, 0.5]}]}\n"
    "monitors:\n"
    "  - name: m\n"
    "    surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}\n"
    "    frequencies: [1.0]\n"
    "output: {vtk_every: 0.1, checkpoint_every: 2}\n";

// A later run without probes or monitors, with or without --overwrite, never leaves the earlier
// run's probes.csv, monitors.h5, far field or checkpoints beside its own; summary.json lists them.
TEST_F(RunReliability, AnEarlierRunsProbesMonitorsAndFarFieldsAreNotMixed) {
  const std::vector<std::string> theirs = {"probes.csv", "monitors.h5", "far_field_m.csv"};
  for (const std::string mode : {"", "--overwrite"}) {
    SCOPED_TRACE(mode.empty() ? "moved aside" : mode);
    fs::remove_all(out_);
    ASSERT_TRUE(succeeded(run(kEveryOutput)));
    const json listed = summary()["outputs"]["files"];
    for (const std::string& f : theirs) {
      ASSERT_TRUE(fs::exists(out_ + "/" + f)) << f;
      EXPECT_NE(std::find(listed.begin(), listed.end(), f), listed.end()) << f << " not in summary.json: " << listed;
    }
    size_t checkpoints = 0;
    for (const auto& e : fs::directory_iterator(out_)) checkpoints += e.path().filename().string().rfind("checkpoint_", 0) == 0;
    ASSERT_GT(checkpoints, 0u);
    ASSERT_TRUE(succeeded(run(kCavity, mode)));
    for (const auto& e : fs::directory_iterator(out_)) {
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(std::find(theirs.begin(), theirs.end(), name) == theirs.end()) << name << " of the earlier run left";
      EXPECT_NE(name.rfind("checkpoint_", 0), 0u) << name << " of the earlier run left";
    }
    if (mode.empty()) {
      for (const std::string& f : theirs) EXPECT_TRUE(fs::exists(newest_previous_run(out_) + "/" + f)) << f;
    } else {
      EXPECT_TRUE(previous_runs(out_).empty());
    }
  }
}

// Nothing that is not dgmax's is moved or deleted: a user's files beside the run, another
// program's *.tmp, a user's file inside previous/ and inside a kept run's folder; previous/ keeps
// the newest 3 earlier runs, each in its own folder.
TEST_F(RunReliability, FilesThatAreNotDgmaxsAreLeftAlone) {
  fs::create_directories(out_ + "/previous");
  std::ofstream(out_ + "/notes.txt") << "mine";
  std::ofstream(out_ + "/download.tmp") << "another program's";
  std::ofstream(out_ + "/fields.csv") << "mine too";
  std::ofstream(out_ + "/previous/keep.txt") << "kept";
  std::vector<long long> pids;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(succeeded(run(kCavity, i == 3 ? "--overwrite" : "")));
    pids.push_back(manifest()["pid"].get<long long>());
    if (i == 0) {
      ASSERT_EQ(previous_runs(out_).size(), 0u);  // (the user's files are no earlier run)
    } else {
      std::ofstream(newest_previous_run(out_) + "/mine.txt") << "in a run's folder";
    }
  }
  EXPECT_EQ(read_all(out_ + "/notes.txt"), "mine");
  EXPECT_EQ(read_all(out_ + "/download.tmp"), "another program's");
  EXPECT_EQ(read_all(out_ + "/fields.csv"), "mine too");
  EXPECT_EQ(read_all(out_ + "/previous/keep.txt"), "kept");
  // runs 1 and 2 moved runs 0 and 1 aside, run 3 (--overwrite) deleted run 2's files, run 4 moved
  // run 3 aside: three folders, of runs 0, 1 and 3
  const std::vector<std::string> runs = previous_runs(out_);
  ASSERT_EQ(runs.size(), 3u);
  const size_t kept[] = {0, 1, 3};
  for (size_t k = 0; k < runs.size(); ++k) {
    const json m = json::parse(read_all(runs[k] + "/run.json"));
    EXPECT_EQ(m["pid"].get<long long>(), pids[kept[k]]) << runs[k];
    EXPECT_EQ(m["state"], "finished");
    EXPECT_TRUE(fs::exists(runs[k] + "/summary.json"));
  }
  // a fourth earlier run: the oldest (run 0's) goes, but for the user's file and so its folder
  ASSERT_TRUE(succeeded(run(kCavity)));
  EXPECT_EQ(previous_runs(out_).size(), 4u);  // run 0's folder stays for the user's file in it
  EXPECT_FALSE(fs::exists(runs[0] + "/run.json"));
  EXPECT_FALSE(fs::exists(runs[0] + "/summary.json"));
  EXPECT_EQ(read_all(runs[0] + "/mine.txt"), "in a run's folder");
}
// An earlier run's own temporary files (a killed write) go with it; another program's stay.
TEST_F(RunReliability, OnlyDgmaxsTemporaryFilesGoWithTheEarlierRun) {
  ASSERT_TRUE(succeeded(run(kCavity)));
  const std::string ours = "summary.json.4242.17.3.dgmax.tmp", older = "energy.csv.4242.17.4.tmp";
  const std::vector<std::string> foreign = {"summary.json.tmp", "notes.4242.17.3.dgmax.tmp", "fields.tmp", "x.1.2.3.tmp"};
  for (const std::string& f : foreign) std::ofstream(out_ + "/" + f) << f;
  std::ofstream(out_ + "/" + ours) << "half";
  std::ofstream(out_ + "/" + older) << "half";
  ASSERT_TRUE(succeeded(run(kCavity)));
  EXPECT_TRUE(fs::exists(newest_previous_run(out_) + "/" + ours));
  EXPECT_TRUE(fs::exists(newest_previous_run(out_) + "/" + older));
  for (const std::string& f : foreign) EXPECT_EQ(read_all(out_ + "/" + f), f) << f;
  ASSERT_TRUE(succeeded(run(kCavity, "--overwrite")));
  for (const std::string& f : foreign) EXPECT_EQ(read_all(out_ + "/" + f), f) << f;
}

// A user's file named `previous` is neither deleted nor replaced: the run that would need the
// folder is refused, naming it; --overwrite needs no previous/.
TEST_F(RunReliability, AFileNamedPreviousIsRefusedNotDeleted) {
  fs::create_directories(out_);
  std::ofstream(out_ + "/previous") << "my notes";
  ASSERT_TRUE(succeeded(run(kCavity)));  // nothing to move aside yet
  const std::string before = read_all(out_ + "/summary.json");
  const CliResult r = run(kCavity);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find(out_ + "/previous is a file, not a directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: rename it, or run with --overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(read_all(out_ + "/previous"), "my notes");
  EXPECT_EQ(read_all(out_ + "/summary.json"), before);  // the earlier run untouched
  ASSERT_TRUE(succeeded(run(kCavity, "--overwrite")));
  EXPECT_EQ(read_all(out_ + "/previous"), "my notes");
}

// A file the run would write that no earlier run recorded is refused (a regular one unless
// --overwrite asks); a link or FIFO under such a name always, and it stays what it was.
TEST_F(RunReliability, AFileTheRunWouldReplaceIsRefusedUnlessRecorded) {
  fs::create_directories(out_);
  std::ofstream(out_ + "/summary.json") << "my summary";
  std::ofstream(out_ + "/checkpoint_000000000005.h5") << "not a run's";
  CliResult r = run(kCavity);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find(out_ + " holds checkpoint_000000000005.h5, summary.json, which this run would replace and no "
                       "earlier dgmax run there recorded as its own (no dgmax run.json)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_all(out_ + "/summary.json"), "my summary");
  EXPECT_EQ(read_all(out_ + "/checkpoint_000000000005.h5"), "not a run's");
  EXPECT_FALSE(fs::exists(out_ + "/run.json"));
  // a link where the run writes probes.csv, and its target: refused also with --overwrite
  std::ofstream(dir_ + "/target.csv") << "elsewhere";
  fs::create_symlink(dir_ + "/target.csv", out_ + "/probes.csv");
  const std::string probes = std::string(kCavity) + "probes: {points: [{name: c, at: [0.5, 0.5, 0.5]}]}\n";
  for (const std::string mode : {"", "--overwrite"}) {
    r = run(probes, mode);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(out_ + " holds probes.csv (a symbolic link) where this run writes a file of its own"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::is_symlink(out_ + "/probes.csv"));
    EXPECT_EQ(read_all(dir_ + "/target.csv"), "elsewhere");
  }
  if (::mkfifo((out_ + "/energy.csv").c_str(), 0644) == 0) {
    r = run(kCavity, "--overwrite");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("energy.csv (a FIFO)"), std::string::npos) << r.err;
    EXPECT_EQ(fs::status(out_ + "/energy.csv").type(), fs::file_type::fifo);
  }
  // --overwrite replaces the regular file once the link is gone
  fs::remove(out_ + "/probes.csv");
  fs::remove(out_ + "/energy.csv");
  ASSERT_TRUE(succeeded(run(kCavity, "--overwrite")));
  EXPECT_EQ(summary()["status"], "finished");
  EXPECT_FALSE(fs::exists(out_ + "/checkpoint_000000000005.h5"));
  EXPECT_EQ(read_all(dir_ + "/target.csv"), "elsewhere");
}

// A previous/ of dgmax before the per-run folders (one run's files, flat, its run.json without a
// record of its outputs) is moved into that run's folder; the user's file there stays.
TEST_F(RunReliability, AFlatPreviousOfAnOlderDgmaxGoesIntoItsFolder) {
  fs::create_directories(out_ + "/previous");
  std::ofstream(out_ + "/previous/run.json")
      << R"({"dgmax": "0.1.0", "state": "finished", "started": "2026-01-02T03:04:05Z", "pid": 77})";
  for (const char* f : {"summary.json", "probes.csv", "far_field_old.csv", "checkpoint_000000000010.h5"})
    std::ofstream(out_ + "/previous/" + f) << f;
  std::ofstream(out_ + "/previous/mine.txt") << "mine";
  ASSERT_TRUE(succeeded(run(kCavity)));
  ASSERT_TRUE(succeeded(run(kCavity)));
  const std::string old = out_ + "/previous/20260102-030405-77";
  for (const char* f : {"run.json", "summary.json", "probes.csv", "far_field_old.csv", "checkpoint_000000000010.h5"})
    EXPECT_TRUE(fs::exists(old + "/" + f)) << f;
  EXPECT_EQ(read_all(out_ + "/previous/mine.txt"), "mine");
  EXPECT_EQ(previous_runs(out_).size(), 2u);
}

// A mesh that cannot be loaded is a config error in effect: the earlier run stays where it is.
TEST_F(RunReliability, AMeshErrorLeavesTheDirectoryAlone) {
  ASSERT_TRUE(succeeded(run(kCavity)));
  const CliResult r = run("mesh: {file: no_such_mesh.msh}\ndiscretization: {order: 1}\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(summary()["status"], "finished");
  EXPECT_FALSE(fs::exists(out_ + "/previous"));
}

TEST_F(RunReliability, AUserFileInTheDirectoryIsLeftAlone) {
  fs::create_directories(out_);
  std::ofstream(out_ + "/notes.txt") << "mine";
  ASSERT_TRUE(succeeded(run(kCavity)));
  ASSERT_TRUE(succeeded(run(kCavity)));
  EXPECT_EQ(read_all(out_ + "/notes.txt"), "mine");
}

// The first run holds the directory: its time.final is far beyond what it reaches (65,184 steps on
// the ref backend), and it is stopped only after the second run was refused, so the check cannot
// race its end however fast or loaded the machine is.
TEST_F(RunReliability, ASecondConcurrentRunIsRefused) {
  const std::string path = config(bigger_cavity(), "slow.yaml");
  CliResult second{-1, "", "the second run did not start"};
  const auto first = dgmax::test::run_dgmax_until_and_signal(
      "", "run -q --backend ref " + path + " --set time.final=1000 --output '" + out_ + "'",
      [&](pid_t, const std::string&) { return fs::exists(out_ + "/run.json"); }, SIGTERM,
      [&] { second = run(kCavity); });
  EXPECT_EQ(first.code, 143) << first.describe();
  EXPECT_EQ(second.code, 1) << second.err;
  EXPECT_NE(second.err.find("another dgmax run (pid"), std::string::npos) << second.err;
}

TEST_F(RunReliability, EmptyOutputDirectoryIsRefused) {
  const CliResult r = run_dgmax("run -q " + config(kCavity) + " --output ''");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the output directory is empty"), std::string::npos) << r.err;
}

// --set takes one key=value: the config after it is not swallowed.
TEST_F(RunReliability, SetBeforeTheConfigLeavesTheConfigAlone) {
  const CliResult r = run_dgmax("run -q --backend cpu --set time.final=0.1 " + config(kCavity) + " --output '" + out_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_DOUBLE_EQ(summary()["final_time"].get<double>(), 0.1);
  EXPECT_EQ(summary()["K"].get<long long>(), 48);
}

// ---- signals ------------------------------------------------------------------------------------

void expect_interrupted(const std::string& out, int code, int expected_code) {
  EXPECT_EQ(code, expected_code);
  const json s = json::parse(read_all(out + "/summary.json"));
  EXPECT_EQ(s["status"], "interrupted");
  EXPECT_GT(s["steps_done"].get<long long>(), 0);
  EXPECT_LT(s["steps_done"].get<long long>(), s["steps"].get<long long>());
  EXPECT_EQ(json::parse(read_all(out + "/run.json"))["state"], "interrupted");
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_NE(e.path().extension(), ".tmp") << e.path();
  EXPECT_FALSE(read_all(out + "/energy.csv").empty());
}

// SIGHUP (a closed terminal, a dropped ssh connection) is a stop like SIGTERM: the run is recorded as
// interrupted and exits 129, instead of dying with run.json left "running".
TEST_F(RunReliability, SigintSigtermAndSighupStopCleanly) {
  const std::string path = config(bigger_cavity(), "slow.yaml");
  for (const auto& [sig, code] : {std::pair<int, int>{SIGINT, 130}, {SIGTERM, 143}, {SIGHUP, 129}}) {
    fs::remove_all(out_);
    const auto run = dgmax::test::run_dgmax_and_signal(
        "run -q --backend ref " + path + " --set time.final=100 --set output.format=hdf5 --set output.vtk_every=0.05 --output '" + out_ + "'",
        out_ + "/fields_00001.h5", sig);
    SCOPED_TRACE(run.describe());
    expect_interrupted(out_, run.code, code);
  }
}

}  // namespace

// The tests' dgmax runner (tests/common/run_cli.hpp) runs a command again only when LeakSanitizer's
// own tracer failed at exit: exit 1 with its fatal-error banner and no leak report. A leak (exit 23,
// a report) or a dgmax error is never retried.
TEST(RunCliHelper, OnlyLeakSanitizersOwnFailureIsRunAgain) {
  const std::string banner = "Tracer caught signal 11: addr=0x0 pc=0x0 sp=0x0\n==1==LeakSanitizer has encountered a fatal error.\n";
  EXPECT_TRUE(lsan_tracer_failed(CliResult{1, "", banner}));
  EXPECT_FALSE(lsan_tracer_failed(CliResult{1, "", "error: the output directory is empty\n"}));
  EXPECT_FALSE(lsan_tracer_failed(CliResult{23, "", "==1==ERROR: LeakSanitizer: detected memory leaks\n"}));
  EXPECT_FALSE(lsan_tracer_failed(CliResult{1, "", banner + "==1==ERROR: LeakSanitizer: detected memory leaks\n"}));
  EXPECT_FALSE(lsan_tracer_failed(CliResult{0, "", banner}));
}
