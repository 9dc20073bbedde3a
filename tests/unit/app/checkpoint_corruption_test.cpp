// A damaged checkpoint is never continued from: one bit flipped at random places of every
// attribute and dataset of a real checkpoint (seeded), each time restarted from, must give either
// the fallback to the previous checkpoint, with a warning naming the damaged file, and then the
// uninterrupted run's outputs bit for bit (energy.csv, probes.csv, the far field, monitors.h5,
// summary.json's errors and energy), or a refusal (exit 1) recorded as "failed" in run.json and
// summary.json. Never a different answer with exit 0 (docs/user-guide.md: Checkpoints and restart).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "checkpoint_items.hpp"
#include "run_cli.hpp"
#include "solver/io/checkpoint_digest.hpp"

using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
namespace fs = std::filesystem;

namespace {

// A TM110 mode of the PEC cavity [0, 3]^3 (its exact solution gives summary.json errors), a probe,
// a closed DFT monitor with its far field, checkpoints every 4 steps: every kind of progress the
// record carries, on 162 elements of order 1 (well under a second a run).
const char* kCorruptionCase = R"yaml(mesh: {box: {lower: [0, 0, 0], upper: [3, 3, 3], cells: [3, 3, 3]}}
discretization: {order: 1}
constants: {k: "pi/3", w: "sqrt(2)*pi/3"}
initial:
  E: ["0", "0", "sin(k*x)*sin(k*y)"]
  H: ["0", "0", "0"]
exact:
  E: ["0", "0", "sin(k*x)*sin(k*y)*cos(w*t)"]
  H: ["-k/w*sin(k*x)*cos(k*y)*sin(w*t)", "k/w*cos(k*x)*sin(k*y)*sin(w*t)", "0"]
probes:
  points:
    - {name: p, at: [1.5, 1.5, 1.5]}
monitors:
  - name: m
    surface: {box: {lower: [1, 1, 1], upper: [2, 2, 2]}}
    frequencies: [0.25]
time: {final: 3}
output: {vtk_every: 0, checkpoint_every: 4}
backend: cpu
)yaml";

// Every dataset of an HDF5 file by path, as raw bytes in its stored type.
std::map<std::string, std::string> h5_datasets(const std::string& path) {
  std::map<std::string, std::string> out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return out;
  H5Ovisit2(
      f, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t obj, const char* name, const H5O_info_t* info, void* op) -> herr_t {
        if (info->type != H5O_TYPE_DATASET) return 0;
        const hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
        const hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
        std::string v(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)) * H5Tget_size(t), '\0');
        if (!v.empty()) H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        (*static_cast<std::map<std::string, std::string>*>(op))[name] = v;
        H5Sclose(sp);
        H5Tclose(t);
        H5Dclose(d);
        return 0;
      },
      &out, H5O_INFO_BASIC);
  H5Fclose(f);
  return out;
}

class CheckpointCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_ckpt_flip_" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = dir_ + "/case.yaml";
    std::ofstream(config_) << kCorruptionCase;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, config_;
};

