#include "solver/physics/space_time_field.hpp"

#include <cmath>

#include "solver/physics/norms.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

SpaceTimeField make_space_time_field(std::vector<dsl::ScalarFunction> comps, std::vector<dsl::ExprSource> sources,
                                     std::vector<std::string> names, const std::map<std::string, double>& constants) {
  SpaceTimeField f;
  f.lowered = codegen::lower_field(sources, constants);
  f.eval = [comps = std::move(comps)](size_t n, const double* x, const double* y, const double* z, double t,
                                      double* const* out) {
    std::vector<double> tt(n, t);
    const double* vars[4] = {x, y, z, tt.data()};
    for (size_t c = 0; c < comps.size(); ++c) comps[c].eval_batch(n, vars, out[c]);
  };
  f.names = std::move(names);
  f.sources = std::move(sources);
  return f;
}

SpaceTimeField space_time_field_from_text(const std::vector<std::string>& texts, const std::string& what,
                                          const std::map<std::string, double>& constants) {
  dsl::ScalarContext ctx;
  ctx.variables = {"x", "y", "z", "t"};
  ctx.constants = constants;
  std::vector<dsl::ScalarFunction> comps;
  std::vector<dsl::ExprSource> sources;
  std::vector<std::string> names;
  for (size_t c = 0; c < texts.size(); ++c) {
    sources.push_back({texts[c], {}});
    names.push_back(what + "[" + std::to_string(c) + "]");
    comps.push_back(dsl::compile_scalar(sources.back(), ctx));
  }
  return make_space_time_field(std::move(comps), std::move(sources), std::move(names), constants);
}

void throw_nonfinite_initial(const Problem& p, size_t flat_index, double value) {
  const size_t Np = static_cast<size_t>(p.Np());
  const size_t k = flat_index / (6 * Np), c = flat_index / Np % 6, i = flat_index % Np;
  const size_t n = k * Np + i;
  const std::string where = "(x, y, z) = (" + fmt_g(p.xyz.x[n]) + ", " + fmt_g(p.xyz.y[n]) + ", " +
                            fmt_g(p.xyz.z[n]) + ")";
  const std::string what = std::isnan(value) ? "NaN" : "infinite";
  const std::string hint = "check for the square root or logarithm of a negative number, or a division by zero";
  if (c < p.initial.sources.size())
    throw dsl::error_at(p.initial.sources[c], 0, "'" + p.initial.names[c] + "' is " + what + " at " + where, hint);
  throw UserError("initial field component " + std::to_string(c) + " is " + what + " at " + where, {}, hint);
}

Fields interpolate_initial(const Problem& p) {
  Fields q(p.K(), p.Np());
  if (!p.initial) return q;
  interpolate(p, p.initial.eval, 0.0, q);
  for (size_t n = 0; n < q.q.size(); ++n)
    if (!std::isfinite(q.q[n])) throw_nonfinite_initial(p, n, q.q[n]);
  return q;
}

}  // namespace dgmax
