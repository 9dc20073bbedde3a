// Checkpoint/restart end to end through the CLI: a run with checkpoints, then a restart from a
// copy of its directory, must reproduce the uninterrupted run's snapshots bit for bit.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_cli.hpp"

namespace dgmax::test {

// A run with a source, HDF5 snapshots every 0.2 and a checkpoint every 20 steps: what the restart
// tests run (on `cells`³ boxes at `order`).
inline std::string restart_case(int cells, int order) {
  const std::string c = std::to_string(cells);
  return "mesh: {box: {cells: [" + c + ", " + c + ", " + c + "]}}\n"
         "discretization: {order: " + std::to_string(order) + "}\n"
         "initial:\n"
         "  E: ['0', '0', 'sin(pi*x)*sin(pi*y)']\n"
         "  H: ['0', '0', '0']\n"
         "sources: {J: ['0', '0.1*sin(2*t)*x', '0']}\n"
         "time: {final: 1}\n"
         "output: {vtk_every: 0.2, format: hdf5, checkpoint_every: 20}\n";
}

// A dataset of an HDF5 snapshot as raw doubles (empty when missing).
inline std::vector<double> read_h5_doubles(const std::string& path, const char* name) {
  std::vector<double> v;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return v;
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d >= 0) {
    const hid_t sp = H5Dget_space(d);
    v.resize(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) v.clear();
    H5Sclose(sp);
    H5Dclose(d);
  }
  H5Fclose(f);
  return v;
}

// Runs `config` (which must write hdf5 snapshots and checkpoints) into dir/a, copies it to dir/b,
// restarts b from its newest checkpoint, and compares every snapshot's E and H bitwise.
// `first_env` / `restart_env` prefix the two commands (e.g. "DGMAX_CUDA_PLAN=f1.b4.t1 ").
inline void expect_bitwise_restart(const std::string& dir, const std::string& config, const std::string& args,
                                   const std::string& first_env = "", const std::string& restart_env = "") {
  namespace fs = std::filesystem;
  const std::string a = dir + "/a", b = dir + "/b";
  CliResult r = run_dgmax_env(first_env, "run -q " + args + " " + config + " --output " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  fs::remove_all(b);
  fs::copy(a, b, fs::copy_options::recursive);
  // what the restart must write again: the snapshots after the checkpoint
  std::vector<fs::path> snaps;
  for (const auto& e : fs::directory_iterator(b))
    if (e.path().extension() == ".h5" && e.path().filename().string().rfind("fields_", 0) == 0) snaps.push_back(e.path());
  ASSERT_GE(snaps.size(), 3u);
  // nothing copied may stand in for what the restart writes
  for (const auto& f : snaps) fs::remove(f);
  fs::remove(b + "/energy.csv");
  fs::remove(b + "/summary.json");
  r = run_dgmax_env(restart_env, "run -q " + args + " " + config + " --restart " + b);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto sa = nlohmann::json::parse(read_all(a + "/summary.json"));
  const auto sb = nlohmann::json::parse(read_all(b + "/summary.json"));
  ASSERT_TRUE(sb.contains("restarted_from")) << sb.dump(2);
  EXPECT_GT(sb["restarted_from"]["step"].get<long long>(), 0);
  EXPECT_EQ(sb["status"], "finished");
  EXPECT_EQ(sa["energy"]["final"].get<double>(), sb["energy"]["final"].get<double>());
  EXPECT_EQ(read_all(a + "/energy.csv"), read_all(b + "/energy.csv"));
  int rewritten = 0;
  for (const auto& s : snaps) {
    const std::string name = s.filename().string();
    if (!fs::exists(b + "/" + name)) continue;  // before the checkpoint: not written again
    ++rewritten;
    for (const char* field : {"E", "H"}) {
      const auto va = read_h5_doubles(a + "/" + name, field), vb = read_h5_doubles(b + "/" + name, field);
      ASSERT_FALSE(va.empty()) << name;
      EXPECT_TRUE(va.size() == vb.size() && std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) == 0)
          << name << " " << field << " differs after the restart";
    }
  }
  EXPECT_GE(rewritten, 1) << "the restart wrote no snapshot";
}

}  // namespace dgmax::test
