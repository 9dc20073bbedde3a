#include "solver/io/hdf5_writer.hpp"

#include <hdf5.h>

#include <cstdio>
#include <utility>
#include <vector>

#include "solver/io/atomic_write.hpp"
#include "solver/io/hdf5_util.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

// Every HDF5 call goes through check(): a negative result becomes a UserError naming the file,
// the call and the object, with HDF5's message.
class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) {}

  template <class T>
  T check(T result, const char* call, const std::string& object = {}) const {
    if (result < 0) {
      const std::string why = hdf5_error_message();
      throw UserError("cannot write HDF5 file '" + path_ + "': " + call +
                          (object.empty() ? std::string() : "(\"" + object + "\")") + " failed" +
                          (why.empty() ? std::string() : ": " + why),
                      {}, "check that the output directory is writable and the disk is not full");
    }
    return result;
  }

  H5Id space(const std::vector<hsize_t>& dims, const std::string& object) const {
    if (dims.empty()) return H5Id(check(H5Screate(H5S_SCALAR), "H5Screate", object), H5Sclose);
    return H5Id(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                      "H5Screate_simple", object),
                H5Sclose);
  }

  H5Id string_type(const std::string& object) const {
    H5Id t(check(H5Tcopy(H5T_C_S1), "H5Tcopy", object), H5Tclose);
    check(H5Tset_size(t.get(), H5T_VARIABLE), "H5Tset_size", object);
    check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "H5Tset_cset", object);
    return t;
  }

  // Creates and writes a dataset; returns it open (for attributes).
  H5Id dataset(hid_t loc, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
               const void* data) const {
    H5Id sp = space(dims, name);
    H5Id ds(check(H5Dcreate2(loc, name.c_str(), type, sp.get(), H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT),
                  "H5Dcreate2", name),
            H5Dclose);
    check(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dwrite", name);
    return ds;
  }

  void string_attr(hid_t obj, const std::string& name, const std::string& value) const {
    H5Id t = string_type(name);
    H5Id sp = space({}, name);
    H5Id a(check(H5Acreate2(obj, name.c_str(), t.get(), sp.get(), H5P_DEFAULT, H5P_DEFAULT),
                 "H5Acreate2", name),
           H5Aclose);
    const char* s = value.c_str();
    check(H5Awrite(a.get(), t.get(), &s), "H5Awrite", name);
  }

  void string_array_attr(hid_t obj, const std::string& name,
                         const std::vector<std::string>& values) const {
    H5Id t = string_type(name);
    H5Id sp = space({static_cast<hsize_t>(values.size())}, name);
    H5Id a(check(H5Acreate2(obj, name.c_str(), t.get(), sp.get(), H5P_DEFAULT, H5P_DEFAULT),
                 "H5Acreate2", name),
           H5Aclose);
    std::vector<const char*> ptrs;
    for (const auto& v : values) ptrs.push_back(v.c_str());
    if (!ptrs.empty()) check(H5Awrite(a.get(), t.get(), ptrs.data()), "H5Awrite", name);
  }

  void int_attr(hid_t obj, const std::string& name, int value) const {
    H5Id sp = space({}, name);
    H5Id a(check(H5Acreate2(obj, name.c_str(), H5T_STD_I32LE, sp.get(), H5P_DEFAULT,
                            H5P_DEFAULT),
                 "H5Acreate2", name),
           H5Aclose);
    check(H5Awrite(a.get(), H5T_NATIVE_INT, &value), "H5Awrite", name);
  }

  void describe(hid_t obj, const std::string& long_name, const std::string& units) const {
    string_attr(obj, "long_name", long_name);
    string_attr(obj, "units", units);
  }

 private:
  std::string path_;
};

}  // namespace

