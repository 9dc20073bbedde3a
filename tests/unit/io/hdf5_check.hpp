// Reading dgmax HDF5 snapshots back with the HDF5 C API, for the solver/io tests: every dataset
// and attribute against the IoFixture it was written from (check_file).
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <vector>

#include "io_test_util.hpp"

namespace dgmax::test {

struct H5File {
  hid_t id;
  explicit H5File(const std::string& path) : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() {
    if (id >= 0) H5Fclose(id);
  }
};

// Reads a dataset, checking its shape.
template <class T>
inline std::vector<T> read(hid_t file, const char* name, hid_t memtype, const std::vector<hsize_t>& dims) {
  std::vector<T> out;
  const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  if (ds < 0) return out;
  const hid_t sp = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(sp);
  EXPECT_EQ(rank, static_cast<int>(dims.size())) << name;
  std::vector<hsize_t> got(rank > 0 ? rank : 0);
  if (rank > 0) H5Sget_simple_extent_dims(sp, got.data(), nullptr);
  EXPECT_EQ(got, dims) << name;
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  out.resize(n);
  EXPECT_GE(H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << name;
  H5Sclose(sp);
  H5Dclose(ds);
  return out;
}

inline std::string read_string_attr(hid_t obj, const char* name) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a < 0) return {};
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char* s = nullptr;
  EXPECT_GE(H5Aread(a, t, &s), 0) << name;
  std::string out = s ? s : "";
  H5free_memory(s);
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

inline std::string dataset_string_attr(hid_t file, const char* ds_name, const char* attr) {
  const hid_t ds = H5Dopen2(file, ds_name, H5P_DEFAULT);
  const std::string s = read_string_attr(ds, attr);
  H5Dclose(ds);
  return s;
}

// Every dataset of the snapshot at `path` equals the fixture (mesh, nodes, E and H exactly).
inline void check_file(const std::string& path, const IoFixture& fx, double time, int step) {
  const Mesh& m = fx.md.mesh;
  const RefElement& ref = *fx.ref;
  const hsize_t K = m.num_elements(), Nv = m.num_vertices(), Np = ref.Np;
  H5File f(path);
  ASSERT_GE(f.id, 0) << path;

  const auto v = read<double>(f.id, "vertices", H5T_NATIVE_DOUBLE, {Nv, 3});
  for (hsize_t i = 0; i < Nv; ++i)
    for (int d = 0; d < 3; ++d) ASSERT_EQ(v[3 * i + d], m.vertices[i][d]);
  const auto el = read<int>(f.id, "elements", H5T_NATIVE_INT, {K, 4});
  for (hsize_t k = 0; k < K; ++k)
    for (int j = 0; j < 4; ++j) ASSERT_EQ(el[4 * k + j], m.elements[k][j]);
  const auto tag = read<int>(f.id, "volume_tag", H5T_NATIVE_INT, {K});
  for (hsize_t k = 0; k < K; ++k) ASSERT_EQ(tag[k], m.element_tag[k]);
  EXPECT_EQ(read<int>(f.id, "order", H5T_NATIVE_INT, {}).at(0), ref.N);
  EXPECT_EQ(read<double>(f.id, "time", H5T_NATIVE_DOUBLE, {}).at(0), time);
  const auto nodes = read<double>(f.id, "nodes_rst", H5T_NATIVE_DOUBLE, {Np, 3});
  for (hsize_t i = 0; i < Np; ++i) {
    ASSERT_EQ(nodes[3 * i], ref.r[i]);
    ASSERT_EQ(nodes[3 * i + 1], ref.s[i]);
    ASSERT_EQ(nodes[3 * i + 2], ref.t[i]);
  }
  const auto x = read<double>(f.id, "x", H5T_NATIVE_DOUBLE, {K, Np, 3});
  const auto E = read<double>(f.id, "E", H5T_NATIVE_DOUBLE, {K, Np, 3});
  const auto H = read<double>(f.id, "H", H5T_NATIVE_DOUBLE, {K, Np, 3});
  for (hsize_t k = 0; k < K; ++k)
    for (hsize_t i = 0; i < Np; ++i) {
      const size_t n = k * Np + i;
      ASSERT_EQ(x[3 * n], fx.xyz.x[n]);
      ASSERT_EQ(x[3 * n + 1], fx.xyz.y[n]);
      ASSERT_EQ(x[3 * n + 2], fx.xyz.z[n]);
      for (int d = 0; d < 3; ++d) {
        ASSERT_EQ(E[3 * n + d], fx.q(k, Ex + d, i));
        ASSERT_EQ(H[3 * n + d], fx.q(k, Hx + d, i));
      }
    }

  EXPECT_EQ(read_string_attr(f.id, "format"), "dgmax-snapshot");
  EXPECT_EQ(read_string_attr(f.id, "field_names"), "E,H");
  {
    const hid_t a = H5Aopen(f.id, "step", H5P_DEFAULT);
    int s = -2;
    H5Aread(a, H5T_NATIVE_INT, &s);
    H5Aclose(a);
    EXPECT_EQ(s, step);
  }
  EXPECT_EQ(dataset_string_attr(f.id, "E", "components"), "x,y,z");
  EXPECT_FALSE(dataset_string_attr(f.id, "E", "units").empty());
  EXPECT_FALSE(dataset_string_attr(f.id, "H", "units").empty());
  EXPECT_FALSE(dataset_string_attr(f.id, "x", "units").empty());
  EXPECT_FALSE(dataset_string_attr(f.id, "time", "units").empty());
  // Tag names.
  {
    const hid_t ds = H5Dopen2(f.id, "volume_tag", H5P_DEFAULT);
    const hid_t a = H5Aopen(ds, "names", H5P_DEFAULT);
    ASSERT_GE(a, 0);
    const hid_t sp = H5Aget_space(a);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(sp, &n, nullptr);
    ASSERT_EQ(n, m.volume_tag_names.size());
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    std::vector<char*> s(n);
    ASSERT_GE(H5Aread(a, t, s.data()), 0);
    for (hsize_t i = 0; i < n; ++i) {
      EXPECT_EQ(std::string(s[i]), m.volume_tag_names[i]);
      H5free_memory(s[i]);
    }
    H5Tclose(t);
    H5Sclose(sp);
    H5Aclose(a);
    H5Dclose(ds);
  }
}

}  // namespace dgmax::test
