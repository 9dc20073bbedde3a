// Small HDF5 helpers shared by the snapshot writer and the checkpoint files: errors collected
// instead of printed, and identifiers closed on scope exit.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace dgmax {

// HDF5 prints its error stack to stderr by default; while one lives, it is collected instead.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors();
  ~QuietHdf5Errors();
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Keeps HDF5 from closing the library at exit (H5dont_atexit); call before any other HDF5 call.
// HDF5 1.10 (Debian 12's) frees a file whose H5Fclose failed (a full disk, a file-size limit) but
// leaves its identifier registered, and the library's exit handler then closes it again: SIGSEGV
// after dgmax reported the failure (HDFGroup/hdf5 PR #2496, fixed in 1.14.1). Every file dgmax
// opens is closed before it exits, so the exit handler has nothing left to flush.
void skip_hdf5_shutdown_at_exit();

// The innermost (most specific) message of HDF5's current error stack, then clears it.
std::string hdf5_error_message();

// An HDF5 identifier closed on scope exit (errors on that path are ignored: callers close what
// they must check explicitly, after release()).
class H5Id {
 public:
  H5Id() = default;
  H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  H5Id& operator=(H5Id&& o) noexcept {
    reset();
    id_ = std::exchange(o.id_, -1);
    close_ = o.close_;
    return *this;
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  ~H5Id() { reset(); }
  hid_t get() const { return id_; }
  hid_t release() { return std::exchange(id_, -1); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

}  // namespace dgmax
