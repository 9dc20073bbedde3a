// Runs on several MPI ranks (mpirun, cpu backend) against the same run on one rank. Every element's
// right-hand side reads the same numbers whichever rank computes it (the ghosts' face traces are
// the neighbours' values, bit for bit), so the fields are identical and only the order of the
// sums over ranks differs: energies and L2 errors agree to rounding, maxima exactly.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "curved_msh.hpp"
#include "mpi_runs.hpp"
#include "regression_run.hpp"
#include "same_outputs.hpp"
#include "solver/io/checkpoint.hpp"
#include "solver/io/checkpoint_piece.hpp"
#include "solver/mesh/box.hpp"
#include "solver/mesh/curved_warp.hpp"

#if DGMAX_HAS_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#endif

namespace dgmax::test {
namespace {

class MpiRanks : public ::testing::TestWithParam<int> {};

TEST_P(MpiRanks, CavityEqualsOneRank) {
  const int P = GetParam();
  REQUIRE_LAUNCHER(mpi, P);
  const std::vector<std::string> sets = {"mesh.box.cells=[3,3,3]", "discretization.order=3", "backend=cpu"};
  const ConfigRun one = run_config("cavity", sets);
  const ConfigRun many = run_config("cavity", sets, false, mpi);
  expect_same_run(one, many, P, true);
  EXPECT_EQ(many.summary["partition"]["elements"].size(), static_cast<size_t>(P));
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiRanks, ::testing::Values(2, 3, 4));

// The unit cube in 3^3 cells warped inside, its faces kept (so the cavity's mode holds), every
// element curved of order 2, as a .msh file in the test's temporary directory: its path.
std::string warped_cavity_msh() {
  BoxSpec spec;
  spec.cells = {3, 3, 3};
  Mesh mesh = make_box_mesh(spec);
  warp_mesh(mesh, 2, box_warp(spec.lower, spec.upper, 0.1));
  static int counter = 0;
  const std::string path =
      ::testing::TempDir() + "dgmax_warped_cavity_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".msh";
  write_curved_msh(mesh, path);
  return path;
}

// Curved elements on the ref and cpu backends: each rank computes its owned elements from its ghosts' face
// traces, the faces' quadrature laid out by the vertices' global order on every rank, so the
// fields are the one-rank fields and the energies and errors agree to rounding.
TEST(MpiRanksCurved, WarpedCavityEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 2);
  const std::string mesh = warped_cavity_msh();
  for (const char* backend : {"ref", "cpu"}) {
    SCOPED_TRACE(backend);
    const std::vector<std::string> sets = {"mesh={file: " + mesh + "}", std::string("backend=") + backend,
                                           "discretization.order=2", "time.final=0.3"};
    const ConfigRun one = run_config("cavity", sets);
    const ConfigRun many = run_config("cavity", sets, false, mpi);
    expect_same_run(one, many, 2, true);
    EXPECT_LT(one.err_L2("E"), 0.02) << "the cavity's mode on the curved elements";
  }
  std::filesystem::remove(mesh);
}

// The target of curved elements: a curved object (a warp confined to a ball) in an open domain,
// the layer and the TF/SF box straight-sided around it, a surface monitor on the box's faces and a
// volume monitor over the whole mesh, probes in the curved elements, on 2 ranks as on one.
TEST(MpiRanksCurved, CurvedObjectInALayerWithTheTfsfBoxAndMonitorsEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 2);
  BoxSpec spec;
  spec.lower = {-0.875, -0.875, -0.875};  // 7^3 cells of 0.25: the layer, a cell, the box, a cell, the layer
  spec.upper = {0.875, 0.875, 0.875};
  spec.cells = {7, 7, 7};
  Mesh ball = make_box_mesh(spec);
  warp_mesh(ball, 2, ball_warp({0, 0, 0}, 0.17, 0.12));
  const std::string mesh = ::testing::TempDir() + "dgmax_curved_ball_" + std::to_string(::getpid()) + ".msh";
  write_curved_msh(ball, mesh);
  double ref_peak = 0;  // the cpu backend's curved group gives the ref backend's run
  for (const char* backend : {"ref", "cpu"}) {
    SCOPED_TRACE(backend);
    const std::vector<std::string> sets = {
        "mesh={file: " + mesh + "}", std::string("backend=") + backend, "discretization.order=2", "time.final=0.8",
        "pml={thickness: 0.25}", "initial={E: [\"0\", \"0\", \"0\"], H: [\"0\", \"0\", \"0\"]}",
        "incident={E: [\"0\", \"exp(-((x - t + 0.8)/0.3)^2)\", \"0\"], H: [\"0\", \"0\", \"exp(-((x - t + 0.8)/0.3)^2)\"]}",
        "tfsf={box: {lower: [-0.375, -0.375, -0.375], upper: [0.375, 0.375, 0.375]}}",
        "probes={every: 0.05, points: [{name: ball, at: [0.05, 0.02, -0.03]}, {name: outside, at: [0.1, 0.1, 0.45]}]}",
        "monitors=[{name: box, surface: {box: {lower: [-0.375, -0.375, -0.375], upper: [0.375, 0.375, 0.375]}}, "
        "frequencies: [1.0]}, {name: all, volume: domain, frequencies: [1.0]}]"};
    const ConfigRun one = run_config("pulse_absorbing", sets, true);
    const ConfigRun many = run_config("pulse_absorbing", sets, true, mpi);
    expect_same_run(one, many, 2, false);
    EXPECT_GT(one.energy_peak().energy, 0.01) << "the pulse entered the box";
    if (ref_peak == 0) ref_peak = one.energy_peak().energy;
    EXPECT_NEAR(one.energy_peak().energy, ref_peak, 1e-11 * ref_peak);
    const std::string probes = read_all(one.dir + "/probes.csv");
    EXPECT_GT(probes.size(), 500u);
    EXPECT_EQ(read_all(many.dir + "/probes.csv"), probes);
    expect_same_monitors(one.dir + "/monitors.h5", many.dir + "/monitors.h5", {"box", "all"}, 1e-12);
    std::filesystem::remove_all(one.dir);
    std::filesystem::remove_all(many.dir);
  }
  std::filesystem::remove(mesh);
}

