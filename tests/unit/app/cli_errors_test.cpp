// The command line and config-file reading end to end (the reliability checks): a mistyped
// subcommand gets a suggestion, bench options out of range are refused, and a config that cannot be
// read says why; each gives exit code 1 and exactly one message (never the internal-error code 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using dgmax::test::CliResult;
using dgmax::test::run_dgmax;
namespace fs = std::filesystem;

namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

void expect_user_error(const CliResult& r, std::initializer_list<std::string> parts) {
  EXPECT_EQ(r.code, 1) << "stderr:\n" << r.err << "stdout:\n" << r.out;
  EXPECT_EQ(count_of(r.err, "error: "), 1u) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  for (const std::string& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "missing: " << p << "\n" << r.err;
}

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "dgmax_cli_errors_" + std::to_string(::getpid()) + "_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(CliErrors, MistypedSubcommandSuggestsTheClosest) {
  expect_user_error(run_dgmax("rnu configs/cavity.yaml"),
                    {"error: unknown command 'rnu'", "hint: did you mean 'run'? commands: run, info, bench"});
  expect_user_error(run_dgmax("ifno box:1,1,1"), {"unknown command 'ifno'", "did you mean 'info'?"});
  expect_user_error(run_dgmax("frobnicate"), {"unknown command 'frobnicate'", "commands: run, info, bench"});
}

TEST(CliErrors, BenchStepsOutOfRange) {
  for (const char* steps : {"-3", "0", "99999999999"})
    expect_user_error(run_dgmax(std::string("bench --backends ref --elements 6 --json '' --steps ") + steps),
                      {"error: --steps must be between 1 and 1000000, got " + std::string(steps),
                       "hint: leave --steps out"});
}

TEST(CliErrors, BenchElementsOutOfRange) {
  expect_user_error(run_dgmax("bench --backends ref --json '' --elements 100000000000000"),
                    {"error: --elements must be between 6 and 1000000000",
                     "hint: the number of tetrahedra (a box of n x n x n cubes, 6 each), e.g. --elements 48000"});
}

// Option values out of range name what to write instead.
TEST(CliErrors, BenchAndInfoOptionsOutOfRangeCarryAHint) {
  expect_user_error(run_dgmax("bench --backends ref --elements 6 --json '' --precision quad"),
                    {"error: --precision must be double or single, got 'quad'",
                     "hint: write --precision double or --precision single"});
  expect_user_error(run_dgmax("bench --backends ref --elements 6 --json '' --order 16"),
                    {"error: --order must be between 1 and 15, got 16",
                     "hint: the polynomial order, e.g. --order 3, --order 2,4 or --order 1..6"});
  // (info's --order is range-checked by the option parser; the config's order is checked here)
  const std::string dir = temp_dir("info_order");
  { std::ofstream(dir + "/c.yaml") << "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 16}\n"; }
  expect_user_error(run_dgmax("info " + dir + "/c.yaml"),
                    {"error: order must be between 1 and 15, got 16",
                     "hint: set the polynomial order with --order N or discretization.order in the config"});
  fs::remove_all(dir);
}

TEST(CliErrors, DirectoryAsConfig) {
  const std::string dir = temp_dir("dir") + "/cfg.yaml";
  fs::create_directories(dir);
  expect_user_error(run_dgmax("run '" + dir + "'"), {"error: cannot read config file '" + dir + "': it is a directory"});
  expect_user_error(run_dgmax("info '" + dir + "'"), {"it is a directory"});
}

TEST(CliErrors, MissingConfigSaysWhy) {
  const std::string path = temp_dir("missing") + "/nope.yaml";
  expect_user_error(run_dgmax("run '" + path + "'"),
                    {"error: cannot open config file '" + path + "': No such file or directory"});
}

TEST(CliErrors, DevZeroAsConfigStopsAtTheLimit) {
  expect_user_error(run_dgmax("run /dev/zero"), {"/dev/zero: error: the config is larger than 1 MiB"});
}

