#include "solver/io/checkpoint.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <limits>
#include <regex>
#include <utility>

#include "solver/io/atomic_write.hpp"
#include "solver/io/hdf5_util.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "dgmax-checkpoint";
constexpr long long kFormatVersion = 1;

// Every HDF5 call goes through check(): a negative result becomes a UserError naming the file, the
// call and the object, with HDF5's message.
class H5File {
 public:
  H5File(std::string path, bool writing) : path_(std::move(path)), writing_(writing) {}

  [[noreturn]] void fail(const std::string& what) const {
    if (writing_)
      throw UserError("cannot write checkpoint '" + path_ + "': " + what, {},
                      "check that the checkpoint directory is writable and the disk is not full");
    throw UserError("cannot read checkpoint '" + path_ + "': " + what, {},
                    "the file is damaged or not a dgmax checkpoint: remove it to restart from the one before");
  }

  template <class T>
  T check(T result, const char* call, const std::string& object = {}) const {
    if (result < 0) {
      const std::string why = hdf5_error_message();
      fail(std::string(call) + (object.empty() ? std::string() : "(\"" + object + "\")") + " failed" +
           (why.empty() ? std::string() : ": " + why));
    }
    return result;
  }

  H5Id scalar_space(const std::string& object) const {
    return H5Id(check(H5Screate(H5S_SCALAR), "H5Screate", object), H5Sclose);
  }

