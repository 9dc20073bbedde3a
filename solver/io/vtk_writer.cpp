#include "solver/io/vtk_writer.hpp"

#include "solver/mesh/curved_lattice.hpp"

#include <vtkCallbackCommand.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkCommand.h>
#include <vtkDoubleArray.h>
#include <vtkExecutive.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>

#include "solver/element/basis.hpp"
#include "solver/element/nodes.hpp"
#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

using Weights = std::array<int, 4>;

// VTK tetra edges, each traversed from its first vertex to its second.
constexpr int kVtkEdges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
// VTK tetra faces in VTK's order, each listed in the vertex order of the Lagrange triangle that
// parametrizes its interior points (triangle vertex 0, 1, 2).
constexpr int kVtkFaces[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};

// Points of a Lagrange triangle of order n spanned by tet vertices (a, b, c), with `off` added to
// the weights of a, b, c (and `base` to all four weights), in VTK's triangle order.
void add_triangle(int n, int off, int base, const int (&v)[3], std::vector<Weights>& out) {
  if (n < 0) return;
  auto point = [&](int wa, int wb, int wc) {
    Weights w{base, base, base, base};
    w[v[0]] += off + wa;
    w[v[1]] += off + wb;
    w[v[2]] += off + wc;
    out.push_back(w);
  };
  if (n == 0) {
    point(0, 0, 0);
    return;
  }
  point(n, 0, 0);
  point(0, n, 0);
  point(0, 0, n);
  for (int i = 1; i < n; ++i) point(n - i, i, 0);  // edge 0 -> 1
  for (int i = 1; i < n; ++i) point(0, n - i, i);  // edge 1 -> 2
  for (int i = 1; i < n; ++i) point(i, 0, n - i);  // edge 2 -> 0
  add_triangle(n - 3, off + 1, base, v, out);
}

// Points of a Lagrange tetrahedron of order n with `base` added to all four weights.
void add_tetra(int n, int base, std::vector<Weights>& out) {
  if (n < 0) return;
  if (n == 0) {
    out.push_back({base, base, base, base});
    return;
  }
  for (int v = 0; v < 4; ++v) {
    Weights w{base, base, base, base};
    w[v] += n;
    out.push_back(w);
  }
  for (const auto& e : kVtkEdges)
    for (int i = 1; i < n; ++i) {
      Weights w{base, base, base, base};
      w[e[0]] += n - i;
      w[e[1]] += i;
      out.push_back(w);
    }
  for (const auto& f : kVtkFaces) add_triangle(n - 3, 1, base, f, out);
  add_tetra(n - 4, base + 1, out);
}

// Collects VTK error messages of an object instead of letting VTK print them.
struct ErrorCollector {
  std::string messages;
  static void callback(vtkObject*, unsigned long, void* client, void* call) {
    auto* self = static_cast<ErrorCollector*>(client);
    if (call) {
      std::string msg = static_cast<const char*>(call);
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      // "ERROR: In file, line N\nvtkClass (0x...): text" -> "text"
      if (const auto nl = msg.rfind('\n'); nl != std::string::npos) msg.erase(0, nl + 1);
      if (const auto p = msg.find("): "); p != std::string::npos) msg.erase(0, p + 3);
      if (!self->messages.empty()) self->messages += "; ";
      self->messages += msg;
    }
  }
};

}  // namespace

std::vector<std::array<int, 4>> vtk_lagrange_tet_lattice(int N) {
  DGMAX_ASSERT(N >= 1, "Lagrange tetrahedron order must be >= 1");
  std::vector<Weights> out;
  out.reserve(num_nodes_3d(N));
  add_tetra(N, 0, out);
  DGMAX_ASSERT(static_cast<int>(out.size()) == num_nodes_3d(N), "wrong VTK lattice size");
  return out;
}