// A config error through the binary: file:line:col, the line, the caret, exit 1.
TEST(CliErrors, SecondDocumentThroughTheBinary) {
  const std::string path = temp_dir("doc") + "/two.yaml";
  std::ofstream(path) << "mesh: {box: {cells: [1, 1, 1]}}\n---\ntime: {final: 2}\n";
  expect_user_error(run_dgmax("run '" + path + "'"),
                    {path + ":2:1: error: the config has a second YAML document", "\n  ---\n  ^\n"});
}

TEST(CliErrors, TuneArgumentsAndMissingGpu) {
  auto r = run_dgmax("tune --precision quad");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: --precision must be double, single or both, got 'quad'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: write --precision double, --precision single or --precision both"), std::string::npos)
      << r.err;
  r = run_dgmax("tune --order 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--order must be between 1 and 15, got 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: the polynomial order"), std::string::npos) << r.err;
  r = run_dgmax("tune --backend gpu");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: --backend must be cuda or cpu, got 'gpu'"), std::string::npos) << r.err;
  std::string why;
  if (dgmax::cuda::driver_available(&why)) return;  // the rest is for machines without a GPU
  r = run_dgmax("tune --order 3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: dgmax tune searches plans of the cuda backend, which needs an NVIDIA GPU"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: run it on the GPU machine, or search the cpu backend's plans with --backend cpu"),
            std::string::npos) << r.err;
}

// A plan search or bench whose fields would not fit the host's memory is refused before it starts
// (DGMAX_MEMORY_AVAILABLE stands in for MemAvailable): one message naming the highest order, the
// bytes needed and available, and for a config its path; nothing searched, nothing stored.
TEST(CliErrors, CpuSearchOrBenchTooLargeForTheHostIsRefusedUpFront) {
  const std::string dir = temp_dir("memory");
  const std::string env = "DGMAX_MEMORY_AVAILABLE=1e9 DGMAX_CACHE_DIR='" + dir + "/cache' ";
  const CliResult t = dgmax::test::run_dgmax_env(env, "tune --backend cpu --order 1..6 --elements 40000 --json ''");
  expect_user_error(t, {"error: a cpu plan search of order 6 has 41154 elements", "needs about 2.0 GB",
                        "only 1.0 GB is available", "hint: fewer --elements or a lower --order"});
  EXPECT_EQ(t.out.find("N = 1"), std::string::npos) << "nothing searched:\n" << t.out;
  EXPECT_FALSE(fs::exists(dir + "/cache/tuning/cpu.json"));
  expect_user_error(dgmax::test::run_dgmax_env(env, "bench --order 1..6 --elements 40000 --backends cpu --json ''"),
                    {"error: a bench of order 6 with host backends has 41154 elements", "only 1.0 GB is available",
                     "hint: fewer --elements, a lower --order, or --backends cuda"});
  // a config (384 elements at N = 4): its path is the location; the box itself still fits
  const std::string cfg = dir + "/cavity.yaml";
  std::ofstream(cfg) << "mesh: {box: {lower: [0, 0, 0], upper: [1, 1, 1], cells: [4, 4, 4]}}\n"
                        "discretization: {order: 4, precision: double, flux: upwind}\n"
                        "initial: {E: ['0', '0', 'sin(pi*x)*sin(pi*y)'], H: ['0', '0', '0']}\n"
                        "time: {final: 0.1}\n";
  const CliResult c = dgmax::test::run_dgmax_env("DGMAX_MEMORY_AVAILABLE=2e6 DGMAX_CACHE_DIR='" + dir + "/cache' ",
                                                 "tune --backend cpu '" + cfg + "' --json ''");
  expect_user_error(c, {cfg, "a cpu plan search of order 4 has 384 elements", "hint: coarsen the mesh or lower the order"});
  // within the memory there is, the same search runs
  const CliResult ok = dgmax::test::run_dgmax_env(env, "tune --backend cpu --order 1 --elements 48 --no-store --json ''");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("best: "), std::string::npos) << ok.out;
}