// Two ranks that have no neighbour (a mesh of two pieces, one a rank): nothing is exchanged, and
// the run is the one-rank run and each piece the one-cube run.
TEST(MpiRanksPieces, TwoCubesOnTwoRanksExchangeNothing) {
  REQUIRE_LAUNCHER(mpi, 2);
  expect_two_pieces_on_ranks({"backend=cpu"}, mpi, 2);
}
TEST(MpiRanksPieces, TwoCubesOnTwoRanksInSinglePrecision) {
  REQUIRE_LAUNCHER(mpi, 2);
  expect_two_pieces_on_ranks({"backend=cpu", "discretization.precision=single"}, mpi, 2, false);
}

// The config's `partition` picks the method (summary.json says which), and every method gives the
// one-rank run.
TEST(MpiRanksPartition, EachMethodEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 3);
  const std::vector<std::string> sets = {"mesh.box.cells=[3,3,3]", "discretization.order=2", "backend=cpu"};
  const ConfigRun one = run_config("cavity", sets);
  std::vector<std::string> methods = {"rcb", "sfc"};
  if (DGMAX_HAS_METIS) methods.push_back("metis");
  for (const std::string& m : methods) {
    SCOPED_TRACE(m);
    std::vector<std::string> with = sets;
    with.push_back("partition=" + m);
    const ConfigRun many = run_config("cavity", with, false, mpi);
    expect_same_run(one, many, 3, true);
    EXPECT_EQ(many.summary["partition"]["method"], m);
  }
}

// A current source (evaluated in the generated kernels at each rank's own nodes) and the energy
// guard's source budget, reduced over ranks.
TEST(MpiRanksSources, ManufacturedCurrentEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 3);
  const std::vector<std::string> sets = {"backend=cpu", "time.final=0.3"};
  const ConfigRun one = run_config("manufactured_current", sets);
  const ConfigRun many = run_config("manufactured_current", sets, false, mpi);
  expect_same_run(one, many, 3, true);
}

// Two materials: a partition cuts through the interface.
TEST(MpiRanksSources, DielectricInterfaceSinglePrecisionEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 2);
  const std::vector<std::string> sets = {"backend=cpu", "discretization.precision=single", "time.final=0.3"};
  const ConfigRun one = run_config("dielectric_interface", sets);
  const ConfigRun many = run_config("dielectric_interface", sets, false, mpi);
  expect_same_run(one, many, 2, false);
}

// Probes: each rank samples the elements it owns that hold a point and the means are summed in
// the one-rank order, so the probe log is the one-rank log character for character (points inside
// an element, on the edge of 6 elements split 4 / 2 between two ranks, at a vertex of 24 split
// 12 / 12).
TEST(MpiRanksSources, ProbesEqualOneRank) {
  REQUIRE_LAUNCHER(mpi, 3);
  const std::vector<std::string> sets = {
      "mesh.box.cells=[3,3,3]", "discretization.order=3", "backend=cpu",
      "probes={every: 0.2, points: [{name: a, at: [0.3, 0.4, 0.55]}, {name: face, at: [0.5, 0.5, 0.5]}, "
      "{name: vertex, at: [0.6666666666666666, 0.3333333333333333, 0.3333333333333333]}]}"};
  const ConfigRun one = run_config("cavity", sets, true);
  const ConfigRun many = run_config("cavity", sets, true, mpi);
  ASSERT_EQ(one.code, 0);
  ASSERT_EQ(many.code, 0) << many.err;
  const std::string a = read_all(one.dir + "/probes.csv"), b = read_all(many.dir + "/probes.csv");
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, b);
  std::filesystem::remove_all(one.dir);
  std::filesystem::remove_all(many.dir);
}

