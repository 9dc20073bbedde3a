#include "solver/io/hdf5_util.hpp"

#include <algorithm>

namespace dgmax {

QuietHdf5Errors::QuietHdf5Errors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5Errors::~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

void skip_hdf5_shutdown_at_exit() { H5dont_atexit(); }

std::string hdf5_error_message() {
  std::string msg;
  auto walk = [](unsigned, const H5E_error2_t* e, void* client) -> herr_t {
    auto* out = static_cast<std::string*>(client);
    if (out->empty() && e && e->desc && e->desc[0]) {
      *out = e->desc;
      // "file write failed: time = <date>\n, filename = ..., errno = 27, error message = 'File too
      // large', buf = ...": the system's message is the one that says something to the user
      const std::string text = *out, tag = "error message = '";
      // ("unable to extend file properly, errno = 27, error message = ...": no colon)
      const auto m = text.find(tag);
      const auto end = m == std::string::npos ? m : text.find('\'', m + tag.size());
      const auto head = std::min(text.find(": "), text.find(", "));
      if (end != std::string::npos && head < m)
        *out = text.substr(0, head) + ": " + text.substr(m + tag.size(), end - m - tag.size());
    }
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg;
}

}  // namespace dgmax
