// VTU snapshots of the background writer read back with VTK: the values at the points are the
// state that was handed over (a degree-N polynomial, reproduced exactly by the Lagrange cells) and
// TimeValue is the snapshot's time.
#include <gtest/gtest.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <cmath>
#include <string>

#include "io_test_util.hpp"
#include "solver/io/async_snapshot_writer.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(AsyncSnapshotWriterVtu, ValuesAndTimesReadBackWithVtk) {
  TempDir dir("async_vtu_read");
  IoFixture fx(3);
  AsyncSnapshotWriter w(dir.str(), "v", {&fx.md.mesh, fx.ref, &fx.xyz}, SnapshotFormat::Vtu);
  const double times[] = {0.0, 0.25, 0.5};
  for (int s = 0; s < 3; ++s) {
    Fields buf = w.acquire_buffer();
    for (size_t i = 0; i < buf.q.size(); ++i) buf.q[i] = (s + 1) * fx.q.q[i];  // state s: (s+1)·f
    w.write(std::move(buf), times[s]);
  }
  w.finish();
  ASSERT_EQ(w.files().size(), 3u);
  for (int s = 0; s < 3; ++s) {
    vtkNew<vtkXMLUnstructuredGridReader> reader;
    reader->SetFileName(w.files()[s].c_str());
    reader->Update();
    ASSERT_EQ(reader->GetErrorCode(), 0u) << w.files()[s];
    vtkUnstructuredGrid* g = reader->GetOutput();
    ASSERT_EQ(g->GetNumberOfPoints(), static_cast<vtkIdType>(fx.q.K) * fx.q.Np);
    vtkDataArray* tv = g->GetFieldData()->GetArray("TimeValue");
    ASSERT_TRUE(tv);
    EXPECT_EQ(tv->GetComponent(0, 0), times[s]);
    vtkDataArray* E = g->GetPointData()->GetArray("E");
    vtkDataArray* H = g->GetPointData()->GetArray("H");
    ASSERT_TRUE(E && H);
    double worst = 0;
    for (vtkIdType i = 0; i < g->GetNumberOfPoints(); ++i) {
      double x[3];
      g->GetPoint(i, x);
      for (int d = 0; d < 3; ++d) {
        const double fe = (s + 1) * fx.f(Ex + d, x[0], x[1], x[2]), fh = (s + 1) * fx.f(Hx + d, x[0], x[1], x[2]);
        worst = std::max(worst, std::abs(E->GetComponent(i, d) - fe) / (1 + std::abs(fe)));
        worst = std::max(worst, std::abs(H->GetComponent(i, d) - fh) / (1 + std::abs(fh)));
      }
    }
    EXPECT_LT(worst, 1e-12) << "snapshot " << s;
  }
}