// configs/dipole_pml.yaml made small: [-0.4, 0.4]^3 in 4^3 cells inside a one-cell layer (1,296
// elements, 912 in the layer), N = 2, to t = 1.5 (123 steps); probes inside the domain, on the
// layer's inner face, in the layer and in its corner; a surface monitor (with its far field) and a
// volume monitor over the domain.
const std::vector<std::string> kDipolePmlSets = {
    "backend=cpu", "mesh.box={lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4], cells: [4, 4, 4], pml: 0.2}",
    "time.final=1.5",
    "probes={every: 0.05, points: [{name: inside, at: [0.1, 0.2, 0.3]}, {name: face, at: [0.4, 0, 0]}, "
    "{name: layer, at: [0, 0, 0.5]}, {name: corner, at: [0.55, -0.55, 0.5]}]}",
    "monitors=[{name: near, surface: {box: {lower: [-0.2, -0.2, -0.2], upper: [0.2, 0.2, 0.2]}}, frequencies: [1.0, 1.5]}, "
    "{name: inner, volume: domain, frequencies: [1.0]}]"};

// The layer is found on the whole mesh (its inner box is not a rank's part's), its elements weigh
// more in the partition, each rank damps its own; the monitors' points are summed by their owners
// and gathered on rank 0, so monitors.h5 and the far field are the one-rank files.
class MpiRanksLayer : public ::testing::TestWithParam<int> {};

TEST_P(MpiRanksLayer, DipoleInAPmlWithProbesAndMonitorsEqualsOneRank) {
  const int P = GetParam();
  REQUIRE_LAUNCHER(mpi, P);
  const ConfigRun one = run_config("dipole_pml", kDipolePmlSets, true);
  const ConfigRun many = run_config("dipole_pml", kDipolePmlSets, true, mpi);
  expect_same_run(one, many, P, false);
  EXPECT_TRUE(many.summary["partition"]["weighted"].get<bool>()) << "the layer's elements weigh more";
  EXPECT_GT(one.energy_peak().energy, 0);
  const std::string probes = read_all(one.dir + "/probes.csv");
  EXPECT_GT(probes.size(), 1000u);
  EXPECT_EQ(read_all(many.dir + "/probes.csv"), probes);
  expect_same_monitors(one.dir + "/monitors.h5", many.dir + "/monitors.h5", {"near", "inner"}, 1e-12);
  expect_same_csv(one.dir + "/far_field_near.csv", many.dir + "/far_field_near.csv", 1e-12);
  std::filesystem::remove_all(one.dir);
  std::filesystem::remove_all(many.dir);
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiRanksLayer, ::testing::Values(2, 3));

// A plane-wave pulse through a total-field/scattered-field box with nothing in it, in the same
// small PML box (configs/pulse_absorbing.yaml with its initial pulse off): the box's faces on a
// rank boundary keep their sign on each side; probes inside, on a box face, outside and in the layer.
TEST(MpiRanksSources, TfsfPlaneWaveInAPmlBoxEqualsOneRank) {
  REQUIRE_LAUNCHER(mpi, 3);
  const std::vector<std::string> sets = {
      "backend=cpu", "discretization.order=2", "time.final=1.2",
      "mesh.box={lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4], cells: [4, 4, 4], pml: 0.2}",
      "initial={E: [\"0\", \"0\", \"0\"], H: [\"0\", \"0\", \"0\"]}",
      "incident={E: [\"exp(-((z - t + 0.5)/0.15)^2)\", \"0\", \"0\"], H: [\"0\", \"exp(-((z - t + 0.5)/0.15)^2)\", \"0\"]}",
      "tfsf={box: {lower: [-0.2, -0.2, -0.2], upper: [0.2, 0.2, 0.2]}}",
      "probes={every: 0.05, points: [{name: inside, at: [0.05, 0.1, 0.1]}, {name: face, at: [0.2, 0.1, 0.05]}, "
      "{name: outside, at: [0.1, 0.1, 0.3]}, {name: layer, at: [0, 0, 0.5]}]}"};
  const ConfigRun one = run_config("pulse_absorbing", sets, true);
  const ConfigRun many = run_config("pulse_absorbing", sets, true, mpi);
  expect_same_run(one, many, 3, false);
  EXPECT_GT(one.energy_peak().energy, 0.01) << "the pulse entered the box";
  const std::string probes = read_all(one.dir + "/probes.csv");
  EXPECT_GT(probes.size(), 1000u);
  EXPECT_EQ(read_all(many.dir + "/probes.csv"), probes);
  std::filesystem::remove_all(one.dir);
  std::filesystem::remove_all(many.dir);
}

