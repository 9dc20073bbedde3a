// High-order VTU output: VTK's Lagrange tetrahedron point order, and that VTK itself reads the
// written cells back as the DG solution (values at the points and VTK's own interpolation inside
// the cells reproduce a degree-N polynomial exactly).
#include <gtest/gtest.h>
#include <vtkCell.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkGenericCell.h>
#include <vtkHigherOrderTetra.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkStringArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <set>
#include <sstream>

#include "dgmax/config.hpp"
#include "hdf5_check.hpp"
#include "io_test_util.hpp"
#include "solver/io/snapshot_writer.hpp"
#include "solver/io/vtk_writer.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::string& path) {
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  EXPECT_EQ(reader->GetErrorCode(), 0u) << path;
  vtkSmartPointer<vtkUnstructuredGrid> g = reader->GetOutput();
  return g;
}

double rel_err(double got, double want) { return std::abs(got - want) / (1.0 + std::abs(want)); }

// Checks a written VTU against the fixture: structure, points, values at the points, and VTK's
// interpolation inside every cell (forward: EvaluateLocation at parametric points; inverse:
// EvaluatePosition at physical points, which is what probing does).
void check_vtu(const std::string& path, const IoFixture& fx, double time) {
  const Mesh& mesh = fx.md.mesh;
  const int K = mesh.num_elements(), Np = fx.ref->Np, N = fx.ref->N;
  auto g = read_vtu(path);
  ASSERT_EQ(g->GetNumberOfCells(), K);
  ASSERT_EQ(g->GetNumberOfPoints(), static_cast<vtkIdType>(K) * Np);
  for (vtkIdType c = 0; c < K; ++c) ASSERT_EQ(g->GetCellType(c), VTK_LAGRANGE_TETRAHEDRON);
  EXPECT_EQ(VTK_LAGRANGE_TETRAHEDRON, 71);

  vtkDataArray* E = g->GetPointData()->GetArray("E");
  vtkDataArray* H = g->GetPointData()->GetArray("H");
  vtkDataArray* Em = g->GetPointData()->GetArray("|E|");
  vtkDataArray* tag = g->GetCellData()->GetArray("volume_tag");
  vtkDataArray* id = g->GetCellData()->GetArray("element");
  ASSERT_TRUE(E && H && Em && tag && id);
  ASSERT_EQ(E->GetNumberOfComponents(), 3);
  ASSERT_EQ(H->GetNumberOfComponents(), 3);
  vtkDataArray* tv = g->GetFieldData()->GetArray("TimeValue");
  ASSERT_TRUE(tv);
  EXPECT_EQ(tv->GetComponent(0, 0), time);
  auto* names = vtkStringArray::SafeDownCast(g->GetFieldData()->GetAbstractArray("volume_tag_names"));
  ASSERT_TRUE(names);
  ASSERT_EQ(names->GetNumberOfValues(), static_cast<vtkIdType>(mesh.volume_tag_names.size()));
  EXPECT_EQ(names->GetValue(0), mesh.volume_tag_names[0]);

  const auto lattice = vtk_lagrange_tet_lattice(N);
  double worst_pt = 0, worst_val = 0, worst_interp = 0, worst_probe = 0;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  vtkNew<vtkGenericCell> cell;
  std::vector<double> weights(Np);
  for (int k = 0; k < K; ++k) {
    EXPECT_EQ(tag->GetComponent(k, 0), mesh.element_tag[k]);
    EXPECT_EQ(id->GetComponent(k, 0), k);
    // Points and the values VTK reports there.
    for (int p = 0; p < Np; ++p) {
      const vtkIdType i = static_cast<vtkIdType>(k) * Np + p;
      double x[3];
      g->GetPoint(i, x);
      const Vec3 want = map_to_physical(mesh, k, -1.0 + 2.0 * lattice[p][1] / N,
                                        -1.0 + 2.0 * lattice[p][2] / N,
                                        -1.0 + 2.0 * lattice[p][3] / N);
      for (int d = 0; d < 3; ++d) worst_pt = std::max(worst_pt, std::abs(x[d] - want[d]));
      double e2 = 0;
      for (int d = 0; d < 3; ++d) {
        const double fe = fx.f(Ex + d, x[0], x[1], x[2]), fh = fx.f(Hx + d, x[0], x[1], x[2]);
        worst_val = std::max(worst_val, rel_err(E->GetComponent(i, d), fe));
        worst_val = std::max(worst_val, rel_err(H->GetComponent(i, d), fh));
        e2 += fe * fe;
      }
      worst_val = std::max(worst_val, rel_err(Em->GetComponent(i, 0), std::sqrt(e2)));
    }
    // VTK's interpolation at random parametric points of the cell.
    g->GetCell(k, cell);
    ASSERT_EQ(cell->GetCellType(), VTK_LAGRANGE_TETRAHEDRON);
    ASSERT_EQ(cell->GetNumberOfPoints(), Np);
    for (int trial = 0; trial < 4; ++trial) {
      double l[4], sum = 0;
      for (double& v : l) sum += (v = -std::log(u(rng) + 1e-300));  // uniform on the simplex
      double pc[3] = {l[1] / sum, l[2] / sum, l[3] / sum}, x[3];
      int sub = 0;
      cell->EvaluateLocation(sub, pc, x, weights.data());
      // Geometry: VTK's parametric (p0,p1,p2) is reference (r,s,t) = -1 + 2 p.
      const Vec3 want = map_to_physical(mesh, k, 2 * pc[0] - 1, 2 * pc[1] - 1, 2 * pc[2] - 1);
      for (int d = 0; d < 3; ++d) worst_pt = std::max(worst_pt, std::abs(x[d] - want[d]));
      for (int d = 0; d < 3; ++d) {
        double e = 0, h = 0;
        for (int p = 0; p < Np; ++p) {
          e += weights[p] * E->GetComponent(cell->GetPointId(p), d);
          h += weights[p] * H->GetComponent(cell->GetPointId(p), d);
        }
        worst_interp = std::max(worst_interp, rel_err(e, fx.f(Ex + d, x[0], x[1], x[2])));
        worst_interp = std::max(worst_interp, rel_err(h, fx.f(Hx + d, x[0], x[1], x[2])));
      }
    }
    // Inverse: a physical point inside element k, located by VTK (as a probe filter does).
    {
      double l[4], sum = 0;
      for (double& v : l) sum += (v = 0.1 + u(rng));
      const Vec3 x = map_to_physical(mesh, k, 2 * l[1] / sum - 1, 2 * l[2] / sum - 1,
                                     2 * l[3] / sum - 1);
      double closest[3], pc[3], dist2 = -1;
      int sub = 0;
      const int inside = cell->EvaluatePosition(x.data(), closest, sub, pc, dist2, weights.data());
      EXPECT_EQ(inside, 1) << "element " << k;
      EXPECT_LT(dist2, 1e-20);
      for (int d = 0; d < 3; ++d) {
        double e = 0;
        for (int p = 0; p < Np; ++p) e += weights[p] * E->GetComponent(cell->GetPointId(p), d);
        worst_probe = std::max(worst_probe, rel_err(e, fx.f(Ex + d, x[0], x[1], x[2])));
      }
    }
  }
  EXPECT_LE(worst_pt, 1e-13) << "N=" << N;
  EXPECT_LE(worst_val, 1e-12) << "N=" << N;
  EXPECT_LE(worst_interp, 1e-12) << "N=" << N;
  EXPECT_LE(worst_probe, 1e-10) << "N=" << N;
}

}  // namespace