// Options that did nothing: `--restart ''` ran from t = 0 and moved the earlier run and its
// checkpoints aside; `tune --set` without a config and `tune CONFIG --elements` were ignored.
// Each is now refused with a message, before anything is read or moved.
TEST(CliErrors, EmptyRestartDirectoryIsRefusedAndMovesNothing) {
  const std::string dir = temp_dir("restart");
  const std::string cfg = dir + "/c.yaml";
  std::ofstream(cfg) << "mesh: {box: {cells: [1, 1, 1]}}\ndiscretization: {order: 1}\ntime: {final: 0.05}\n"
                        "output: {dir: '" << dir << "/out', checkpoint_every: 1}\n";
  const CliResult first = run_dgmax("run -q '" + cfg + "'");
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string summary = dgmax::test::read_all(dir + "/out/summary.json");
  for (const std::string form : {"--restart ''", "--restart=''"}) {
    const CliResult r = run_dgmax("run -q '" + cfg + "' " + form);
    if (form == "--restart=''") {  // CLI11 itself refuses a missing value
      EXPECT_EQ(r.code, 1) << r.err;
    } else {
      expect_user_error(r, {"error: --restart needs the directory of the run to continue, but its value is empty",
                            "hint: give the run's output directory"});
    }
    EXPECT_FALSE(fs::exists(dir + "/out/previous")) << "the earlier run was moved aside";
    EXPECT_EQ(dgmax::test::read_all(dir + "/out/summary.json"), summary);
  }
}

TEST(CliErrors, TuneOptionsThatWouldBeIgnoredAreRefused) {
  expect_user_error(run_dgmax("tune --backend cpu --set discretization.order=3 --json ''"),
                    {"error: --set changes a config, but no CONFIG is given", "hint: give the config first"});
  const std::string dir = temp_dir("tune_options");
  const std::string cfg = dir + "/c.yaml";
  std::ofstream(cfg) << "mesh: {box: {cells: [1, 1, 1]}}\n";
  expect_user_error(run_dgmax("tune --backend cpu '" + cfg + "' --elements 48 --json ''"),
                    {"error: --elements sizes the periodic box, but CONFIG gives the mesh"});
}

// `tune CONFIG --order 1` searched the config's order (2 here) and stored it under that order:
// now it tunes the order asked, on the config's problem.
TEST(CliErrors, TuneConfigAtTheOrderAsked) {
  const std::string dir = temp_dir("tune_order");
  const std::string cfg = dir + "/c.yaml";
  std::ofstream(cfg) << "mesh: {box: {cells: [2, 2, 2]}}\ndiscretization: {order: 2}\n";
  const CliResult r = dgmax::test::run_dgmax_env("DGMAX_CACHE_DIR='" + dir + "/cache' ",
                                                 "tune --backend cpu '" + cfg + "' --order 1 --no-store --json '" +
                                                     dir + "/t.json'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(dgmax::test::read_all(dir + "/t.json"));
  ASSERT_EQ(j.at("results").size(), 1u) << j.dump();
  EXPECT_EQ(j["results"][0].at("N"), 1) << j.dump();
  EXPECT_EQ(j["results"][0].at("problem"), cfg + " at N = 1") << j.dump();
  EXPECT_EQ(j["results"][0].at("K"), 48) << j.dump();
}

// A DGMAX_CXX that answers --version but writes text where the library should be: exit 1 with a
// message naming the compiler (it was "internal error (please report)", exit 2).
TEST(CliErrors, CompilerThatWritesNoLibraryExitsOne) {
  const std::string dir = temp_dir("fake_cxx");
  const std::string cxx = dir + "/fake-cxx";
  std::ofstream(cxx) << "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'fake 1.0'; exit 0; }\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\necho 'not a library' > \"$out\"\n";
  fs::permissions(cxx, fs::perms::owner_all);
  const CliResult r = dgmax::test::run_dgmax_env("DGMAX_CXX='" + cxx + "' DGMAX_CACHE_DIR='" + dir + "/cache' ",
                                                 "run -q --backend cpu --set time.final=0.01 --output '" + dir + "/out'");
  expect_user_error(r, {"error: the C++ compiler '" + cxx + "' wrote '" + dir + "/cache/cpu/",
                        "which is not a loadable shared library", "hint: set DGMAX_CXX"});
}
