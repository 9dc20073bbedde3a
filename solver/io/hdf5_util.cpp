#include "solver/io/hdf5_util.hpp"

namespace dgmax {

QuietHdf5Errors::QuietHdf5Errors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5Errors::~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

std::string hdf5_error_message() {
  std::string msg;
  auto walk = [](unsigned, const H5E_error2_t* e, void* client) -> herr_t {
    auto* out = static_cast<std::string*>(client);
    if (out->empty() && e && e->desc && e->desc[0]) {
      *out = e->desc;
      // "..., error message = 'No space left on device', flags = 13, o_flags = 242": drop flags
      if (const auto p = out->find(", flags = "); p != std::string::npos) out->erase(p);
    }
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg;
}

}  // namespace dgmax
