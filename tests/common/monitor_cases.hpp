// Probe and DFT-monitor checks that every backend runs (ref and cpu in tests/unit/physics, cuda in
// the gpu_ tests): probes of a degree-N polynomial field against the polynomial, and the DFT of a
// sinusoidal state sequence against the closed-form discrete sum.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "cavity.hpp"
#include "simulate.hpp"
#include "solver/backends/backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/norms.hpp"
#include "solver/physics/probes.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax::test {

// A mesh that is not the unit cube: [-0.5, 0.5] x [-0.5, 0.5] x [-0.5, 0.7], 2 x 3 x 2 cells.
inline Problem odd_box_problem(int N) {
  BoxSpec s;
  s.lower = {-0.5, -0.5, -0.5};
  s.upper = {0.5, 0.5, 0.7};
  s.cells = {2, 3, 2};
  return box_problem(s, N, 1.0);
}

// Component c: (a_c + b_c x + c_c y + d_c z)^N, a polynomial of degree N.
inline double poly_field(int N, int c, double x, double y, double z) {
  return std::pow(0.3 + 0.1 * c + (0.7 - 0.1 * c) * x - (0.4 + 0.05 * c) * y + 0.5 * z, N);
}

inline FieldFn poly_fields(int N) {
  return [N](size_t n, const double* x, const double* y, const double* z, double, double* const* out) {
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < 6; ++c) out[c][i] = poly_field(N, c, x[i], y[i], z[i]);
  };
}

// Probes at `count` random points of p's box (and at a vertex and a face point of the mesh) on the
// interpolated polynomial field: max |probe - polynomial| / max |polynomial|.
inline double probe_polynomial_error(const Problem& p, Backend& be, int count, unsigned seed) {
  Fields q;
  interpolate(p, poly_fields(p.N), 0, q);
  be.set_state(q);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Vec3 lo = p.md->mesh.vertices[0], hi = lo;
  for (const Vec3& v : p.md->mesh.vertices)
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], v[d]), hi[d] = std::max(hi[d], v[d]);
  std::vector<ProbePointSpec> pts;
  for (int i = 0; i < count; ++i) {
    Vec3 x;
    for (int d = 0; d < 3; ++d) x[d] = lo[d] + (hi[d] - lo[d]) * (0.001 + 0.998 * u(rng));
    pts.push_back({"p" + std::to_string(i), x, {}});
  }
  pts.push_back({"vertex", p.md->mesh.vertices[p.md->mesh.elements[0][2]], {}});
  pts.push_back({"corner", lo, {}});
  const ProbeSet set = make_probe_set(p, pts);
  be.probe_setup(set.elements, set.weights);
  std::vector<double> samples;
  be.probe_sample(samples);
  const std::vector<double> out = set.combine(samples);
  double err = 0, scale = 0;
  for (size_t i = 0; i < pts.size(); ++i)
    for (int c = 0; c < 6; ++c) {
      const double exact = poly_field(p.N, c, pts[i].at[0], pts[i].at[1], pts[i].at[2]);
      err = std::max(err, std::abs(out[i * 6 + c] - exact));
      scale = std::max(scale, std::abs(exact));
    }
  return err / scale;
}

// sum_{n=1..steps} exp(i phi n)
inline std::complex<double> geometric_sum(double phi, int steps) {
  const std::complex<double> z = std::polar(1.0, phi);
  return z * (1.0 - std::pow(z, steps)) / (1.0 - z);
}

// The state A cos(omega t_n) (A: the interpolated polynomial field) set at t_n = n dt, n = 1..steps,
// and accumulated after each; against A * dt/2 [G((omega - 2 pi f) dt) + G(-(omega + 2 pi f) dt)]
// (G: geometric_sum). Returns max |X - closed form| / (max |A| * steps * dt).
inline double dft_sinusoid_error(const Problem& p, Backend& be, int steps) {
  Fields A;
  interpolate(p, poly_fields(p.N), 0, A);
  std::vector<long> nodes;
  for (long n = 0; n < static_cast<long>(p.K()) * p.Np(); n += 7) nodes.push_back(n);
  const std::vector<double> freqs = {0.0, 0.5, 1.3};
  const double omega = 2 * M_PI * 0.9, dt = 0.01;
  const int set = be.dft_add(nodes, freqs);
  Fields q = A;
  for (int n = 1; n <= steps; ++n) {
    const double t = n * dt;
    for (size_t i = 0; i < q.q.size(); ++i) q.q[i] = A.q[i] * std::cos(omega * t);
    be.set_state(q);
    be.dft_accumulate(t, dt);
  }
  std::vector<double> re, im;
  be.dft_get(set, re, im);
  double err = 0, amax = 0;
  for (double a : A.q) amax = std::max(amax, std::abs(a));
  const long M = static_cast<long>(nodes.size()), Np = p.Np();
  for (size_t f = 0; f < freqs.size(); ++f) {
    const double w = 2 * M_PI * freqs[f];
    const std::complex<double> S = dt / 2 * (geometric_sum((omega - w) * dt, steps) + geometric_sum(-(omega + w) * dt, steps));
    for (long m = 0; m < M; ++m)
      for (int c = 0; c < 6; ++c) {
        const size_t a = (f * M + m) * 6 + c;
        const std::complex<double> X(re[a], im[a]);
        const double Amc = A(static_cast<int>(nodes[m] / Np), c, static_cast<int>(nodes[m] % Np));
        err = std::max(err, std::abs(X - Amc * S));
      }
  }
  return err / (amax * steps * dt);
}

// The cavity mode stepped 30 times (cfl 0.5) on the ref backend and on `other`, the DFT of `nodes`
// accumulated after each step at 3 frequencies: max |X_other - X_ref|; *scale = max |X_ref|.
inline double dft_difference_to_ref(const Problem& p, Backend& other, const std::vector<long>& nodes, double* scale) {
  RefBackend ref(p);
  Fields q;
  interpolate(p, cavity_mode(), 0, q);
  const std::vector<double> freqs = {0.5, 1 / std::sqrt(2.0), 1.2};
  std::vector<double> re[2], im[2];
  Backend* backends[2] = {&ref, &other};
  const double dt = stable_dt(p, 0.5);
  for (int b = 0; b < 2; ++b) {
    backends[b]->set_state(q);
    const int set = backends[b]->dft_add(nodes, freqs);
    for (int s = 1; s <= 30; ++s) {
      backends[b]->step((s - 1) * dt, dt);
      backends[b]->dft_accumulate(s * dt, dt);
    }
    backends[b]->dft_get(set, re[b], im[b]);
  }
  double diff = 0;
  *scale = 0;
  for (size_t i = 0; i < re[0].size(); ++i) {
    diff = std::max({diff, std::abs(re[0][i] - re[1][i]), std::abs(im[0][i] - im[1][i])});
    *scale = std::max({*scale, std::abs(re[0][i]), std::abs(im[0][i])});
  }
  return diff;
}

}  // namespace dgmax::test
