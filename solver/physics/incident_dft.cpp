#include "solver/physics/incident_dft.hpp"

#include <cmath>
#include <string>

#include "solver/util/error.hpp"

namespace dgmax {

IncidentDft::IncidentDft(FieldFn incident, std::vector<double> frequencies, Vec3 at)
    : eval_(std::move(incident)), freq_(std::move(frequencies)), at_(at), X_(freq_.size() * 3) {}

void IncidentDft::accumulate(double t, double dt) {
  double v[6];
  double* out[6] = {&v[0], &v[1], &v[2], &v[3], &v[4], &v[5]};
  eval_(1, &at_[0], &at_[1], &at_[2], t, out);
  for (size_t f = 0; f < freq_.size(); ++f) {
    const double ph = -2 * M_PI * freq_[f] * t;
    const std::complex<double> w(std::cos(ph) * dt, std::sin(ph) * dt);
    for (size_t c = 0; c < 3; ++c) X_[f * 3 + c] += v[c] * w;
  }
}

double IncidentDft::amplitude(size_t f) const {
  return std::sqrt(std::norm(X_[f * 3]) + std::norm(X_[f * 3 + 1]) + std::norm(X_[f * 3 + 2]));
}

nlohmann::json IncidentDft::to_json() const {
  std::vector<double> re, im;
  for (const auto& x : X_) re.push_back(x.real()), im.push_back(x.imag());
  return {{"re", re}, {"im", im}};
}

void IncidentDft::from_json(const nlohmann::json& j) {
  const auto re = j.at("re").get<std::vector<double>>(), im = j.at("im").get<std::vector<double>>();
  if (re.size() != X_.size() || im.size() != X_.size())
    throw InternalError("checkpoint: incident DFT of " + std::to_string(re.size()) + " values, expected " +
                        std::to_string(X_.size()));
  for (size_t i = 0; i < X_.size(); ++i) X_[i] = {re[i], im[i]};
}

}  // namespace dgmax
