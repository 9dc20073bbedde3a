// A backend whose state lives in host memory (ref, cpu): probes and DFT monitors as plain loops
// over the probe points and monitored nodes of that state (OpenMP when there are many nodes).
#pragma once

#include <vector>

#include "solver/backends/backend.hpp"
#include "solver/physics/dft_monitor.hpp"

namespace dgmax {

template <class Real>
class HostStateBackend : public Backend {
 public:
  void probe_setup(const std::vector<int>& elements, const std::vector<double>& weights) override {
    DGMAX_ASSERT(weights.size() == elements.size() * static_cast<size_t>(host_Np()), "probe weights are not [P][Np]");
    probe_elements_ = elements;
    probe_weights_ = weights;
  }
  void probe_sample(std::vector<double>& out) override {
    const Real* q = host_state();
    const int Np = host_Np();
    out.assign(probe_elements_.size() * 6, 0.0);
    for (size_t p = 0; p < probe_elements_.size(); ++p)
      for (int c = 0; c < 6; ++c) {
        const Real* u = q + (static_cast<size_t>(probe_elements_[p]) * 6 + c) * Np;
        double sum = 0;
        for (int i = 0; i < Np; ++i) sum += probe_weights_[p * Np + i] * static_cast<double>(u[i]);
        out[p * 6 + c] = sum;
      }
  }
  int dft_add(const std::vector<long>& nodes, const std::vector<double>& frequencies) override {
    const size_t n = nodes.size() * frequencies.size() * 6;
    dft_.push_back({nodes, frequencies, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)});
    return static_cast<int>(dft_.size()) - 1;
  }
  void dft_accumulate(double t, double dt) override {
    for (DftSet& s : dft_) accumulate_dft(host_state(), host_Np(), s.nodes, s.frequencies, t, dt, s.re.data(), s.im.data());
  }
  void dft_get(int set, std::vector<double>& re, std::vector<double>& im) override {
    re = dft_.at(set).re;
    im = dft_.at(set).im;
  }
  void dft_set(int set, const std::vector<double>& re, const std::vector<double>& im) override {
    DftSet& s = dft_.at(set);
    DGMAX_ASSERT(re.size() == s.re.size() && im.size() == s.im.size(), "DFT accumulators are not [F][M][6]");
    s.re = re;
    s.im = im;
  }

 protected:
  virtual const Real* host_state() const = 0;  // [K][6][Np]
  virtual int host_Np() const = 0;

 private:
  struct DftSet {
    std::vector<long> nodes;          // [M]
    std::vector<double> frequencies;  // [F]
    std::vector<double> re, im;       // [F][M][6]
  };
  std::vector<int> probe_elements_;     // [P]
  std::vector<double> probe_weights_;   // [P][Np]
  std::vector<DftSet> dft_;
};

}  // namespace dgmax
