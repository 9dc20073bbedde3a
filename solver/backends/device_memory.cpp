#include "solver/backends/device_memory.hpp"

#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

void check_device_memory(size_t need_bytes, size_t free_bytes, size_t dofs, const std::string& device) {
  if (need_bytes <= 0.95 * static_cast<double>(free_bytes)) return;
  const double per_dof = static_cast<double>(need_bytes) / static_cast<double>(dofs);
  throw UserError("the problem needs about " + fmt_g(need_bytes / 1e9) + " GB of GPU memory (" +
                      std::to_string(dofs) + " DOF), but only " + fmt_g(free_bytes / 1e9) + " GB are free on " +
                      device,
                  {}, "about " + fmt_g(0.9 * static_cast<double>(free_bytes) / per_dof) +
                          " DOF fit: use a coarser mesh, a lower order or precision: single");
}

}  // namespace dgmax
