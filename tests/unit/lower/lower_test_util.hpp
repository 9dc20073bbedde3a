// Helpers for the lowering tests: expression sources, catching UserErrors, random face-node
// inputs, and the built-ins lowered.
#pragma once

#include "expect_user_error.hpp"
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codegen/dsl/expr_source.hpp"
#include "codegen/lower/flux_inputs.hpp"
#include "codegen/lower/flux_library.hpp"
#include "codegen/lower/flux_lowering.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen::test {

// An expression without a file location (the message quotes it; the caret is offset + 1).
inline dsl::ExprSource plain(const std::string& text) { return dsl::ExprSource{text, {}}; }

// The YAML line `    E: "<text>"` at line 12 of config.yaml; the value starts at column 9.
inline constexpr int kYamlColumn = 9;
inline dsl::ExprSource in_yaml(const std::string& text) {
  return dsl::ExprSource{text, SourceLocation{"config.yaml", 12, kYamlColumn, "    E: \"" + text + "\""}};
}

using dgmax::test::expect_user_error;

inline FluxScope flux_scope(std::map<std::string, double> constants = {}) {
  FluxScope s;
  s.context = FluxContext::Flux;
  s.constants = std::move(constants);
  return s;
}
inline FluxScope exterior_scope(std::map<std::string, double> constants = {}) {
  FluxScope s;
  s.context = FluxContext::Exterior;
  s.constants = std::move(constants);
  return s;
}

inline LoweredFlux lower_text(const std::string& E, const std::string& H, const FluxScope& scope) {
  return lower_flux(plain(E), plain(H), scope);
}
inline LoweredFlux lower_builtin_flux(const std::string& name, double alpha = 0.5) {
  const FluxText* f = builtin_flux(name);
  EXPECT_NE(f, nullptr) << name;
  return lower_text(f->E, f->H, flux_scope({{"alpha", alpha}}));
}
inline LoweredFlux lower_builtin_exterior(const std::string& name) {
  const FluxText* f = builtin_exterior_state(name);
  EXPECT_NE(f, nullptr) << name;
  return lower_text(f->E, f->H, exterior_scope());
}

// Physically consistent random inputs: fields in [-1, 1], a random unit normal, eps, mu in
// [1, 5], Z = sqrt(mu/eps), Y = 1/Z on both sides, incident fields in [-1, 1].
inline std::vector<double> random_inputs(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1), m(1, 5);
  std::vector<double> in(kNumFluxInputs);
  for (int i = 0; i < 12; ++i) in[i] = u(rng);
  double nn = 0;
  do {
    nn = 0;
    for (int i = 0; i < 3; ++i) {
      in[kNormal + i] = u(rng);
      nn += in[kNormal + i] * in[kNormal + i];
    }
  } while (nn < 0.01 || nn > 1);
  for (int i = 0; i < 3; ++i) in[kNormal + i] /= std::sqrt(nn);
  in[kEpsInt] = m(rng);
  in[kEpsExt] = m(rng);
  in[kMuInt] = m(rng);
  in[kMuExt] = m(rng);
  in[kZInt] = std::sqrt(in[kMuInt] / in[kEpsInt]);
  in[kZExt] = std::sqrt(in[kMuExt] / in[kEpsExt]);
  in[kYInt] = 1 / in[kZInt];
  in[kYExt] = 1 / in[kZExt];
  for (int i = 0; i < 6; ++i) in[kEinc + i] = u(rng);
  return in;
}

inline std::vector<double> eval(const ScalarDag& dag, const std::vector<double>& in) {
  std::vector<double> out(dag.outputs.size()), scratch(dag.nodes().size());
  evaluate(dag, in.data(), out.data(), scratch.data());
  return out;
}

}  // namespace dgmax::codegen::test