// Our lattice order is exactly VTK's: vtkHigherOrderTetra::BarycentricIndex(p) is (w1, w2, w3, w0).
TEST(VtkLagrangeTet, LatticeMatchesVtkPointOrder) {
  for (int N = 1; N <= 12; ++N) {
    const auto lat = vtk_lagrange_tet_lattice(N);
    ASSERT_EQ(static_cast<int>(lat.size()), (N + 1) * (N + 2) * (N + 3) / 6);
    std::set<std::array<int, 4>> seen(lat.begin(), lat.end());
    EXPECT_EQ(seen.size(), lat.size()) << "duplicate lattice points, N=" << N;
    for (int p = 0; p < static_cast<int>(lat.size()); ++p) {
      vtkIdType b[4];
      vtkHigherOrderTetra::BarycentricIndex(p, b, N);
      EXPECT_EQ(lat[p][0] + lat[p][1] + lat[p][2] + lat[p][3], N);
      EXPECT_EQ(b[0], lat[p][1]) << "N=" << N << " p=" << p;
      EXPECT_EQ(b[1], lat[p][2]) << "N=" << N << " p=" << p;
      EXPECT_EQ(b[2], lat[p][3]) << "N=" << N << " p=" << p;
      EXPECT_EQ(b[3], lat[p][0]) << "N=" << N << " p=" << p;
    }
  }
}

