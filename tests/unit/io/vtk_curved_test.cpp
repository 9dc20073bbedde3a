// VTU snapshots of curved elements: each Lagrange cell's points lie on the element's curved map,
// so ParaView draws the curved cells.
#include <gtest/gtest.h>

#include <vtkCell.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "curved_box.hpp"
#include "solver/io/vtk_writer.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/geometry.hpp"
#include "io_test_util.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(VtuCurved, CellPointsLieOnTheCurvedMap) {
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  const MeshData md = setup_mesh(warped_box_mesh(spec, 3, 0.12));
  ASSERT_EQ(md.mesh.num_curved(), md.mesh.num_elements());
  const int N = 4;
  const RefElement& ref = ref_element(N);
  TempDir dir("vtu_curved");
  const std::string path = dir / "curved.vtu";
  VtuWriter(md.mesh, ref).write(path, Fields(md.mesh.num_elements(), ref.Np), 0.0);
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  vtkUnstructuredGrid* g = reader->GetOutput();
  ASSERT_EQ(g->GetNumberOfCells(), md.mesh.num_elements());
  const auto lattice = vtk_lagrange_tet_lattice(N);  // [Np][4] barycentric integer weights
  double off_affine = 0;
  for (int k = 0; k < md.mesh.num_elements(); ++k) {
    vtkCell* cell = g->GetCell(k);
    for (int p = 0; p < ref.Np; ++p) {
      double x[3];
      g->GetPoints()->GetPoint(cell->GetPointId(p), x);
      const double r = -1.0 + 2.0 * lattice[p][1] / N, s = -1.0 + 2.0 * lattice[p][2] / N,
                   t = -1.0 + 2.0 * lattice[p][3] / N;
      const Vec3 want = map_element(md.mesh, k, r, s, t), straight = map_to_physical(md.mesh, k, r, s, t);
      for (int d = 0; d < 3; ++d) {
        EXPECT_NEAR(x[d], want[d], 1e-13) << "element " << k << ", point " << p;
        off_affine = std::max(off_affine, std::abs(x[d] - straight[d]));
      }
    }
  }
  EXPECT_GT(off_affine, 1e-3);  // the cells are curved, not the straight-sided tetrahedra
}
