// Refusing a problem that does not fit in a device's memory, with a message a user can act on.
#pragma once

#include <cstddef>
#include <string>

namespace dgmax {

// Throws UserError when `need_bytes` exceed 95% of `free_bytes`: says how many DOF were requested,
// how much memory that needs and is free on `device`, and roughly how many DOF fit.
void check_device_memory(size_t need_bytes, size_t free_bytes, size_t dofs, const std::string& device);

}  // namespace dgmax
