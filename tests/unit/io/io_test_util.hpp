// Shared helpers of the solver/io tests: a small distorted mesh with its order-N element and a
// degree-N polynomial field set at the DG nodes, and per-test temporary directories.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <random>
#include <string>

#include "random_mesh.hpp"
#include "solver/element/reference_element.hpp"
#include "solver/mesh/face_maps.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax::test {

// f_c(x) = prod_{j<N} (a_cj + b_cj . x): a generic polynomial of total degree exactly N, O(1)
// on the test meshes; one per field component c.
struct PolyField {
  int N = 1;
  std::vector<std::array<double, 4>> coef[kNumComponents];

  PolyField(int N_, unsigned seed) : N(N_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> a(0.6, 1.0), b(-0.25, 0.25);
    for (auto& c : coef)
      for (int j = 0; j < N; ++j) c.push_back({a(rng), b(rng), b(rng), b(rng)});
  }
  double operator()(int c, double x, double y, double z) const {
    double v = 1;
    for (const auto& f : coef[c]) v *= f[0] + f[1] * x + f[2] * y + f[3] * z;
    return v;
  }
};

struct IoFixture {
  MeshData md;
  const RefElement* ref = nullptr;
  NodeCoords xyz;
  Fields q;
  PolyField f;

  IoFixture(int N, unsigned seed = 7, int n = 1)
      : md(setup_mesh(random_affine_mesh(n, seed).mesh)), ref(&ref_element(N)), f(N, seed + 100) {
    xyz = node_coordinates(md.mesh, *ref);
    q = Fields(md.mesh.num_elements(), ref->Np);
    for (int k = 0; k < q.K; ++k)
      for (int c = 0; c < kNumComponents; ++c)
        for (int i = 0; i < q.Np; ++i) {
          const size_t m = static_cast<size_t>(k) * q.Np + i;
          q(k, c, i) = f(c, xyz.x[m], xyz.y[m], xyz.z[m]);
        }
  }
};

// A fresh, empty directory under the test temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::path(::testing::TempDir()) /
           ("dgmax_io_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  // Files whose name ends in ".tmp" (left-overs of a non-atomic write).
  int count_tmp() const {
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path))
      if (e.path().extension() == ".tmp") ++n;
    return n;
  }
};

}  // namespace dgmax::test
