// The DFT of an incident field at one point, for the radar cross-section's normalization
// (near_to_far.hpp: sigma = 4 pi |F|² / |E_inc|²); run_monitors keeps one per DFT monitor.
#pragma once

#include <complex>
#include <nlohmann/json.hpp>
#include <vector>

#include "solver/mesh/mesh.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// The DFT of the incident electric field at one point over the run's steps, with the monitors'
// convention (surface_dft.hpp): X_c(f) += E_c(x0, t) exp(-i 2 pi f t) dt after each step. The RCS
// of a far-field pattern divides by |X(f)|² = sum_c |X_c(f)|² (near_to_far.hpp), so that the DFT's
// normalization and the pulse's spectrum cancel.
class IncidentDft {
 public:
  IncidentDft() = default;
  // `incident`: E, H (6 components; E is read); evaluated on the host at `at`, one point per step.
  IncidentDft(FieldFn incident, std::vector<double> frequencies, Vec3 at = {0, 0, 0});
  void accumulate(double t, double dt);
  // |X(f)| for frequency index f.
  double amplitude(size_t f) const;
  std::complex<double> component(size_t f, int c) const { return X_[f * 3 + static_cast<size_t>(c)]; }
  const std::vector<double>& frequencies() const { return freq_; }
  nlohmann::json to_json() const;
  // InternalError when `j` does not hold this many frequencies.
  void from_json(const nlohmann::json& j);

 private:
  FieldFn eval_;
  std::vector<double> freq_;
  Vec3 at_{};
  std::vector<std::complex<double>> X_;  // [F][3]
};

}  // namespace dgmax
