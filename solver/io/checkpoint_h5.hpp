// The HDF5 pieces of checkpoint files (checkpoint.hpp: one-rank files and the records of a set;
// checkpoint_piece.hpp: a rank's piece of a set): every call checked, with a UserError naming the
// file, and datasets chunked with Fletcher-32 checksums so that corruption fails the read.
#pragma once

#include <hdf5.h>

#include <functional>
#include <string>
#include <vector>

#include "solver/io/hdf5_util.hpp"
#include "solver/physics/fields.hpp"

namespace dgmax {

// Every HDF5 call goes through check(): a negative result becomes a UserError naming the file, the
// call and the object, with HDF5's message. `writing` chooses the message and its hint.
class CheckpointH5 {
 public:
  CheckpointH5(std::string path, bool writing) : path_(std::move(path)), writing_(writing) {}

  [[noreturn]] void fail(const std::string& what) const;

  template <class T>
  T check(T result, const char* call, const std::string& object = {}) const {
    if (result < 0) fail_call(call, object);
    return result;
  }

  void string_attr(hid_t obj, const std::string& name, const std::string& value) const;
  void int_attr(hid_t obj, const std::string& name, long long value) const;
  void double_attr(hid_t obj, const std::string& name, double value) const;
  std::string read_string_attr(hid_t obj, const std::string& name) const;
  long long read_int_attr(hid_t obj, const std::string& name) const;
  double read_double_attr(hid_t obj, const std::string& name) const;

  // An existing dataset or link (H5Lexists).
  bool has(hid_t f, const std::string& name) const;

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail_call(const char* call, const std::string& object) const;
  void attr(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* value) const;
  H5Id string_type(const std::string& object) const;
  H5Id open_scalar_attr(hid_t obj, const std::string& name, H5T_class_t cls) const;

  std::string path_;
  bool writing_;
};

// Writes the HDF5 file `path` whole or not at all: `body` fills a new file under a temporary name,
// which is closed and renamed into place durably (commit_temp_file_now); on failure the temporary
// file is removed and the error goes on.
void write_checkpoint_file(const std::string& path, const std::function<void(const CheckpointH5& w, hid_t f)>& body);
// The HDF5 file r.path() opened for reading; r.fail("no such file" + missing_note) when there is
// none, "not an HDF5 file" when it is something else.
H5Id open_checkpoint_file(const CheckpointH5& r, const std::string& missing_note = {});

// True when every value is exactly a float (bitwise: the float widened again is the same double).
bool all_exact_floats(const std::vector<double>& v);

// [K][6][Np] fields (about 1 MiB per chunk), as float32 when `as_float` (exact: the caller checked
// with all_exact_floats), else float64; `long_name` is stored as an attribute.
void write_checkpoint_fields(const CheckpointH5& w, hid_t f, const std::string& name, const Fields& q, bool as_float,
                             const std::string& long_name);
// Reads [K][6][Np] after checking the shape and the type (float32 or float64, widened exactly)
// and that every chunk is there.
Fields read_checkpoint_fields(const CheckpointH5& r, hid_t f, const std::string& name, int K, int Np);

// Text as a uint8 dataset (attributes are limited to 64 KiB); reading: fails when missing.
void write_checkpoint_bytes(const CheckpointH5& w, hid_t f, const std::string& name, const std::string& text);
std::string read_checkpoint_bytes(const CheckpointH5& r, hid_t f, const std::string& name);

// Flat float64 / int64 arrays, chunked and checksummed. Reading: empty when the dataset is absent.
void write_checkpoint_doubles(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<double>& v,
                              const std::string& long_name);
std::vector<double> read_checkpoint_doubles(const CheckpointH5& r, hid_t f, const std::string& name);
void write_checkpoint_ints(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<long long>& v,
                           const std::string& long_name);
std::vector<long long> read_checkpoint_ints(const CheckpointH5& r, hid_t f, const std::string& name);

}  // namespace dgmax