TEST_F(CheckpointCorruption, EveryFlippedBitFallsBackOrIsRefusedNeverADifferentAnswer) {
  const std::string a = dir_ + "/a", base = dir_ + "/base";
  CliResult r = run_dgmax("run -q " + config_ + " --output " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> checkpoints;
  for (const auto& e : fs::directory_iterator(a))
    if (e.path().filename().string().rfind("checkpoint_", 0) == 0) checkpoints.push_back(e.path().filename().string());
  std::sort(checkpoints.begin(), checkpoints.end());
  ASSERT_EQ(checkpoints.size(), 2u);
  const long long previous_step = std::stoll(checkpoints[0].substr(11, 12));
  const auto summary_a = nlohmann::json::parse(read_all(a + "/summary.json"));
  const std::vector<std::string> texts = {"/energy.csv", "/probes.csv", "/far_field_m.csv"};
  // what a restart must write again, removed so that nothing copied stands in for it
  fs::copy(a, base, fs::copy_options::recursive);
  for (const auto& f : texts) fs::remove(base + f);
  for (const char* f : {"/monitors.h5", "/summary.json"}) fs::remove(base + f);
  const std::string newest = "/" + checkpoints[1];
  const auto items = dgmax::test::locate_checkpoint_items(base + newest, dir_ + "/scratch.h5");
  // every attribute and dataset, each located (a value of no bytes has nothing to flip)
  ASSERT_GE(items.size(), 20u);
  for (const auto& it : items) EXPECT_GT(it.size(), 0u) << it.item << " was not located in the file";

  std::mt19937_64 rng(47);
  const std::string original = dgmax::test::file_bytes(base + newest);
  int flips = 0, fallbacks = 0, refusals = 0;
  for (int round = 0; round < 2; ++round)
    for (const auto& it : items) {
      if (it.size() == 0) continue;
      const uint64_t bit = std::uniform_int_distribution<uint64_t>(0, it.size() * 8 - 1)(rng);
      const uint64_t at = it.offset(bit / 8);
      SCOPED_TRACE(it.item + ": bit " + std::to_string(bit % 8) + " of byte " + std::to_string(at));
      const std::string b = dir_ + "/b";
      fs::remove_all(b);
      fs::copy(base, b, fs::copy_options::recursive);
      std::string damaged = original;
      damaged[at] ^= static_cast<char>(1u << (bit % 8));
      dgmax::test::put_file_bytes(b + newest, damaged);
      ++flips;
      r = run_dgmax("run -q " + config_ + " --restart " + b);
      const auto run_json = nlohmann::json::parse(read_all(b + "/run.json"));
      if (r.code != 0) {  // a refusal: exit 1, recorded, printable
        ++refusals;
        EXPECT_EQ(r.code, 1) << r.err;
        EXPECT_EQ(run_json["state"], "failed");
        EXPECT_EQ(nlohmann::json::parse(read_all(b + "/summary.json"))["status"], "failed");
        continue;
      }
      ++fallbacks;
      EXPECT_NE(r.err.find("warning: cannot read checkpoint '" + b + newest + "'"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("trying the previous checkpoint"), std::string::npos) << r.err;
      const auto s = nlohmann::json::parse(read_all(b + "/summary.json"));
      EXPECT_EQ(s["restarted_from"]["step"].get<long long>(), previous_step);
      EXPECT_EQ(s["status"], "finished");
      EXPECT_EQ(s["errors"], summary_a["errors"]);
      EXPECT_EQ(s["energy"], summary_a["energy"]);
      for (const auto& f : texts) EXPECT_EQ(read_all(b + f), read_all(a + f)) << f;
      EXPECT_EQ(h5_datasets(b + "/monitors.h5"), h5_datasets(a + "/monitors.h5"));
    }
  EXPECT_GE(flips, 40);
  EXPECT_EQ(fallbacks + refusals, flips);
  // with the previous checkpoint intact, every flip falls back
  EXPECT_EQ(fallbacks, flips);
  std::printf("%d bit flips in %zu items: %d fallbacks, %d refusals\n", flips, items.size(), fallbacks, refusals);
}

// Both checkpoints damaged: a refusal, exit 1, naming both, recorded in run.json and summary.json
// with printable text only (a damaged progress record's bytes are not echoed).
TEST_F(CheckpointCorruption, NoIntactCheckpointIsARecordedRefusal) {
  const std::string a = dir_ + "/a";
  ASSERT_EQ(run_dgmax("run -q " + config_ + " --output " + a).code, 0);
  for (const auto& e : fs::directory_iterator(a)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint_", 0) != 0) continue;
    // a byte of the progress record made invalid UTF-8 and a terminal escape
    const auto items = dgmax::test::locate_checkpoint_items(e.path().string(), dir_ + "/scratch.h5");
    const auto it = std::find_if(items.begin(), items.end(), [](const auto& i) { return i.item == "/progress"; });
    ASSERT_NE(it, items.end());
    std::string bytes = dgmax::test::file_bytes(e.path().string());
    bytes[it->offset(2)] = '\xff';
    bytes[it->offset(3)] = '\x1b';
    dgmax::test::put_file_bytes(e.path().string(), bytes);
  }
  const CliResult r = run_dgmax("run -q " + config_ + " --restart " + a);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("no valid checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'/progress' does not match its digest"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.err.find('\xff'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_all(a + "/run.json"))["state"], "failed");
  const auto s = nlohmann::json::parse(read_all(a + "/summary.json"));
  EXPECT_EQ(s["status"], "failed");
  EXPECT_NE(s["error"].get<std::string>().find("no valid checkpoint"), std::string::npos);
}

// /progress of checkpoint `path` replaced by `text`, its digest too: a well-formed file whose
// progress record is altered (as a writer's bug or a hand edit would leave it).
void rewrite_progress(const std::string& path, const std::string& text) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  H5Ldelete(f, "progress", H5P_DEFAULT);
  const hsize_t n = text.size();
  const hid_t sp = H5Screate_simple(1, &n, nullptr);
  const hid_t d = H5Dcreate2(f, "progress", H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
  H5Dclose(d);
  H5Sclose(sp);
  const hid_t a = H5Aopen(f, "digests", H5P_DEFAULT), t = H5Aget_type(a);
  char* s = nullptr;
  H5Aread(a, t, &s);
  std::string list = s;
  H5free_memory(s);
  dgmax::CheckpointDigests line;
  line.add("/progress", "u1[" + std::to_string(n) + "]", text.data(), text.size());
  const auto at = list.find("/progress ");
  list.replace(at, list.find('\n', at) + 1 - at, line.text());
  const char* c = list.c_str();
  H5Awrite(a, t, &c);
  H5Tclose(t);
  H5Aclose(a);
  H5Fclose(f);
}

// A progress record that does not hold together is a damaged checkpoint, not another run's: the
// previous checkpoint is taken with a warning saying what failed, and the run ends as the
// uninterrupted one did.
TEST_F(CheckpointCorruption, AnInconsistentProgressRecordFallsBack) {
  const std::string a = dir_ + "/a";
  ASSERT_EQ(run_dgmax("run -q " + config_ + " --output " + a).code, 0);
  std::vector<std::string> checkpoints;
  for (const auto& e : fs::directory_iterator(a))
    if (e.path().filename().string().rfind("checkpoint_", 0) == 0) checkpoints.push_back(e.path().filename().string());
  std::sort(checkpoints.begin(), checkpoints.end());
  ASSERT_EQ(checkpoints.size(), 2u);
  const std::string energy = read_all(a + "/energy.csv");
  nlohmann::json good;
  {
    const hid_t f = H5Fopen((a + "/" + checkpoints[1]).c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "progress", H5P_DEFAULT), sp = H5Dget_space(d);
    std::string text(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)), '\0');
    H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
    good = nlohmann::json::parse(text);
  }
  auto with = [&](const char* key, const nlohmann::json& v) {
    nlohmann::json j = good;
    j[key] = v;
    return j.dump();
  };
  std::string csv = good["csv"].get<std::string>();
  const std::string ragged = csv.substr(0, csv.size() - 1) + ",1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"csv\": \"step,t", "its progress record"},
      {with("next_snapshot", -1), "next snapshot index -1"},
      {with("csv", ragged), "6 fields where the header has 5"},
      {with("samples", good["samples"].get<long long>() + 1), "samples"},
      {with("guard", {1, 2}), "energy guard"}};
  for (const auto& [text, what] : cases) {
    SCOPED_TRACE(what);
    const std::string b = dir_ + "/b";
    fs::remove_all(b);
    fs::copy(a, b, fs::copy_options::recursive);
    fs::remove(b + "/energy.csv");
    rewrite_progress(b + "/" + checkpoints[1], text);
    const CliResult r = run_dgmax("run -q " + config_ + " --restart " + b);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: cannot use checkpoint '" + b + "/" + checkpoints[1] + "': its progress record"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_EQ(read_all(b + "/energy.csv"), energy);
  }
}

}  // namespace