// Each rank writes its piece; rank 0 writes the .pvtu that lists them and the .pvd that lists those.
TEST(MpiRanksOutput, PiecesAndIndexes) {
  if (!DGMAX_HAS_VTK) GTEST_SKIP() << "this build writes no .vtu (no VTK)";
  REQUIRE_LAUNCHER(mpi, 3);
  const ConfigRun run =
      run_config("cavity", {"mesh.box.cells=[2,2,2]", "discretization.order=2", "backend=cpu", "output.vtk_every=0.5"},
                 true, mpi);
  ASSERT_EQ(run.code, 0) << run.err;
  namespace fs = std::filesystem;
  const std::string pvd = read_all(run.dir + "/fields.pvd");
  int indexes = 0;
  for (int i = 0; fs::exists(run.dir + "/fields_0000" + std::to_string(i) + ".pvtu"); ++i) {
    const std::string name = "fields_0000" + std::to_string(i);
    const std::string pvtu = read_all(run.dir + "/" + name + ".pvtu");
    for (int r = 0; r < 3; ++r) {
      const std::string piece = name + "_p000" + std::to_string(r) + ".vtu";
      EXPECT_NE(pvtu.find("Source=\"" + piece + "\""), std::string::npos) << piece << " not in " << name << ".pvtu";
      EXPECT_TRUE(fs::exists(run.dir + "/" + piece)) << piece;
    }
    EXPECT_NE(pvd.find(name + ".pvtu"), std::string::npos) << name << ".pvtu not in fields.pvd";
    ++indexes;
  }
  EXPECT_EQ(indexes, 4);  // t = 0, 0.5, 1 and the final time sqrt(2)
#if DGMAX_HAS_VTK
  // ParaView's reader joins the pieces: every element once, numbered as in the whole mesh
  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName((run.dir + "/fields_00001.pvtu").c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  const long long K = run.summary["K"].get<long long>();
  ASSERT_EQ(grid->GetNumberOfCells(), K);
  vtkDataArray* ids = grid->GetCellData()->GetArray("element");
  ASSERT_NE(ids, nullptr);
  std::vector<int> seen(static_cast<size_t>(K), 0);
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    const long long id = static_cast<long long>(ids->GetTuple1(c));
    ASSERT_TRUE(id >= 0 && id < K) << id;
    ++seen[static_cast<size_t>(id)];
  }
  for (long long k = 0; k < K; ++k) EXPECT_EQ(seen[static_cast<size_t>(k)], 1) << "element " << k;
#endif
  EXPECT_TRUE(fs::exists(run.dir + "/summary.json"));
  EXPECT_FALSE(fs::exists(run.dir + "/fields_00000.vtu")) << "a partitioned run writes pieces, not whole files";
  fs::remove_all(run.dir);
}

// ---- checkpoints and restarts on ranks --------------------------------------------------------

// A copy of the finished run in `from` as a restart finds it after a crash just before its last
// checkpoint: the newest checkpoint (its record and pieces) and the files a restart writes again
// are gone. Returns the copy's directory.
std::string copy_before_last_checkpoint(const std::string& from, const std::string& tag) {
  namespace fs = std::filesystem;
  const std::string to = from + "_" + tag;
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
  const std::vector<std::string> records = list_checkpoints(to);
  EXPECT_EQ(records.size(), 2u) << "the newest two checkpoints are kept";
  if (records.empty()) return to;
  const std::string newest = fs::path(records.back()).stem().string();  // checkpoint_<step>
  for (const auto& e : fs::directory_iterator(to)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(newest, 0) == 0 || name == "energy.csv" || name == "summary.json" || name == "probes.csv" ||
        name == "monitors.h5" || name.rfind("far_field_", 0) == 0)
      fs::remove(e.path());
  }
  return to;
}

// Energies row by row within rounding (sums over another number of ranks), the same steps.
void expect_same_energies(const ConfigRun& a, const ConfigRun& b, const std::string& what) {
  ASSERT_EQ(a.energy.size(), b.energy.size()) << what;
  for (size_t i = 0; i < a.energy.size(); ++i) {
    EXPECT_EQ(a.energy[i].step, b.energy[i].step) << what;
    EXPECT_EQ(a.energy[i].t, b.energy[i].t) << what;
    EXPECT_PRED_FORMAT3(RelNear, b.energy[i].energy, a.energy[i].energy, 1e-13) << what << ", row " << i;
  }
}

// The launcher for `ranks` (none for one rank).
std::string launcher_or_none(int ranks, std::string* why) { return ranks == 1 ? std::string() : launcher(ranks, why); }

// The cavity on 162 elements at N = 2 (70 steps), a checkpoint every 20 steps and probes.
const std::vector<std::string> kCavityCheckpointSets = {
    "mesh.box.cells=[3,3,3]", "discretization.order=2", "backend=cpu", "output.checkpoint_every=20",
    "probes={every: 0.1, points: [{name: a, at: [0.3, 0.4, 0.55]}, {name: face, at: [0.5, 0.5, 0.5]}]}"};