void write_hdf5_snapshot(const std::string& path, const Mesh& mesh, const RefElement& ref,
                         const NodeCoords& xyz, const Fields& q, double time, int step,
                         const Hdf5Units& units) {
  const int K = mesh.num_elements(), Nv = mesh.num_vertices(), Np = ref.Np;
  DGMAX_ASSERT(q.K == K && q.Np == Np, "fields do not match the mesh / reference element");
  DGMAX_ASSERT(xyz.Np == Np && xyz.x.size() == static_cast<size_t>(K) * Np,
               "node coordinates do not match the mesh / reference element");
  const hsize_t hK = static_cast<hsize_t>(K), hNp = static_cast<hsize_t>(Np);

  // Gather everything into C-order buffers first (no I/O can fail half-way through this).
  std::vector<double> vertices(static_cast<size_t>(Nv) * 3);
  for (int v = 0; v < Nv; ++v)
    for (int d = 0; d < 3; ++d) vertices[3 * v + d] = mesh.vertices[v][d];
  std::vector<int> elements(static_cast<size_t>(K) * 4), tags(K, 0);
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < 4; ++j) elements[4 * k + j] = mesh.elements[k][j];
    if (k < static_cast<int>(mesh.element_tag.size())) tags[k] = mesh.element_tag[k];
  }
  std::vector<double> nodes(static_cast<size_t>(Np) * 3);
  for (int i = 0; i < Np; ++i) {
    nodes[3 * i] = ref.r[i];
    nodes[3 * i + 1] = ref.s[i];
    nodes[3 * i + 2] = ref.t[i];
  }
  const size_t n = static_cast<size_t>(K) * Np;
  // Buffers kept per thread between snapshots: a series of snapshots of a large state would
  // otherwise allocate and first-touch a gigabyte each time (measured: most of the write time).
  thread_local std::vector<double> x, E, H;
  x.resize(3 * n);
  E.resize(3 * n);
  H.resize(3 * n);
  // (pointers: OpenMP threads have thread_local objects of their own)
  double *xp = x.data(), *Ep = E.data(), *Hp = H.data();
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const size_t m = static_cast<size_t>(k) * Np + i;
      xp[3 * m] = xyz.x[m];
      xp[3 * m + 1] = xyz.y[m];
      xp[3 * m + 2] = xyz.z[m];
      for (int d = 0; d < 3; ++d) {
        Ep[3 * m + d] = q(k, Ex + d, i);
        Hp[3 * m + d] = q(k, Hx + d, i);
      }
    }

  const std::string tmp = temp_path_for(path);
  QuietHdf5Errors quiet;
  const Writer w(path);
  try {
    H5Id file(w.check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                      "H5Fcreate", tmp),
              H5Fclose);
    const hid_t f = file.get();
    w.string_attr(f, "format", "dgmax-snapshot");
    w.int_attr(f, "format_version", 1);
    w.int_attr(f, "step", step);
    w.string_attr(f, "field_names", "E,H");
    w.string_attr(f, "mesh_source", mesh.source);
    {
      H5Id d = w.dataset(f, "vertices", H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(Nv), 3},
                         vertices.data());
      w.describe(d.get(), "mesh vertex coordinates", units.length);
    }
    {
      H5Id d = w.dataset(f, "elements", H5T_NATIVE_INT, {hK, 4}, elements.data());
      w.string_attr(d.get(), "long_name", "vertex ids of each tetrahedron (0-based)");
    }
    {
      H5Id d = w.dataset(f, "volume_tag", H5T_NATIVE_INT, {hK}, tags.data());
      w.string_attr(d.get(), "long_name", "volume tag of each element, index into `names`");
      w.string_array_attr(d.get(), "names", mesh.volume_tag_names);
    }
    {
      const int order = ref.N;
      H5Id d = w.dataset(f, "order", H5T_NATIVE_INT, {}, &order);
      w.string_attr(d.get(), "long_name", "polynomial order N");
    }
    {
      H5Id d = w.dataset(f, "time", H5T_NATIVE_DOUBLE, {}, &time);
      w.describe(d.get(), "snapshot time", units.time);
    }
    {
      H5Id d = w.dataset(f, "nodes_rst", H5T_NATIVE_DOUBLE, {hNp, 3}, nodes.data());
      w.string_attr(d.get(), "long_name",
                    "reference warp & blend nodes (r,s,t) on the tetrahedron (-1,-1,-1), "
                    "(1,-1,-1), (-1,1,-1), (-1,-1,1)");
    }
    {
      H5Id d = w.dataset(f, "x", H5T_NATIVE_DOUBLE, {hK, hNp, 3}, x.data());
      w.describe(d.get(), "physical node coordinates", units.length);
    }
    {
      H5Id d = w.dataset(f, "E", H5T_NATIVE_DOUBLE, {hK, hNp, 3}, E.data());
      w.describe(d.get(), "electric field at the nodes", units.E);
      w.string_attr(d.get(), "components", "x,y,z");
    }
    {
      H5Id d = w.dataset(f, "H", H5T_NATIVE_DOUBLE, {hK, hNp, 3}, H.data());
      w.describe(d.get(), "magnetic field at the nodes", units.H);
      w.string_attr(d.get(), "components", "x,y,z");
    }
    w.check(H5Fclose(file.release()), "H5Fclose", tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file(tmp, path);
}

}  // namespace dgmax