Eigen::MatrixXd vtk_lagrange_interpolation(const RefElement& ref) {
  const auto lattice = vtk_lagrange_tet_lattice(ref.N);
  const int n = static_cast<int>(lattice.size());
  Eigen::VectorXd r(n), s(n), t(n);
  for (int p = 0; p < n; ++p) {
    r[p] = -1.0 + 2.0 * lattice[p][1] / ref.N;
    s[p] = -1.0 + 2.0 * lattice[p][2] / ref.N;
    t[p] = -1.0 + 2.0 * lattice[p][3] / ref.N;
  }
  return vandermonde_3d(ref.N, r, s, t) * ref.invV;
}

void keep_vtk_loops_sequential() { setenv("VTK_SMP_BACKEND_IN_USE", "Sequential", 0); }

struct VtuWriter::Impl {
  const Mesh& mesh;
  const RefElement& ref;
  Eigen::MatrixXd interp;  // [Np][Np]
  vtkSmartPointer<vtkUnstructuredGrid> grid;
};

VtuWriter::VtuWriter(const Mesh& mesh, const RefElement& ref, const std::vector<long long>* element_ids)
    : impl_(new Impl{mesh, ref, vtk_lagrange_interpolation(ref), vtkSmartPointer<vtkUnstructuredGrid>::New()}) {
  const int K = mesh.num_elements(), Np = ref.Np, N = ref.N;
  const vtkIdType npts = static_cast<vtkIdType>(K) * Np;
  const auto lattice = vtk_lagrange_tet_lattice(N);

  // Points: affine image of the lattice point, x = sum_v (w_v / N) X_v.
  vtkNew<vtkDoubleArray> xyz;
  xyz->SetNumberOfComponents(3);
  xyz->SetNumberOfTuples(npts);
  double* px = xyz->GetPointer(0);
  // curved elements: their map at the lattice points (ParaView then draws the curved cells)
  Eigen::MatrixXd curved_at_points;  // [Np][lattice_size(q)]
  if (!mesh.curved_index.empty()) {
    Eigen::VectorXd r(Np), s(Np), t(Np);
    for (int p = 0; p < Np; ++p) {
      r[p] = -1.0 + 2.0 * lattice[p][1] / N;
      s[p] = -1.0 + 2.0 * lattice[p][2] / N;
      t[p] = -1.0 + 2.0 * lattice[p][3] / N;
    }
    curved_at_points = lattice_interpolation(mesh.geometry_order, r, s, t);
  }
  for (int k = 0; k < K; ++k) {
    const auto& el = mesh.elements[k];
    for (int p = 0; p < Np; ++p) {
      double* dst = px + 3 * (static_cast<vtkIdType>(k) * Np + p);
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        if (mesh.is_curved(k)) {
          const Vec3* row = mesh.curved_row(k);
          for (int m = 0; m < curved_at_points.cols(); ++m) x += curved_at_points(p, m) * row[m][d];
          dst[d] = x;
          continue;
        }
        for (int v = 0; v < 4; ++v) x += lattice[p][v] * mesh.vertices[el[v]][d];
        dst[d] = x / N;
      }
    }
  }
  vtkNew<vtkPoints> points;
  points->SetData(xyz);
  impl_->grid->SetPoints(points);

  // Cells: element k uses points k*Np .. k*Np+Np-1.
  vtkNew<vtkIdTypeArray> conn;
  conn->SetNumberOfTuples(npts);
  for (vtkIdType i = 0; i < npts; ++i) conn->SetValue(i, i);
  vtkNew<vtkCellArray> cells;
  const bool cells_ok = cells->SetData(static_cast<vtkIdType>(Np), conn);
  DGMAX_ASSERT(cells_ok, "vtkCellArray::SetData rejected the connectivity");
  impl_->grid->SetCells(VTK_LAGRANGE_TETRAHEDRON, cells);

  vtkNew<vtkIntArray> tag;
  tag->SetName("volume_tag");
  tag->SetNumberOfTuples(K);
  vtkNew<vtkIntArray> id;
  id->SetName("element");
  id->SetNumberOfTuples(K);
  for (int k = 0; k < K; ++k) {
    tag->SetValue(k, k < static_cast<int>(mesh.element_tag.size()) ? mesh.element_tag[k] : 0);
    id->SetValue(k, element_ids ? static_cast<int>((*element_ids)[k]) : k);
  }
  impl_->grid->GetCellData()->AddArray(tag);
  impl_->grid->GetCellData()->AddArray(id);

  vtkNew<vtkStringArray> names;
  names->SetName("volume_tag_names");
  for (const auto& n : mesh.volume_tag_names) names->InsertNextValue(n);
  impl_->grid->GetFieldData()->AddArray(names);
}