// Checkpointed on 3 ranks, continued from its older checkpoint on 3, 2 and 1: on 3 the files are
// the uninterrupted run's byte for byte; on 2 and 1 the fields are the same numbers (each element's
// state is read from the piece that holds it), so probes and maxima are exact and energies and L2
// errors agree to rounding, also with the uninterrupted one-rank run.
TEST(MpiRanksRestart, CheckpointedOnThreeContinuesOnThreeTwoAndOne) {
  REQUIRE_LAUNCHER(mpi3, 3);
  const ConfigRun one = run_config("cavity", kCavityCheckpointSets);
  const ConfigRun three = run_config("cavity", kCavityCheckpointSets, true, mpi3);
  ASSERT_EQ(three.code, 0) << three.err;
  for (const std::string& record : list_checkpoints(three.dir)) {
    const Checkpoint c = read_checkpoint(record);
    EXPECT_EQ(c.set.pieces, 3) << record;
    EXPECT_EQ(c.set.partition_hash, three.summary["partition"]["hash"].get<std::string>());
    for (long long r = 0; r < 3; ++r) {
      const CheckpointPiece piece = read_checkpoint_piece(checkpoint_piece_path(three.dir, c.step, r), false);
      EXPECT_EQ(piece.set_id, c.set.set_id);
      EXPECT_EQ(static_cast<long long>(piece.element.size()), c.set.piece_elements[static_cast<size_t>(r)]);
    }
  }
  const std::string probes = read_all(three.dir + "/probes.csv");
  EXPECT_GT(probes.size(), 500u);
  for (const int ranks : {3, 2, 1}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::string why;
    const std::string mpi = launcher_or_none(ranks, &why);
    if (ranks > 1 && mpi.empty()) GTEST_SKIP() << why;
    const std::string dir = copy_before_last_checkpoint(three.dir, "on" + std::to_string(ranks));
    const ConfigRun again = restart_config("cavity", dir, kCavityCheckpointSets, mpi);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.summary["status"], "finished");
    EXPECT_EQ(again.summary["restarted_from"]["step"].get<long long>(), 40);
    EXPECT_EQ(again.summary.value("ranks", 1), ranks);
    EXPECT_EQ(read_all(dir + "/probes.csv"), probes) << "the same fields on any number of ranks";
    expect_same_energies(three, again, "against the uninterrupted run on 3 ranks");
    expect_same_energies(one, again, "against the uninterrupted run on one rank");
    for (const char* f : {"E", "H"}) {
      EXPECT_PRED_FORMAT3(RelNear, again.err_L2(f), one.err_L2(f), 1e-12);
      EXPECT_EQ(again.err_Linf(f), three.err_Linf(f));
    }
    if (ranks == 3) {
      EXPECT_EQ(read_all(dir + "/energy.csv"), read_all(three.dir + "/energy.csv"));
      EXPECT_EQ(again.energy_final(), three.energy_final());
      EXPECT_EQ(again.err_L2("E"), three.err_L2("E"));
    }
    std::filesystem::remove_all(dir);
  }
  std::filesystem::remove_all(three.dir);
}

// The pid of the dgmax process under `ancestor` whose environment says OMPI_COMM_WORLD_RANK=rank,
// or 0 while there is none (Linux: /proc).
pid_t rank_process(pid_t ancestor, int rank) {
  auto parent_of = [](pid_t p) -> pid_t {
    std::istringstream stat(read_all("/proc/" + std::to_string(p) + "/stat"));
    std::string pid, comm, state;
    pid_t ppid = 0;
    stat >> pid >> comm >> state >> ppid;  // comm "(dgmax)" has no space
    return ppid;
  };
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_all(it->path().string() + "/comm") != "dgmax\n") continue;
    std::string environ = read_all(it->path().string() + "/environ");
    std::replace(environ.begin(), environ.end(), '\0', '\n');
    if (("\n" + environ).find("\n" + want + "\n") == std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    for (pid_t p = pid; p > 1; p = parent_of(p))
      if (p == ancestor) return pid;
  }
  return 0;
}

// Starts `mpi` dgmax `args`, finds the process of rank `rank` while the job sets up, and sends it
// SIGTERM within one poll (20 ms) of the job's own marker: the first checkpoint in `dir` (any name:
// every rank is stepping then). Returns the job's exit status and the timeline.
SignalledRun run_and_stop_one_rank(const std::string& mpi, const std::string& args, const std::string& dir, int rank) {
  pid_t target = 0;
  auto checkpointed = [&] {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (const std::string n = it->path().filename().string(); n.rfind("checkpoint_", 0) == 0 && n.ends_with(".h5"))
        return true;
    return false;
  };
  return run_dgmax_until_and_signal(
      mpi, args,
      [&](pid_t job, const std::string&) {
        if (!target) target = rank_process(job, rank);
        return target != 0 && checkpointed();
      },
      0, [&] { ::kill(target, SIGTERM); });
}

