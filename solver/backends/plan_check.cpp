#include "solver/backends/plan_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "codegen/jit/content_hash.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/backends/ref/ref_backend.hpp"

namespace dgmax {

double plan_check_tolerance(bool single) { return single ? 1e-5 : 1e-12; }

Fields plan_check_state(const Problem& p) {
  Fields q(p.K(), p.Np());
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : q.q) v = u(rng);
  return q;
}

std::future<Fields> ref_rhs_async(const Problem& p, const Fields& q) {
  return std::async(std::launch::async, [&p, &q] {
    Fields r;
    RefBackend(p).rhs(q, kPlanCheckTime, r);
    return r;
  });
}

double max_relative_difference(const Fields& a, const Fields& ref) {
  // on all threads: states of gigabytes at the sizes searches run on
  double d = 0, m = 0;
  bool nan = false;
  const long long n = static_cast<long long>(a.q.size());
#pragma omp parallel for schedule(static) reduction(max : d, m) reduction(|| : nan)
  for (long long i = 0; i < n; ++i) {
    const double x = std::abs(a.q[i] - ref.q[i]);
    if (std::isnan(x)) nan = true;
    else d = std::max(d, x);
    m = std::max(m, std::abs(ref.q[i]));
  }
  if (nan) d = INFINITY;
  return m > 0 ? d / m : d;
}

std::string tuning_physics_key(const Problem& p, bool single) {
  const codegen::KernelSpec s = make_kernel_spec(p, single);
  codegen::ContentHash h;
  h.add("physics 1").add(s.flux.E_text).add(s.flux.H_text);
  for (const auto& e : s.exterior) h.add(e.E_text).add(e.H_text);
  h.add(s.current ? "J" : "-").add(s.incident ? "inc" : "-").add(s.exact ? "exact" : "-");
  // curved elements: their own kernel and its Q (added only then: the straight-sided keys stay as they were)
  if (s.curved_Nq > 0) h.add(fmt::format("curved {} {} {}", p.curved->count(), s.curved_Nq, s.curved_Nfq));
  return h.key().substr(0, 16);
}

codegen::TuningKey tuning_key(const Problem& p, bool single, const std::string& device) {
  codegen::TuningKey key;
  key.device = device;
  key.order = p.N;
  key.single = single;
  key.physics = tuning_physics_key(p, single);
  key.elements = p.K();
  return key;
}

}  // namespace dgmax