  void attr(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* value) const {
    H5Id sp = scalar_space(name);
    H5Id a(check(H5Acreate2(obj, name.c_str(), file_type, sp.get(), H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2", name),
           H5Aclose);
    check(H5Awrite(a.get(), mem_type, value), "H5Awrite", name);
  }
  H5Id string_type(const std::string& object) const {
    H5Id t(check(H5Tcopy(H5T_C_S1), "H5Tcopy", object), H5Tclose);
    check(H5Tset_size(t.get(), H5T_VARIABLE), "H5Tset_size", object);
    check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "H5Tset_cset", object);
    return t;
  }
  void string_attr(hid_t obj, const std::string& name, const std::string& value) const {
    H5Id t = string_type(name);
    const char* s = value.c_str();
    attr(obj, name, t.get(), t.get(), &s);
  }
  void int_attr(hid_t obj, const std::string& name, long long value) const {
    attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
  }
  void double_attr(hid_t obj, const std::string& name, double value) const {
    attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }

  // A scalar attribute opened after checking that it exists, is scalar and of `cls`.
  H5Id open_scalar_attr(hid_t obj, const std::string& name, H5T_class_t cls) const {
    if (check(H5Aexists(obj, name.c_str()), "H5Aexists", name) <= 0) fail("attribute '" + name + "' is missing");
    H5Id a(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
    H5Id sp(check(H5Aget_space(a.get()), "H5Aget_space", name), H5Sclose);
    H5Id t(check(H5Aget_type(a.get()), "H5Aget_type", name), H5Tclose);
    if (check(H5Sget_simple_extent_type(sp.get()), "H5Sget_simple_extent_type", name) != H5S_SCALAR ||
        check(H5Tget_class(t.get()), "H5Tget_class", name) != cls)
      fail("attribute '" + name + "' has the wrong type or shape");
    return a;
  }
  std::string read_string_attr(hid_t obj, const std::string& name) const {
    H5Id a = open_scalar_attr(obj, name, H5T_STRING);
    H5Id ft(check(H5Aget_type(a.get()), "H5Aget_type", name), H5Tclose);
    if (check(H5Tis_variable_str(ft.get()), "H5Tis_variable_str", name) <= 0)
      fail("attribute '" + name + "' is not a variable-length string");
    H5Id t = string_type(name);
    char* s = nullptr;
    check(H5Aread(a.get(), t.get(), &s), "H5Aread", name);
    std::string out = s ? s : "";
    if (s) H5free_memory(s);
    return out;
  }
  long long read_int_attr(hid_t obj, const std::string& name) const {
    H5Id a = open_scalar_attr(obj, name, H5T_INTEGER);
    long long v = 0;
    check(H5Aread(a.get(), H5T_NATIVE_LLONG, &v), "H5Aread", name);
    return v;
  }
  double read_double_attr(hid_t obj, const std::string& name) const {
    H5Id a = open_scalar_attr(obj, name, H5T_FLOAT);
    double v = 0;
    check(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v), "H5Aread", name);
    return v;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool writing_;
};

// True when every value is exactly a float (bitwise: the float widened again is the same double).
bool all_exact_floats(const std::vector<double>& v) {
  for (const double x : v) {
    const double y = static_cast<double>(static_cast<float>(x));
    if (std::memcmp(&x, &y, sizeof(double)) != 0) return false;
  }
  return true;
}

// /q or /res: [K][6][Np], chunked (about 1 MiB per chunk) with Fletcher-32 checksums.
void write_fields(const H5File& w, hid_t f, const std::string& name, const Fields& q, bool as_float,
                  const std::string& long_name) {
  const hsize_t dims[3] = {static_cast<hsize_t>(q.K), kNumComponents, static_cast<hsize_t>(q.Np)};
  const size_t elem = as_float ? sizeof(float) : sizeof(double);
  const hsize_t per_element = static_cast<hsize_t>(kNumComponents) * q.Np * elem;
  const hsize_t chunk_k = std::clamp<hsize_t>((hsize_t(1) << 20) / per_element, 1, dims[0]);
  const hsize_t chunk[3] = {chunk_k, dims[1], dims[2]};
  H5Id sp(w.check(H5Screate_simple(3, dims, nullptr), "H5Screate_simple", name), H5Sclose);
  H5Id dcpl(w.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", name), H5Pclose);
  w.check(H5Pset_chunk(dcpl.get(), 3, chunk), "H5Pset_chunk", name);
  w.check(H5Pset_fletcher32(dcpl.get()), "H5Pset_fletcher32", name);
  const hid_t file_type = as_float ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  H5Id ds(w.check(H5Dcreate2(f, name.c_str(), file_type, sp.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), "H5Dcreate2",
                  name),
          H5Dclose);
  if (as_float) {
    const std::vector<float> tmp(q.q.begin(), q.q.end());
    w.check(H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp.data()), "H5Dwrite", name);
  } else {
    w.check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q.q.data()), "H5Dwrite", name);
  }
  w.string_attr(ds.get(), "long_name", long_name);
}

