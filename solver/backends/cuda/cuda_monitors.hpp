// Probes and DFT monitors of the cuda backend: weights, node lists and accumulators in device
// memory, kernels from codegen/emit/cuda_monitor_kernels (a module of their own, compiled on first
// use). A probe sample copies P*6 doubles back; a DFT step copies nothing.
#pragma once

#include <memory>
#include <vector>

#include "solver/backends/cuda/cuda_driver.hpp"

namespace dgmax {

class CudaMonitors {
 public:
  // `single`: the state is float; Np: nodes per element.
  CudaMonitors(cuda::Context& ctx, bool single, int Np) : ctx_(ctx), single_(single), Np_(Np) {}
  void probe_setup(const std::vector<int>& elements, const std::vector<double>& weights);  // [P], [P][Np]
  void probe_sample(cuda::DevicePtr q, std::vector<double>& out);                          // out: [P][6]
  int dft_add(const std::vector<long>& nodes, const std::vector<double>& frequencies);
  void dft_accumulate(cuda::DevicePtr q, double t, double dt);
  void dft_get(int set, std::vector<double>& re, std::vector<double>& im);  // [F][M][6]
  void dft_set(int set, const std::vector<double>& re, const std::vector<double>& im);

 private:
  cuda::Function function(const char* name);
  struct DftSet {
    long M = 0;
    int F = 0;
    cuda::DeviceBuffer nodes, frequencies, re, im;  // [M], [F], [F][M][6], [F][M][6]
  };
  DftSet& set_at(int set);

  cuda::Context& ctx_;
  bool single_;
  int Np_;
  std::unique_ptr<cuda::Module> module_;
  int probes_ = 0;
  cuda::DeviceBuffer probe_elements_, probe_weights_, probe_out_;  // [P], [P][Np], [P][6]
  std::vector<DftSet> dft_;
};

}  // namespace dgmax
