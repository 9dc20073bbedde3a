#include "solver/backends/cuda/cuda_monitors.hpp"

#include <algorithm>
#include <string>

#include "codegen/emit/cuda_monitor_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

cuda::Function CudaMonitors::function(const char* name) {
  if (!module_) {
    const codegen::NvrtcOptions opt = codegen::NvrtcOptions::for_kernels(ctx_.info().arch());
    const std::string what = std::string("dgmax_cuda_monitors_") + (single_ ? "fp32" : "fp64");
    module_ = std::make_unique<cuda::Module>(ctx_, codegen::nvrtc_compile(codegen::cuda_monitor_source(single_), what, opt),
                                             what);
  }
  return module_->function(name);
}

void CudaMonitors::probe_setup(const std::vector<int>& elements, const std::vector<double>& weights) {
  DGMAX_ASSERT(weights.size() == elements.size() * static_cast<size_t>(Np_), "probe weights are not [P][Np]");
  probes_ = static_cast<int>(elements.size());
  if (probes_ == 0) return;
  probe_elements_ = cuda::DeviceBuffer(ctx_, elements.size() * sizeof(int), "probe elements");
  probe_weights_ = cuda::DeviceBuffer(ctx_, weights.size() * sizeof(double), "probe weights");
  probe_out_ = cuda::DeviceBuffer(ctx_, elements.size() * 6 * sizeof(double), "probe samples");
  probe_elements_.upload(elements);
  probe_weights_.upload(weights);
}

void CudaMonitors::probe_sample(cuda::DevicePtr q, std::vector<double>& out) {
  out.assign(static_cast<size_t>(probes_) * 6, 0.0);
  if (probes_ == 0) return;
  int P = probes_, Np = Np_;
  cuda::DevicePtr el = probe_elements_.ptr(), w = probe_weights_.ptr(), o = probe_out_.ptr();
  void* args[] = {&P, &Np, &el, &w, &q, &o};
  cuda::launch(function("dgmax_probe_sample"), "dgmax_probe_sample", static_cast<unsigned>((6 * P + 127) / 128), 128, 0,
               args);
  probe_out_.download(out);  // synchronous: waits for the kernel
}

int CudaMonitors::dft_add(const std::vector<long>& nodes, const std::vector<double>& frequencies) {
  DftSet s;
  s.M = static_cast<long>(nodes.size());
  s.F = static_cast<int>(frequencies.size());
  const size_t n = static_cast<size_t>(s.M) * s.F * 6;
  s.nodes = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, nodes.size()) * sizeof(long), "DFT monitor nodes");
  s.frequencies = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, frequencies.size()) * sizeof(double), "DFT frequencies");
  s.re = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, n) * sizeof(double), "DFT accumulators (real part)");
  s.im = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, n) * sizeof(double), "DFT accumulators (imaginary part)");
  if (!nodes.empty()) s.nodes.upload(nodes);
  if (!frequencies.empty()) s.frequencies.upload(frequencies);
  s.re.zero();
  s.im.zero();
  dft_.push_back(std::move(s));
  return static_cast<int>(dft_.size()) - 1;
}

void CudaMonitors::dft_accumulate(cuda::DevicePtr q, double t, double dt) {
  for (DftSet& s : dft_) {
    const long threads = s.M * s.F;
    if (threads == 0) continue;
    long M = s.M;
    int F = s.F, Np = Np_;
    cuda::DevicePtr nodes = s.nodes.ptr(), freq = s.frequencies.ptr(), re = s.re.ptr(), im = s.im.ptr();
    void* args[] = {&M, &F, &Np, &nodes, &freq, &q, &t, &dt, &re, &im};
    cuda::launch(function("dgmax_dft_accumulate"), "dgmax_dft_accumulate", static_cast<unsigned>((threads + 255) / 256),
                 256, 0, args);
  }
}

CudaMonitors::DftSet& CudaMonitors::set_at(int set) {
  DGMAX_ASSERT(set >= 0 && set < static_cast<int>(dft_.size()), "no DFT set " + std::to_string(set));
  return dft_[static_cast<size_t>(set)];
}

void CudaMonitors::dft_get(int set, std::vector<double>& re, std::vector<double>& im) {
  DftSet& s = set_at(set);
  const size_t n = static_cast<size_t>(s.M) * s.F * 6;
  re.assign(n, 0.0);
  im.assign(n, 0.0);
  if (n == 0) return;
  s.re.download(re);
  s.im.download(im);
}

void CudaMonitors::dft_set(int set, const std::vector<double>& re, const std::vector<double>& im) {
  DftSet& s = set_at(set);
  const size_t n = static_cast<size_t>(s.M) * s.F * 6;
  DGMAX_ASSERT(re.size() == n && im.size() == n, "DFT accumulators are not [F][M][6]");
  if (n == 0) return;
  s.re.upload(re);
  s.im.upload(im);
}

}  // namespace dgmax