// /progress: the caller's text as bytes (a dataset: attributes are limited to 64 KiB).
void write_bytes(const H5File& w, hid_t f, const std::string& name, const std::string& text) {
  const hsize_t n = text.size();
  H5Id sp(w.check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple", name), H5Sclose);
  H5Id ds(w.check(H5Dcreate2(f, name.c_str(), H5T_STD_U8LE, sp.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  "H5Dcreate2", name),
          H5Dclose);
  if (n > 0) w.check(H5Dwrite(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "H5Dwrite", name);
}

std::string read_bytes(const H5File& r, hid_t f, const std::string& name) {
  if (r.check(H5Lexists(f, name.c_str(), H5P_DEFAULT), "H5Lexists", name) <= 0) r.fail("dataset '" + name + "' is missing");
  H5Id ds(r.check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  H5Id sp(r.check(H5Dget_space(ds.get()), "H5Dget_space", name), H5Sclose);
  if (r.check(H5Sget_simple_extent_ndims(sp.get()), "H5Sget_simple_extent_ndims", name) != 1)
    r.fail("dataset '" + name + "' is not one-dimensional");
  hsize_t n = 0;
  r.check(H5Sget_simple_extent_dims(sp.get(), &n, nullptr), "H5Sget_simple_extent_dims", name);
  if (n > (hsize_t(1) << 31)) r.fail("dataset '" + name + "' is implausibly large");
  std::string text(n, '\0');
  if (n > 0) r.check(H5Dread(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "H5Dread", name);
  return text;
}

// /aux: a flat float64 array (the PML's auxiliary state), chunked with Fletcher-32 checksums.
void write_doubles(const H5File& w, hid_t f, const std::string& name, const std::vector<double>& v,
                   const std::string& long_name) {
  const hsize_t n = v.size(), chunk = std::clamp<hsize_t>(n, 1, hsize_t(1) << 17);
  H5Id sp(w.check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple", name), H5Sclose);
  H5Id dcpl(w.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", name), H5Pclose);
  w.check(H5Pset_chunk(dcpl.get(), 1, &chunk), "H5Pset_chunk", name);
  w.check(H5Pset_fletcher32(dcpl.get()), "H5Pset_fletcher32", name);
  H5Id ds(w.check(H5Dcreate2(f, name.c_str(), H5T_IEEE_F64LE, sp.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), "H5Dcreate2",
                  name),
          H5Dclose);
  w.check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "H5Dwrite", name);
  w.string_attr(ds.get(), "long_name", long_name);
}

// An optional flat float64 dataset (empty when absent).
std::vector<double> read_doubles(const H5File& r, hid_t f, const std::string& name) {
  if (r.check(H5Lexists(f, name.c_str(), H5P_DEFAULT), "H5Lexists", name) <= 0) return {};
  H5Id ds(r.check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  H5Id sp(r.check(H5Dget_space(ds.get()), "H5Dget_space", name), H5Sclose);
  H5Id t(r.check(H5Dget_type(ds.get()), "H5Dget_type", name), H5Tclose);
  if (r.check(H5Sget_simple_extent_ndims(sp.get()), "H5Sget_simple_extent_ndims", name) != 1)
    r.fail("dataset '" + name + "' is not one-dimensional");
  if (r.check(H5Tget_class(t.get()), "H5Tget_class", name) != H5T_FLOAT || H5Tget_size(t.get()) != 8)
    r.fail("dataset '" + name + "' is not float64");
  hsize_t n = 0;
  r.check(H5Sget_simple_extent_dims(sp.get(), &n, nullptr), "H5Sget_simple_extent_dims", name);
  if (n > (hsize_t(1) << 34)) r.fail("dataset '" + name + "' is implausibly large");
  std::vector<double> v(n);
  if (H5Dget_storage_size(ds.get()) < n * sizeof(double)) r.fail("dataset '" + name + "' is incomplete");
  if (n > 0) r.check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "H5Dread", name);
  return v;
}

// Reads /q or /res after checking its shape against K and Np (from the attributes, which are
// checked against each other before) and its type; the values are read in the stored precision
// and widened exactly.
Fields read_fields(const H5File& r, hid_t f, const std::string& name, int K, int Np) {
  if (r.check(H5Lexists(f, name.c_str(), H5P_DEFAULT), "H5Lexists", name) <= 0) r.fail("dataset '" + name + "' is missing");
  H5Id ds(r.check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  H5Id sp(r.check(H5Dget_space(ds.get()), "H5Dget_space", name), H5Sclose);
  H5Id t(r.check(H5Dget_type(ds.get()), "H5Dget_type", name), H5Tclose);
  const int rank = r.check(H5Sget_simple_extent_ndims(sp.get()), "H5Sget_simple_extent_ndims", name);
  hsize_t dims[3] = {0, 0, 0};
  if (rank == 3) r.check(H5Sget_simple_extent_dims(sp.get(), dims, nullptr), "H5Sget_simple_extent_dims", name);
  if (rank != 3 || dims[0] != static_cast<hsize_t>(K) || dims[1] != kNumComponents || dims[2] != static_cast<hsize_t>(Np))
    r.fail("dataset '" + name + "' is not [K][6][Np] = [" + std::to_string(K) + "][6][" + std::to_string(Np) + "]" +
           (rank == 3 ? " (it is [" + std::to_string(dims[0]) + "][" + std::to_string(dims[1]) + "][" +
                            std::to_string(dims[2]) + "])"
                      : " (it has " + std::to_string(rank) + " dimensions)"));
  const size_t size = H5Tget_size(t.get());  // 0 on error
  if (r.check(H5Tget_class(t.get()), "H5Tget_class", name) != H5T_FLOAT || (size != 4 && size != 8))
    r.fail("dataset '" + name + "' is not float32 or float64");
  Fields q(K, Np);
  // every chunk must be there (a missing one would read as fill values, not as the saved state)
  if (H5Dget_storage_size(ds.get()) < q.q.size() * size) r.fail("dataset '" + name + "' is incomplete");
  if (size == 4) {
    std::vector<float> tmp(q.q.size());
    r.check(H5Dread(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp.data()), "H5Dread", name);
    for (size_t i = 0; i < tmp.size(); ++i) q.q[i] = static_cast<double>(tmp[i]);
  } else {
    r.check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q.q.data()), "H5Dread", name);
  }
  return q;
}

// checkpoint_<digits>.h5 → step; -1 for any other name.
long long step_of(const std::string& filename) {
  static const std::regex re("checkpoint_([0-9]{1,18})\\.h5");
  std::smatch m;
  if (!std::regex_match(filename, m, re)) return -1;
  return std::stoll(m[1].str());
}

std::vector<std::pair<long long, std::string>> checkpoints_in(const std::string& dir) {
  std::vector<std::pair<long long, std::string>> out;
  std::error_code ec;
  const fs::path d = dir.empty() ? fs::path(".") : fs::path(dir);
  fs::directory_iterator it(d, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const long long s = step_of(it->path().filename().string());
    std::error_code ec2;
    if (s >= 0 && it->is_regular_file(ec2)) out.emplace_back(s, it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string shortest(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

long long expected_np(long long N) { return (N + 1) * (N + 2) * (N + 3) / 6; }

}  // namespace

std::string checkpoint_path(const std::string& dir, long long step) {
  char name[64];
  std::snprintf(name, sizeof(name), "checkpoint_%012lld.h5", step);
  return (fs::path(dir.empty() ? "." : dir) / name).string();
}

std::string write_checkpoint(const std::string& dir, const Checkpoint& c) {
  const CheckpointIdentity& id = c.id;
  DGMAX_ASSERT(c.step >= 0, "negative checkpoint step");
  DGMAX_ASSERT(id.K > 0 && id.K <= std::numeric_limits<int>::max() && id.Np > 0, "checkpoint K / Np out of range");
  const size_t n = static_cast<size_t>(id.K) * kNumComponents * id.Np;
  DGMAX_ASSERT(c.q.K == id.K && c.q.Np == id.Np && c.q.q.size() == n, "checkpoint state does not match K and Np");
  DGMAX_ASSERT(c.res.K == id.K && c.res.Np == id.Np && c.res.q.size() == n,
               "checkpoint residual does not match K and Np");
  ensure_writable_directory(dir);
  const std::string path = checkpoint_path(dir, c.step);
  const bool as_float = id.precision == "single" && all_exact_floats(c.q.q) && all_exact_floats(c.res.q);

  const std::string tmp = temp_path_for(path);
  QuietHdf5Errors quiet;
  const H5File w(path, true);
  try {
    H5Id file(w.check(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate", tmp), H5Fclose);
    const hid_t f = file.get();
    w.string_attr(f, "format", kFormat);
    w.int_attr(f, "format_version", kFormatVersion);
    w.string_attr(f, "dgmax_version", id.dgmax_version);
    w.string_attr(f, "config_hash", id.config_hash);
    w.string_attr(f, "mesh_fingerprint", id.mesh_fingerprint);
    w.string_attr(f, "backend", id.backend);
    w.string_attr(f, "precision", id.precision);
    w.int_attr(f, "K", id.K);
    w.int_attr(f, "N", id.N);
    w.int_attr(f, "Np", id.Np);
    w.double_attr(f, "dt", id.dt);
    w.double_attr(f, "t_final", id.t_final);
    w.int_attr(f, "step", c.step);
    w.double_attr(f, "time", c.time);
    write_fields(w, f, "q", c.q, as_float, "state [K][6][Np] (Ex Ey Ez Hx Hy Hz)");
    write_fields(w, f, "res", c.res, as_float, "LSERK4 residual [K][6][Np]");
    write_bytes(w, f, "progress", c.progress);
    if (!c.aux.empty()) write_doubles(w, f, "aux", c.aux, "PML auxiliary fields and their LSERK4 residual");
    w.check(H5Fclose(file.release()), "H5Fclose", tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file_now(tmp, path);  // not deferred: older checkpoints are deleted next

  // Keep this one and the newest older one.
  const auto all = checkpoints_in(dir);
  bool kept_older = false;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->first == c.step) continue;
    if (it->first < c.step && !kept_older) {
      kept_older = true;
      continue;
    }
    std::error_code ec;
    fs::remove(it->second, ec);  // best effort: a left-over only costs disk space
  }
  return path;
}

Checkpoint read_checkpoint(const std::string& path) {
  QuietHdf5Errors quiet;
  const H5File r(path, false);
  {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) r.fail("no such file");
  }
  if (r.check(H5Fis_hdf5(path.c_str()), "H5Fis_hdf5") <= 0) r.fail("not an HDF5 file");
  H5Id file(r.check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen"), H5Fclose);
  const hid_t f = file.get();
  if (r.read_string_attr(f, "format") != kFormat) r.fail("not a dgmax checkpoint (format is not '" + std::string(kFormat) + "')");
  if (const long long v = r.read_int_attr(f, "format_version"); v != kFormatVersion)
    r.fail("checkpoint format version " + std::to_string(v) + " is not supported (this build reads version " +
           std::to_string(kFormatVersion) + ")");
  Checkpoint c;
  CheckpointIdentity& id = c.id;
  id.dgmax_version = r.read_string_attr(f, "dgmax_version");
  id.config_hash = r.read_string_attr(f, "config_hash");
  id.mesh_fingerprint = r.read_string_attr(f, "mesh_fingerprint");
  id.backend = r.read_string_attr(f, "backend");
  id.precision = r.read_string_attr(f, "precision");
  const long long K = r.read_int_attr(f, "K"), N = r.read_int_attr(f, "N"), Np = r.read_int_attr(f, "Np");
  if (K <= 0 || K > std::numeric_limits<int>::max()) r.fail("element count K = " + std::to_string(K) + " is out of range");
  if (N < 0 || N > 64) r.fail("order N = " + std::to_string(N) + " is out of range");
  if (Np != expected_np(N))
    r.fail("Np = " + std::to_string(Np) + " does not match order N = " + std::to_string(N) + " (expected " +
           std::to_string(expected_np(N)) + ")");
  id.K = K;
  id.N = static_cast<int>(N);
  id.Np = static_cast<int>(Np);
  id.dt = r.read_double_attr(f, "dt");
  id.t_final = r.read_double_attr(f, "t_final");
  c.step = r.read_int_attr(f, "step");
  if (c.step < 0) r.fail("step " + std::to_string(c.step) + " is negative");
  c.time = r.read_double_attr(f, "time");
  c.q = read_fields(r, f, "q", static_cast<int>(K), id.Np);
  c.res = read_fields(r, f, "res", static_cast<int>(K), id.Np);
  c.progress = read_bytes(r, f, "progress");
  c.aux = read_doubles(r, f, "aux");
  r.check(H5Fclose(file.release()), "H5Fclose");
  return c;
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& [step, path] : checkpoints_in(dir)) out.push_back(path);
  return out;
}

Checkpoint read_latest_checkpoint(const std::string& dir, std::ostream& warnings, std::string* path_out) {
  const std::string shown = dir.empty() ? std::string(".") : dir;
  std::error_code ec;
  if (!fs::is_directory(shown, ec))
    throw UserError("cannot restart: checkpoint directory '" + shown + "' does not exist", {},
                    "give the directory a run with output.checkpoint_every wrote its checkpoints to");
  const auto all = checkpoints_in(dir);
  if (all.empty())
    throw UserError("cannot restart: no checkpoint (checkpoint_*.h5) in '" + shown + "'", {},
                    "give the directory a run with output.checkpoint_every wrote its checkpoints to");
  std::string reasons;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    try {
      Checkpoint c = read_checkpoint(it->second);
      if (c.step != it->first)
        throw UserError("cannot read checkpoint '" + it->second + "': it holds step " + std::to_string(c.step) +
                        ", its name says " + std::to_string(it->first));
      if (path_out) *path_out = it->second;
      return c;
    } catch (const UserError& e) {
      warnings << "warning: " << e.message()
               << (std::next(it) != all.rend() ? "; trying the previous checkpoint" : "") << "\n";
      reasons += "\n  " + e.message();
    }
  }
  throw UserError("cannot restart: no valid checkpoint in '" + shown + "':" + reasons, {},
                  "run again without --restart to start from t = 0");
}

Checkpoint read_latest_checkpoint(const std::string& dir) { return read_latest_checkpoint(dir, std::cerr); }

std::vector<std::string> describe_mismatch(const Checkpoint& saved, const CheckpointIdentity& now) {
  std::vector<std::string> out;
  const CheckpointIdentity& s = saved.id;
  auto diff = [&](bool differs, const std::string& what, const std::string& a, const std::string& b) {
    if (differs) out.push_back(what + ": checkpoint " + a + ", config " + b);
  };
  auto text = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
  diff(s.dgmax_version != now.dgmax_version, "dgmax version", text(s.dgmax_version), text(now.dgmax_version));
  diff(s.config_hash != now.config_hash, "config (content hash)", text(s.config_hash), text(now.config_hash));
  diff(s.mesh_fingerprint != now.mesh_fingerprint, "mesh (fingerprint)", text(s.mesh_fingerprint),
       text(now.mesh_fingerprint));
  diff(s.K != now.K, "elements K", std::to_string(s.K), std::to_string(now.K));
  diff(s.N != now.N, "order N", std::to_string(s.N), std::to_string(now.N));
  diff(s.Np != now.Np, "nodes per element Np", std::to_string(s.Np), std::to_string(now.Np));
  diff(s.backend != now.backend, "backend", text(s.backend), text(now.backend));
  diff(s.precision != now.precision, "precision", text(s.precision), text(now.precision));
  diff(!same_bits(s.dt, now.dt), "time step dt", shortest(s.dt), shortest(now.dt));
  diff(!same_bits(s.t_final, now.t_final), "final time t_final", shortest(s.t_final), shortest(now.t_final));
  if (s.K != now.K || s.Np != now.Np || now.K <= 0 || now.Np <= 0) return out;  // said above
  const size_t n = static_cast<size_t>(now.K) * kNumComponents * now.Np;
  auto size_diff = [&](const Fields& q, const char* what) {
    if (q.K != now.K || q.Np != now.Np || q.q.size() != n)
      out.push_back(std::string(what) + ": checkpoint holds " + std::to_string(q.q.size()) + " values, config needs " +
                    std::to_string(n) + " (K*6*Np)");
  };
  size_diff(saved.q, "state size");
  size_diff(saved.res, "residual size");
  return out;
}

}  // namespace dgmax
