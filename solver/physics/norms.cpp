#include "solver/physics/norms.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace dgmax {

double electromagnetic_energy(const Problem& p, const Fields& q) {
  const int K = p.K_owned(), Np = p.Np();
  const Eigen::MatrixXd& M = p.ref->M;
  double W = 0;
#pragma omp parallel for reduction(+ : W) schedule(static)
  for (int k = 0; k < K; ++k) {
    double e = 0, h = 0;
    if (p.is_curved(k)) {  // the nodal Jacobian inside the integral
      for (int c = 0; c < 6; ++c) (c < 3 ? e : h) += p.inner(k, q.comp(k, c), q.comp(k, c));
      W += 0.5 * (p.material[k].eps * e + p.material[k].mu * h);
      continue;
    }
    for (int c = 0; c < 6; ++c) {
      const Eigen::Map<const Eigen::VectorXd> v(q.comp(k, c), Np);
      (c < 3 ? e : h) += v.dot(M * v);
    }
    W += 0.5 * p.md->geom.J[k] * (p.material[k].eps * e + p.material[k].mu * h);
  }
  return W;
}

void interpolate(const Problem& p, const FieldFn& f, double t, Fields& q) {
  const int K = p.K(), Np = p.Np();
  const size_t n = static_cast<size_t>(K) * Np;
  std::vector<double> buf(6 * n);
  double* out[6];
  for (int c = 0; c < 6; ++c) out[c] = buf.data() + c * n;
  f(n, p.xyz.x.data(), p.xyz.y.data(), p.xyz.z.data(), t, out);
  q = Fields(K, Np);
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < Np; ++i) q(k, c, i) = out[c][static_cast<size_t>(k) * Np + i];
}

double current_norm(const Problem& p, const FieldFn& J, double t) {
  const int K = p.K(), Np = p.Np();
  const size_t n = static_cast<size_t>(K) * Np;
  std::vector<double> buf(3 * n);
  double* out[3] = {buf.data(), buf.data() + n, buf.data() + 2 * n};
  J(n, p.xyz.x.data(), p.xyz.y.data(), p.xyz.z.data(), t, out);
  const Eigen::MatrixXd& M = p.ref->M;
  double s = 0;
  for (int k = 0; k < p.K_owned(); ++k) {
    double e = 0;
    for (int c = 0; c < 3; ++c) {
      const double* u = out[c] + static_cast<size_t>(k) * Np;
      if (p.is_curved(k)) {
        e += p.inner(k, u, u);
        continue;
      }
      const Eigen::Map<const Eigen::VectorXd> v(u, Np);
      e += v.dot(M * v);
    }
    s += (p.is_curved(k) ? 1.0 : p.md->geom.J[k]) * e / p.material[k].eps;
  }
  return std::sqrt(s);
}

ErrorNorms error_norms(const Problem& p, const Fields& q, const FieldFn& exact, double t) {
  Fields ex;
  interpolate(p, exact, t, ex);
  const int K = p.K_owned(), Np = p.Np();
  const Eigen::MatrixXd& M = p.ref->M;
  double e2 = 0, h2 = 0, einf = 0, hinf = 0;
#pragma omp parallel
  {
    double le = 0, lh = 0;
#pragma omp for reduction(+ : e2, h2) schedule(static)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < 6; ++c) {
        Eigen::VectorXd d(Np);
        double li = 0;
        for (int i = 0; i < Np; ++i) {
          d[i] = q(k, c, i) - ex(k, c, i);
          li = max_nan(li, std::abs(d[i]));
        }
        const double l2 = p.is_curved(k) ? p.inner(k, d.data(), d.data()) : p.md->geom.J[k] * d.dot(M * d);
        if (c < 3) {
          e2 += l2;
          le = max_nan(le, li);
        } else {
          h2 += l2;
          lh = max_nan(lh, li);
        }
      }
#pragma omp critical
    {
      einf = max_nan(einf, le);
      hinf = max_nan(hinf, lh);
    }
  }
  return {std::sqrt(e2), std::sqrt(h2), einf, hinf};
}

}  // namespace dgmax
