// Runs on several MPI ranks (mpirun, cpu backend) against the same run on one rank. Every element's
// right-hand side reads the same numbers whichever rank computes it (the ghosts' face traces are
// the neighbours' values, bit for bit), so the fields are identical and only the order of the
// sums over ranks differs: energies and L2 errors agree to rounding, maxima exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "regression_run.hpp"

#if DGMAX_HAS_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#endif

namespace dgmax::test {
namespace {

// "mpirun -np P ..." with what containers and CI need (root, more ranks than cores), or "" with a
// reason when this build or machine cannot start ranks.
std::string launcher(int ranks, std::string* why) {
  if (!DGMAX_HAS_MPI) {
    *why = "this build has no MPI";
    return "";
  }
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    *why = "mpirun is not installed";
    return "";
  }
  std::string s = "timeout 300 mpirun -np " + std::to_string(ranks) + " --oversubscribe ";
  if (::geteuid() == 0) s += "--allow-run-as-root ";
  // shared memory only: the ranks are on this machine
  return "OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none " + s;
}

#define REQUIRE_LAUNCHER(var, ranks)        \
  std::string why_##var;                   \
  const std::string var = launcher(ranks, &why_##var); \
  if (var.empty()) GTEST_SKIP() << why_##var

void expect_same_run(const ConfigRun& one, const ConfigRun& many, int ranks, bool exact_errors) {
  ASSERT_EQ(one.code, 0);
  ASSERT_EQ(many.code, 0) << many.err;
  EXPECT_EQ(many.summary["ranks"].get<int>(), ranks);
  EXPECT_EQ(many.summary["K"], one.summary["K"]);
  EXPECT_EQ(many.summary["steps"], one.summary["steps"]);
  EXPECT_EQ(many.summary["dt"].get<double>(), one.summary["dt"].get<double>());  // min over ranks: exact
  ASSERT_EQ(many.energy.size(), one.energy.size());
  double worst = 0;
  for (size_t i = 0; i < one.energy.size(); ++i) {
    EXPECT_EQ(many.energy[i].step, one.energy[i].step);
    worst = std::max(worst, std::abs(many.energy[i].energy - one.energy[i].energy) / std::abs(one.energy[i].energy));
  }
  EXPECT_LE(worst, 1e-13) << "energy on " << ranks << " ranks against one rank";
  if (exact_errors) {
    for (const char* f : {"E", "H"}) {
      EXPECT_PRED_FORMAT3(RelNear, many.err_L2(f), one.err_L2(f), 1e-12);
      EXPECT_EQ(many.err_Linf(f), one.err_Linf(f)) << "the largest nodal error is the same node's on any rank";
    }
  }
}

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

// Probes: each point is sampled by the rank that owns the element one rank would pick, so the
// probe log is the one-rank log character for character (points inside an element, on a face
// between elements, at a mesh vertex).
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

// What a partitioned run cannot do yet is refused once, clearly, on every rank, with no hang.
TEST(MpiRanksErrors, UnsupportedFeatureIsOneMessageAndNonzeroExit) {
  REQUIRE_LAUNCHER(mpi, 2);
  const std::string dir = ::testing::TempDir() + "dgmax_mpi_refused_" + std::to_string(::getpid());
  const CliResult r = run_dgmax_env(mpi, "run '" + config_path("dipole_pml") + "' --output '" + dir + "' -q");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, 124) << "timed out: the ranks hung";
  const std::string msg = "does not run on several ranks yet";
  const size_t first = r.err.find(msg);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(msg, first + 1), std::string::npos) << "said more than once:\n" << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/run.json")) << "refused before the directory was claimed";
  std::filesystem::remove_all(dir);
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