// Interpolation to the equispaced points is exact for degree-N polynomials.
TEST(VtkLagrangeTet, InterpolationMatrixReproducesPolynomials) {
  for (int N = 1; N <= 8; ++N) {
    const RefElement& ref = ref_element(N);
    const Eigen::MatrixXd I = vtk_lagrange_interpolation(ref);
    ASSERT_EQ(I.rows(), ref.Np);
    ASSERT_EQ(I.cols(), ref.Np);
    const auto lat = vtk_lagrange_tet_lattice(N);
    auto f = [&](double r, double s, double t) { return std::pow(0.5 + 0.2 * r - 0.3 * s + 0.1 * t, N) + r * s; };
    Eigen::VectorXd u(ref.Np);
    for (int i = 0; i < ref.Np; ++i) u[i] = f(ref.r[i], ref.s[i], ref.t[i]);
    const Eigen::VectorXd v = I * u;
    for (int p = 0; p < ref.Np; ++p)
      EXPECT_NEAR(v[p], f(-1.0 + 2.0 * lat[p][1] / N, -1.0 + 2.0 * lat[p][2] / N, -1.0 + 2.0 * lat[p][3] / N), 1e-12)
          << "N=" << N << " p=" << p;
  }
}

TEST(VtuWriter, VtkReadsBackTheDgSolutionOrders1To5) {
  TempDir dir("vtu_orders");
  for (int N = 1; N <= 5; ++N) {
    SCOPED_TRACE("N=" + std::to_string(N));
    IoFixture fx(N, 11 + N);
    VtuWriter w(fx.md.mesh, *fx.ref);
    const std::string path = dir / ("order" + std::to_string(N) + ".vtu");
    w.write(path, fx.q, 0.125 * N);
    check_vtu(path, fx, 0.125 * N);
  }
  EXPECT_EQ(dir.count_tmp(), 0);
}

// The threads of this process now (Linux: one entry per thread in /proc/self/task).
int threads_now() {
  const auto it = std::filesystem::directory_iterator("/proc/self/task");
  return static_cast<int>(std::distance(it, std::filesystem::directory_iterator{}));
}

// In a death test's child (a fresh process, re-executed: VTK has run no loop there yet): how many
// threads one VTU write of 48 elements leaves running, as the child's exit code. _Exit: the leak
// check at exit is not what this measures.
[[noreturn]] void exit_with_threads_a_write_leaves(const std::string& path) {
  IoFixture fx(2, 7, 2);
  VtuWriter w(fx.md.mesh, *fx.ref);
  const int before = threads_now();
  w.write(path, fx.q, 0.0);
  std::_Exit(std::clamp(threads_now() - before, 0, 100));
}

// dgmax's main() keeps VTK's loops on the calling thread (keep_vtk_loops_sequential): the snapshot
// writer's one background thread stays one, and no unjoined worker is left ending at exit.
TEST(VtuWriterThreads, AWriteStartsNoThreadWhenVtkLoopsAreKeptSequential) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir("vtu_threads");
  EXPECT_EXIT(
      {
        keep_vtk_loops_sequential();
        exit_with_threads_a_write_leaves(dir / "seq.vtu");
      },
      ::testing::ExitedWithCode(0), "");
  // the control: a backend the user chose is kept, and TBB's does leave workers (so the count above
  // can see them); TBB starts none on one core
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: TBB starts no worker to count";
  EXPECT_EXIT(
      {
        setenv("VTK_SMP_BACKEND_IN_USE", "TBB", 1);
        keep_vtk_loops_sequential();
        exit_with_threads_a_write_leaves(dir / "tbb.vtu");
      },
      [](int status) { return WIFEXITED(status) && WEXITSTATUS(status) >= 1; }, "");
}