// SIGTERM to one rank (not rank 0) stops all at the same step: the run says "interrupted" with the
// exit status of the signal, the checkpoint written on the way out is one set (every piece of that
// step and set), and the restart on 3 ranks ends like the uninterrupted run.
// The signal follows the first checkpoint (step 20) within one 20 ms poll, and 958 of 978 steps
// are left then (at least 3 s of stepping; bench/NOTES.md, "Signal tests: the margin after the
// marker"): the run cannot end first on a loaded machine, which slows the run as the test.
TEST(MpiRanksRestart, StopSignalOnOneRankStopsAllAtOneStep) {
  REQUIRE_LAUNCHER(mpi, 3);
  if (!std::filesystem::exists("/proc/self/environ")) GTEST_SKIP() << "no /proc to find a rank's process";
  std::vector<std::string> sets = kCavityCheckpointSets;
  sets.push_back("time.final=20");  // 978 steps
  const ConfigRun whole = run_config("cavity", sets, true, mpi);
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string dir = whole.dir + "_stopped";
  std::filesystem::remove_all(dir);
  const SignalledRun stop = run_and_stop_one_rank(mpi, config_args("cavity", "--output '" + dir + "'", sets), dir, 1);
  SCOPED_TRACE(stop.describe());
  ASSERT_FALSE(stop.exited_early) << "the run ended before the signal";
  EXPECT_EQ(stop.code, 143) << "the exit status of SIGTERM";
  const auto summary = nlohmann::json::parse(read_all(dir + "/summary.json"));
  ASSERT_EQ(summary["status"], "interrupted") << summary.dump(2);
  const long long stopped = summary["steps_done"].get<long long>();
  RecordProperty("steps_done_at_the_signal", std::to_string(stopped));  // the margin, in the XML report
  ASSERT_LT(stopped, whole.summary["steps"].get<long long>()) << "the run ended before the signal came";
  const Checkpoint last = read_checkpoint(checkpoint_path(dir, stopped));
  EXPECT_EQ(last.set.pieces, 3);
  for (long long r = 0; r < 3; ++r) {
    const CheckpointPiece piece = read_checkpoint_piece(checkpoint_piece_path(dir, stopped, r));
    EXPECT_EQ(piece.step, stopped);
    EXPECT_EQ(piece.set_id, last.set.set_id);
  }
  const ConfigRun again = restart_config("cavity", dir, sets, mpi);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.summary["restarted_from"]["step"].get<long long>(), stopped);
  EXPECT_EQ(again.energy_final(), whole.energy_final());
  for (const char* f : {"E", "H"}) {
    EXPECT_EQ(again.err_L2(f), whole.err_L2(f));
    EXPECT_EQ(again.err_Linf(f), whole.err_Linf(f));
  }
  EXPECT_EQ(read_all(dir + "/probes.csv"), read_all(whole.dir + "/probes.csv"));
  // energy.csv: the uninterrupted run's rows, and the one sampled when the signal came
  std::vector<EnergySample> rows = again.energy;
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const EnergySample& s) {
                              return s.step == stopped && std::none_of(whole.energy.begin(), whole.energy.end(),
                                                                       [&](const EnergySample& w) { return w.step == stopped; });
                            }),
             rows.end());
  ASSERT_EQ(rows.size(), whole.energy.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].step, whole.energy[i].step);
    EXPECT_EQ(rows[i].energy, whole.energy[i].energy) << "row " << i;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(whole.dir);
}

// The layer's auxiliary fields, the probes' log and the DFT monitors' sums go through the
// checkpoint: continued on 2 ranks, every output is the uninterrupted run's byte for byte; on 3,
// the probes exactly and the monitors and far field to rounding.
TEST(MpiRanksRestart, LayerProbesAndMonitorsContinue) {
  REQUIRE_LAUNCHER(mpi2, 2);
  REQUIRE_LAUNCHER(mpi3, 3);
  std::vector<std::string> sets = kDipolePmlSets;
  sets.push_back("output.checkpoint_every=40");
  const ConfigRun two = run_config("dipole_pml", sets, true, mpi2);
  ASSERT_EQ(two.code, 0) << two.err;
  const std::string far = read_all(two.dir + "/far_field_near.csv");
  EXPECT_GT(far.size(), 1000u);
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string dir = copy_before_last_checkpoint(two.dir, "on" + std::to_string(ranks));
    const ConfigRun again = restart_config("dipole_pml", dir, sets, ranks == 2 ? mpi2 : mpi3);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.summary["restarted_from"]["step"].get<long long>(), 80);
    EXPECT_EQ(read_all(dir + "/probes.csv"), read_all(two.dir + "/probes.csv"));
    expect_same_energies(two, again, "against the uninterrupted run on 2 ranks");
    if (ranks == 2) {
      EXPECT_EQ(read_all(dir + "/energy.csv"), read_all(two.dir + "/energy.csv"));
      EXPECT_EQ(read_all(dir + "/far_field_near.csv"), far);
      expect_same_monitors(two.dir + "/monitors.h5", dir + "/monitors.h5", {"near", "inner"}, 0);
    } else {
      expect_same_csv(two.dir + "/far_field_near.csv", dir + "/far_field_near.csv", 1e-12);
      expect_same_monitors(two.dir + "/monitors.h5", dir + "/monitors.h5", {"near", "inner"}, 1e-12);
    }
    std::filesystem::remove_all(dir);
  }
  std::filesystem::remove_all(two.dir);
}

// A one-rank checkpoint (the whole state in global order) continued on 2 ranks: each takes its
// elements and its layer elements' auxiliary fields out of the one file.
TEST(MpiRanksRestart, OneRankCheckpointContinuesOnTwo) {
  REQUIRE_LAUNCHER(mpi, 2);
  std::vector<std::string> sets = kDipolePmlSets;
  sets.push_back("output.checkpoint_every=40");
  const ConfigRun one = run_config("dipole_pml", sets, true);
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string dir = copy_before_last_checkpoint(one.dir, "on2");
  const ConfigRun again = restart_config("dipole_pml", dir, sets, mpi);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.summary["restarted_from"]["step"].get<long long>(), 80);
  EXPECT_EQ(again.summary["ranks"].get<int>(), 2);
  EXPECT_EQ(read_all(dir + "/probes.csv"), read_all(one.dir + "/probes.csv"));
  expect_same_energies(one, again, "against the uninterrupted run on one rank");
  expect_same_monitors(one.dir + "/monitors.h5", dir + "/monitors.h5", {"near", "inner"}, 1e-12);
  expect_same_csv(one.dir + "/far_field_near.csv", dir + "/far_field_near.csv", 1e-12);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(one.dir);
}

