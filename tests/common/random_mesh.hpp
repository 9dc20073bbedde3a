// Test meshes: box meshes with jittered interior vertices under a random affine map, so every
// element has a different, non-axis-aligned shape.
#pragma once

#include <random>

#include "solver/mesh/box.hpp"

namespace dgmax::test {

struct RandomMesh {
  Mesh mesh;
  double volume;  // exact volume of the domain: det(A) (the box is the unit cube)
};

inline double det3(const double A[3][3]) {
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
         A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

inline RandomMesh random_affine_mesh(int n, unsigned seed, double jitter = 0.15) {
  BoxSpec spec;
  spec.cells = {n, n + 1, n};
  Mesh mesh = make_box_mesh(spec);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const double h = 1.0 / (n + 1);
  for (auto& v : mesh.vertices) {
    bool interior = true;
    for (int d = 0; d < 3; ++d) interior = interior && v[d] > 1e-12 && v[d] < 1 - 1e-12;
    if (interior)
      for (int d = 0; d < 3; ++d) v[d] += jitter * h * u(rng);
  }
  // x -> A x + b with A = I + 0.3 * random (det > 0 for this size of perturbation)
  double A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = (i == j ? 1.0 : 0.0) + 0.3 * u(rng);
  const Vec3 b{u(rng), u(rng), u(rng)};
  for (auto& v : mesh.vertices) {
    Vec3 w{b};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) w[i] += A[i][j] * v[j];
    v = w;
  }
  mesh.source = "random affine mesh";
  return {mesh, det3(A)};
}

}  // namespace dgmax::test