TEST(VtuWriter, SnapshotSeriesWithPvd) {
  TempDir dir("vtu_series");
  IoFixture fx(3);
  const std::string out = dir / "out/sub";  // created by the writer
  SnapshotWriter sw(out, "run", {&fx.md.mesh, fx.ref, &fx.xyz});
  EXPECT_EQ(sw.format(), SnapshotFormat::Vtu);
  const double times[3] = {0.0, 0.1, 1.0 / 3.0};
  for (double t : times) sw.write(fx.q, t);
  ASSERT_EQ(sw.files().size(), 3u);
  EXPECT_EQ(sw.files()[0], out + "/run_00000.vtu");
  EXPECT_EQ(sw.files()[2], out + "/run_00002.vtu");
  EXPECT_EQ(sw.pvd_path(), out + "/run.pvd");
  check_vtu(sw.files()[2], fx, times[2]);
  std::ifstream in(sw.pvd_path());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string xml = ss.str();
  EXPECT_NE(xml.find("file=\"run_00001.vtu\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("timestep=\"0.33333333333333331\""), std::string::npos) << xml;
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(VtuWriter, BothFormatsWriteVtuAndH5) {
  TempDir dir("vtu_both");
  IoFixture fx(2);
  SnapshotWriter sw(dir.str(), "b", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Both);
  sw.write(fx.q, 0.5);
  ASSERT_EQ(sw.files().size(), 2u);
  // both files hold the same snapshot, read back value by value
  check_vtu(dir / "b_00000.vtu", fx, 0.5);
  check_file(dir / "b_00000.h5", fx, 0.5, 0);
  std::ifstream in(dir / "b.pvd");
  const std::string pvd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(pvd.find("file=\"b_00000.vtu\""), std::string::npos) << pvd;
}

TEST(VtuWriter, UnwritablePathIsAUserErrorAndLeavesNoFile) {
  TempDir dir("vtu_fail");
  IoFixture fx(1);
  VtuWriter w(fx.md.mesh, *fx.ref);
  const std::string path = dir / "missing/x.vtu";
  try {
    w.write(path, fx.q, 0);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find(path), std::string::npos) << e.message();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(dir.count_tmp(), 0);  // no temporary file left (they end in ".tmp")
}

// postprocess/h5_to_vtu.py turns the HDF5 snapshots into the same VTU (skipped when the python
// modules it needs are missing).
TEST(VtuWriter, PythonConverterMatchesNativeVtu) {
  const std::string py = "/usr/bin/python3";
  if (std::system((py + " -c 'import vtk, h5py, numpy' >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << py << " cannot import vtk, h5py and numpy (Debian: apt-get install python3-vtk9 python3-h5py "
                     "python3-numpy): postprocess/h5_to_vtu.py not checked";
  TempDir dir("vtu_py");
  IoFixture fx(4);
  SnapshotWriter sw(dir.str(), "c", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Both);
  sw.write(fx.q, 0.0);
  sw.write(fx.q, 0.25);
  const std::string conv = dir / "conv";
  const std::string cmd = py + " " + DGMAX_SOURCE_DIR + "/postprocess/h5_to_vtu.py --out " + conv +
                          " " + dir.str() + " >" + (dir / "log.txt") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const char* name : {"c_00000.vtu", "c_00001.vtu"}) {
    auto a = read_vtu(dir / name);
    auto b = read_vtu(conv + "/" + name);
    ASSERT_EQ(b->GetNumberOfPoints(), a->GetNumberOfPoints());
    ASSERT_EQ(b->GetNumberOfCells(), a->GetNumberOfCells());
    for (vtkIdType c = 0; c < b->GetNumberOfCells(); ++c) ASSERT_EQ(b->GetCellType(c), 71);
    double worst = 0;
    for (vtkIdType i = 0; i < a->GetNumberOfPoints(); ++i) {
      double pa[3], pb[3];
      a->GetPoint(i, pa);
      b->GetPoint(i, pb);
      for (int d = 0; d < 3; ++d) {
        worst = std::max(worst, std::abs(pa[d] - pb[d]));
        for (const char* f : {"E", "H"})
          worst = std::max(worst, std::abs(a->GetPointData()->GetArray(f)->GetComponent(i, d) -
                                           b->GetPointData()->GetArray(f)->GetComponent(i, d)));
      }
    }
    EXPECT_LE(worst, 1e-11) << name;
    ASSERT_TRUE(b->GetCellData()->GetArray("volume_tag"));
  }
  std::ifstream in(conv + "/c.pvd");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("timestep=\"0.25\" group=\"\" part=\"0\" file=\"c_00001.vtu\""),
            std::string::npos)
      << ss.str();
}