// A set with a piece missing (a crash between the pieces, a lost file) is skipped, with one
// warning, for the complete set before it; with none complete, the restart fails with one message
// and leaves the checkpoints as they were.
TEST(MpiRanksRestart, IncompleteSetIsSkippedForTheCompleteOne) {
  REQUIRE_LAUNCHER(mpi, 3);
  namespace fs = std::filesystem;
  const ConfigRun three = run_config("cavity", kCavityCheckpointSets, true, mpi);
  ASSERT_EQ(three.code, 0) << three.err;
  const std::string dir = three.dir + "_incomplete";
  fs::remove_all(dir);
  fs::copy(three.dir, dir, fs::copy_options::recursive);
  const std::string lost = checkpoint_piece_path(dir, 60, 2);
  ASSERT_TRUE(fs::remove(lost));
  for (const char* f : {"/energy.csv", "/summary.json", "/probes.csv"}) fs::remove(dir + f);
  const ConfigRun again = restart_config("cavity", dir, kCavityCheckpointSets, mpi);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.summary["restarted_from"]["step"].get<long long>(), 40);
  const std::string warning = "warning: cannot read checkpoint '" + lost + "': no such file (the checkpoint set is incomplete); trying the previous checkpoint";
  const size_t first = again.err.find(warning);
  EXPECT_NE(first, std::string::npos) << again.err;
  EXPECT_EQ(again.err.find(warning, first + 1), std::string::npos) << "said more than once:\n" << again.err;
  EXPECT_EQ(read_all(dir + "/energy.csv"), read_all(three.dir + "/energy.csv"));
  // the restart wrote step 60 again, complete; now break both sets
  ASSERT_TRUE(fs::exists(lost));
  fs::remove(checkpoint_piece_path(dir, 40, 0));
  fs::remove(checkpoint_piece_path(dir, 60, 1));
  std::vector<std::string> before;
  for (const auto& e : fs::directory_iterator(dir)) before.push_back(e.path().filename().string());
  std::sort(before.begin(), before.end());
  const CliResult r = run_dgmax_env(mpi, config_args("cavity", "--restart '" + dir + "'", kCavityCheckpointSets));
  EXPECT_TRUE(r.code != 0 && r.code != 124) << "exit " << r.code << "\n" << r.err;
  const std::string msg = "cannot restart: no valid checkpoint in '" + dir + "'";
  const size_t at = r.err.find(msg);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(msg, at + 1), std::string::npos) << "said more than once:\n" << r.err;
  std::vector<std::string> after;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "summary.json") after.push_back(e.path().filename().string());
  std::sort(after.begin(), after.end());
  before.erase(std::remove(before.begin(), before.end(), "summary.json"), before.end());
  EXPECT_EQ(after, before) << "a failed restart leaves the checkpoints alone";
  fs::remove_all(dir);
  fs::remove_all(three.dir);
}

// What is checked on the whole mesh fails on several ranks as on one: the same message, said once,
// a nonzero exit, and the output directory left alone.
TEST(MpiRanksErrors, WholeMeshChecksGiveTheOneRankMessageOnce) {
  REQUIRE_LAUNCHER(mpi2, 2);
  REQUIRE_LAUNCHER(mpi3, 3);
  const std::string layer_box = " --set 'mesh.box={lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4], cells: [4, 4, 4], pml: 0.2}'";
  const std::string incident =
      " --set 'incident={E: [\"sin(z - t)\", \"0\", \"0\"], H: [\"0\", \"sin(z - t)\", \"0\"]}'";
  struct Case {
    std::string what, launcher, sets;
  };
  const std::vector<Case> cases = {
      // h = 1/3: a thickness of 0.3 cuts through the outer cells
      {"a pml that is not a layer", mpi2, " --set 'pml={thickness: 0.3}'"},
      {"a tfsf box that touches the layer", mpi3,
       layer_box + incident + " --set 'tfsf={box: {lower: [-0.4, -0.2, -0.2], upper: [0.2, 0.2, 0.2]}}'"},
      {"a monitor box off the mesh faces", mpi2,
       " --set 'monitors=[{name: m, surface: {box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5]}}, frequencies: [1]}]'"}};
  for (const Case& c : cases) {
    const std::string dir = ::testing::TempDir() + "dgmax_mpi_whole_" + std::to_string(::getpid());
    const std::string args =
        "run '" + config_path("pulse_absorbing") + "' --output '" + dir + "' -q --set backend=cpu" + c.sets;
    const CliResult one = run_dgmax(args);
    ASSERT_EQ(one.code, 1) << c.what << "\n" << one.err;
    const size_t eol = one.err.find('\n', one.err.find("error: "));
    const std::string msg = one.err.substr(0, eol);  // "--set ...: error: ..." up to its hint
    ASSERT_NE(msg.find("error: "), std::string::npos) << one.err;
    const CliResult many = run_dgmax_env(c.launcher, args);
    EXPECT_TRUE(many.code != 0 && many.code != 124) << c.what << ": exit " << many.code << "\n" << many.err;
    const size_t first = many.err.find(msg);
    ASSERT_NE(first, std::string::npos) << c.what << ": expected\n" << msg << "\ngot\n" << many.err;
    EXPECT_EQ(many.err.find(msg, first + 1), std::string::npos) << c.what << ": said more than once:\n" << many.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/run.json")) << c.what << ": refused before the directory was claimed";
    std::filesystem::remove_all(dir);
  }
}

