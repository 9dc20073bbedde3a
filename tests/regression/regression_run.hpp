// Runs a shipped config (configs/<name>.yaml) through the dgmax binary with --set overrides and
// reads back what the run wrote: summary.json and energy.csv. Shared by the regression tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.hpp"

namespace dgmax::test {

struct EnergySample {
  long long step;
  double t, energy;
};

struct ConfigRun {
  int code = -1;
  std::string out, err, dir;
  nlohmann::json summary;
  std::vector<EnergySample> energy;  // energy.csv rows

  double err_L2(const char* field) const { return summary["errors"]["L2"][field].get<double>(); }
  double err_Linf(const char* field) const { return summary["errors"]["Linf"][field].get<double>(); }
  double energy_initial() const { return summary["energy"]["initial"].get<double>(); }
  double energy_final() const { return summary["energy"]["final"].get<double>(); }
  EnergySample energy_peak() const {
    EnergySample best{0, 0, -1};
    for (const auto& s : energy)
      if (s.energy > best.energy) best = s;
    return best;
  }
};

inline std::string config_path(const std::string& name) {
  return std::string(DGMAX_SOURCE_DIR) + "/configs/" + name + ".yaml";
}

// "run 'configs/<name>.yaml' <where> -q --set output.vtk_every=0 --set '<each>'...": dgmax's arguments.
inline std::string config_args(const std::string& name, const std::string& where, const std::vector<std::string>& sets) {
  std::string args = "run '" + config_path(name) + "' " + where + " -q --set output.vtk_every=0";
  for (const auto& s : sets) args += " --set '" + s + "'";  // quoted: [a,b,c] is a shell pattern
  return args;
}

// Runs `dgmax run configs/<name>.yaml <where> -q --set output.vtk_every=0 --set <each>` and reads
// back what the run wrote into `dir` (summary.json, energy.csv); on failure the test fails with
// dgmax's stderr. `launcher`: put before the binary (e.g. "mpirun -np 2 "; end it with a space).
inline ConfigRun run_config_into(const std::string& name, const std::string& dir, const std::string& where,
                                 const std::vector<std::string>& sets, const std::string& launcher) {
  ConfigRun r;
  r.dir = dir;
  const std::string args = config_args(name, where, sets);
  // OpenMP threads that spin while waiting make dgmax 5-10x slower when the cores are shared
  // (ctest -j, other jobs); sleeping waits keep the suite fast there. Results do not change.
  // An OMP_WAIT_POLICY already set by the caller wins.
  ::setenv("OMP_WAIT_POLICY", "passive", 0);
  const CliResult cli = run_dgmax_env(launcher, args);
  r.code = cli.code;
  r.out = cli.out;
  r.err = cli.err;
  EXPECT_EQ(cli.code, 0) << launcher << "dgmax " << args << "\n" << cli.err;
  if (cli.code == 0) {
    r.summary = nlohmann::json::parse(read_all(r.dir + "/summary.json"));
    std::istringstream csv(read_all(r.dir + "/energy.csv"));
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
      EnergySample s{};
      char c1 = 0, c2 = 0;
      std::istringstream row(line);
      if (row >> s.step >> c1 >> s.t >> c2 >> s.energy) r.energy.push_back(s);
    }
    EXPECT_FALSE(r.energy.empty()) << "no rows in " << r.dir << "/energy.csv";
  }
  return r;
}

// Runs `dgmax run configs/<name>.yaml --output <temp> -q --set output.vtk_every=0 --set <each>`
// (no intermediate snapshots: the tests read norms only). The output folder is removed after
// reading. `keep_dir`: leave the output folder for the caller to read (and remove).
inline ConfigRun run_config(const std::string& name, const std::vector<std::string>& sets = {}, bool keep_dir = false,
                            const std::string& launcher = "") {
  static int counter = 0;
  const std::string dir = ::testing::TempDir() + "dgmax_regression_" + name + "_" + std::to_string(::getpid()) + "_" +
                          std::to_string(counter++);
  std::filesystem::remove_all(dir);
  ConfigRun r = run_config_into(name, dir, "--output '" + dir + "'", sets, launcher);
  if (!keep_dir) std::filesystem::remove_all(r.dir);
  return r;
}

// `dgmax run configs/<name>.yaml --restart <dir>` with the sets of the run that wrote `dir`; the
// folder is left for the caller.
inline ConfigRun restart_config(const std::string& name, const std::string& dir, const std::vector<std::string>& sets = {},
                                const std::string& launcher = "") {
  return run_config_into(name, dir, "--restart '" + dir + "'", sets, launcher);
}

// |measured − expected| ≤ rel·|expected|, with both numbers in the message. The expected values
// in the tests were measured with backend auto (the generated cpu backend; the ref backend agrees
// to 1e-15); OpenMP summation order changes them by about 1e-15 relative, so 1e-6 catches any
// change of the numerics.
inline ::testing::AssertionResult RelNear(const char* me, const char* ee, const char*, double measured,
                                          double expected, double rel) {
  if (std::abs(measured - expected) <= rel * std::abs(expected)) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(17);
  os << me << " = " << measured << ", expected " << ee << " = " << expected << " (relative difference "
     << std::abs(measured - expected) / std::abs(expected) << " > " << rel << ")";
  return ::testing::AssertionFailure() << os.str();
}

constexpr double kRelTol = 1e-6;

}  // namespace dgmax::test

#define EXPECT_REL_NEAR(measured, expected) \
  EXPECT_PRED_FORMAT3(::dgmax::test::RelNear, measured, expected, ::dgmax::test::kRelTol)