VtuWriter::~VtuWriter() = default;

void VtuWriter::write(const std::string& path, const Fields& q, double time) {
  const int K = impl_->mesh.num_elements(), Np = impl_->ref.Np;
  DGMAX_ASSERT(q.K == K && q.Np == Np, "fields do not match the mesh / reference element");
  const vtkIdType npts = static_cast<vtkIdType>(K) * Np;

  // q is [K][6][Np]: a column-major Np x 6K matrix. One GEMM interpolates everything.
  const Eigen::Map<const Eigen::MatrixXd> Q(q.q.data(), Np, static_cast<Eigen::Index>(6) * K);
  const Eigen::MatrixXd Qeq = impl_->interp * Q;

  vtkNew<vtkDoubleArray> E, H, Emag;
  E->SetName("E");
  E->SetNumberOfComponents(3);
  E->SetNumberOfTuples(npts);
  H->SetName("H");
  H->SetNumberOfComponents(3);
  H->SetNumberOfTuples(npts);
  Emag->SetName("|E|");
  Emag->SetNumberOfTuples(npts);
  double* pe = E->GetPointer(0);
  double* ph = H->GetPointer(0);
  double* pm = Emag->GetPointer(0);
  for (int k = 0; k < K; ++k)
    for (int p = 0; p < Np; ++p) {
      const vtkIdType i = static_cast<vtkIdType>(k) * Np + p;
      for (int d = 0; d < 3; ++d) {
        pe[3 * i + d] = Qeq(p, 6 * k + d);
        ph[3 * i + d] = Qeq(p, 6 * k + 3 + d);
      }
      pm[i] = std::sqrt(pe[3 * i] * pe[3 * i] + pe[3 * i + 1] * pe[3 * i + 1] +
                        pe[3 * i + 2] * pe[3 * i + 2]);
    }
  vtkPointData* pd = impl_->grid->GetPointData();
  pd->Initialize();
  pd->AddArray(E);
  pd->AddArray(H);
  pd->AddArray(Emag);
  pd->SetActiveVectors("E");
  pd->SetActiveScalars("|E|");

  vtkFieldData* fd = impl_->grid->GetFieldData();
  fd->RemoveArray("TimeValue");
  vtkNew<vtkDoubleArray> tv;
  tv->SetName("TimeValue");
  tv->SetNumberOfTuples(1);
  tv->SetValue(0, time);
  fd->AddArray(tv);

  const std::string tmp = temp_path_for(path);
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  ErrorCollector errors;
  vtkNew<vtkCallbackCommand> cb;
  cb->SetCallback(&ErrorCollector::callback);
  cb->SetClientData(&errors);
  writer->AddObserver(vtkCommand::ErrorEvent, cb);
  // The pipeline repeats the failure as a long request dump: swallow it (the writer's own
  // message is kept above).
  ErrorCollector pipeline_errors;
  vtkNew<vtkCallbackCommand> cb_exec;
  cb_exec->SetCallback(&ErrorCollector::callback);
  cb_exec->SetClientData(&pipeline_errors);
  writer->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, cb_exec);
  writer->SetInputData(impl_->grid);
  writer->SetFileName(tmp.c_str());
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  writer->SetCompressorTypeToZLib();
  writer->SetCompressionLevel(1);
  writer->SetHeaderTypeToUInt64();
  const int ok = writer->Write();
  if (ok != 1 || writer->GetErrorCode() != 0 || !errors.messages.empty()) {
    std::remove(tmp.c_str());
    throw UserError("cannot write VTU file '" + path + "'" +
                        (errors.messages.empty() ? std::string() : ": " + errors.messages),
                    {}, "check that the output directory is writable and the disk is not full");
  }
  commit_temp_file(tmp, path);
}

}  // namespace dgmax