// An error every rank meets is said by rank 0 alone, however late rank 0 comes to it: here rank 0
// reads its config (the same relative path, in a directory of its own) from a pipe that is filled
// 2 s after rank 1 has met the error (a loaded machine can hold a rank back as long), for a config
// error and for a whole-mesh error. The ranks agree on who speaks after the phase
// (solver/parallel/agree.hpp) instead of trusting that rank 0 speaks first.
TEST(MpiRanksErrors, ALateRankZeroStillSaysTheErrorAlone) {
  REQUIRE_LAUNCHER(mpi2, 2);
  namespace fs = std::filesystem;
  const std::string base = ::testing::TempDir() + "dgmax_mpi_late_" + std::to_string(::getpid());
  fs::remove_all(base);
  fs::create_directories(base + "/late");
  fs::create_directories(base + "/prompt");
  fs::copy_file(config_path("pulse_absorbing"), base + "/prompt/case.yaml");
  ASSERT_EQ(::mkfifo((base + "/late/case.yaml").c_str(), 0600), 0);
  const std::string late_root =
      mpi2 + "sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 0 ]; then cd \"" + base +
      "/late\"; (sleep 2; cat ../prompt/case.yaml > case.yaml) & else cd \"" + base +
      "/prompt\"; fi; exec \"$0\" \"$@\"' ";
  const std::string out = base + "/out";
  for (const std::string& sets : {std::string(" --set 'time.finall=1'"), std::string(" --set 'pml={thickness: 0.3}'")}) {
    SCOPED_TRACE(sets);
    const std::string args = "run case.yaml --output '" + out + "' -q --set backend=cpu" + sets;
    const CliResult one = run_dgmax_env("cd '" + base + "/prompt' && ", args);
    ASSERT_EQ(one.code, 1) << one.err;
    const std::string msg = one.err.substr(0, one.err.find('\n', one.err.find("error: ")));
    const CliResult many = run_dgmax_env(late_root, args);
    EXPECT_TRUE(many.code != 0 && many.code != 124) << "exit " << many.code << "\n" << many.err;
    const size_t first = many.err.find(msg);
    ASSERT_NE(first, std::string::npos) << "expected\n" << msg << "\ngot\n" << many.err;
    EXPECT_EQ(many.err.find(msg, first + 1), std::string::npos) << "said more than once:\n" << many.err;
    EXPECT_EQ(many.err.find("[rank "), std::string::npos) << "said by another rank than 0:\n" << many.err;
    EXPECT_FALSE(fs::exists(out + "/run.json"));
  }
  fs::remove_all(base);
}

// More ranks than elements: every rank would need one; refused with the counts, once.
TEST(MpiRanksErrors, MoreRanksThanElements) {
  REQUIRE_LAUNCHER(mpi, 7);
  const std::string dir = ::testing::TempDir() + "dgmax_mpi_small_" + std::to_string(::getpid());
  const CliResult r = run_dgmax_env(mpi, "run '" + config_path("cavity") + "' --output '" + dir +
                                             "' -q --set backend=cpu --set 'mesh.box.cells=[1,1,1]'");
  EXPECT_TRUE(r.code != 0 && r.code != 124) << "exit " << r.code << "\n" << r.err;
  const std::string msg = "the run has 7 ranks but the mesh only 6 elements";
  const size_t first = r.err.find(msg);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(msg, first + 1), std::string::npos) << "said more than once:\n" << r.err;
  std::filesystem::remove_all(dir);
}

// An error only some ranks meet (here: the initial field is NaN at nodes with x > 0.95, which lie in
// the elements of the ranks that own the x = 1 side) still ends every rank, with one message.
TEST(MpiRanksErrors, ErrorOnSomeRanksEndsAllWithOneMessage) {
  REQUIRE_LAUNCHER(mpi, 3);
  const std::string dir = ::testing::TempDir() + "dgmax_mpi_nan_" + std::to_string(::getpid());
  const CliResult r = run_dgmax_env(mpi, "run '" + config_path("cavity") + "' --output '" + dir +
                                             "' -q --set backend=cpu --set 'mesh.box.cells=[3,3,3]' --set "
                                             "discretization.order=2 --set 'initial.E=[\"0\", \"0\", \"sqrt(0.95 - x)\"]'");
  EXPECT_EQ(r.code != 0 && r.code != 124, true) << "exit " << r.code << "\n" << r.err;
  const std::string msg = "is NaN at";
  const size_t first = r.err.find(msg);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(msg, first + 1), std::string::npos) << "said more than once:\n" << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dgmax::test
