#include "solver/io/checkpoint_h5.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include "solver/io/atomic_write.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

void CheckpointH5::fail(const std::string& what) const {
  if (writing_)
    throw UserError("cannot write checkpoint '" + path_ + "': " + what, {},
                    "check that the checkpoint directory is writable and the disk is not full");
  throw UserError("cannot read checkpoint '" + path_ + "': " + what, {},
                  "the file is damaged or not a dgmax checkpoint: remove it to restart from the one before");
}

void CheckpointH5::fail_call(const char* call, const std::string& object) const {
  const std::string why = hdf5_error_message();
  fail(std::string(call) + (object.empty() ? std::string() : "(\"" + object + "\")") + " failed" +
       (why.empty() ? std::string() : ": " + why));
}

void CheckpointH5::attr(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* value) const {
  H5Id sp(check(H5Screate(H5S_SCALAR), "H5Screate", name), H5Sclose);
  H5Id a(check(H5Acreate2(obj, name.c_str(), file_type, sp.get(), H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2", name),
         H5Aclose);
  check(H5Awrite(a.get(), mem_type, value), "H5Awrite", name);
}

H5Id CheckpointH5::string_type(const std::string& object) const {
  H5Id t(check(H5Tcopy(H5T_C_S1), "H5Tcopy", object), H5Tclose);
  check(H5Tset_size(t.get(), H5T_VARIABLE), "H5Tset_size", object);
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "H5Tset_cset", object);
  return t;
}

void CheckpointH5::string_attr(hid_t obj, const std::string& name, const std::string& value) const {
  H5Id t = string_type(name);
  const char* s = value.c_str();
  attr(obj, name, t.get(), t.get(), &s);
  digest(obj, "@" + name, "str", value.data(), value.size());
}

void CheckpointH5::int_attr(hid_t obj, const std::string& name, long long value) const {
  attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
  digest(obj, "@" + name, "i8", &value, sizeof value);
}

void CheckpointH5::double_attr(hid_t obj, const std::string& name, double value) const {
  attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  digest(obj, "@" + name, "f8", &value, sizeof value);
}

// The item's name: the object's path ("/" for the file, "/q" for a dataset) then `name`
// ("@time" for an attribute, "" for the dataset itself): "/@time", "/q", "/q@long_name".
void CheckpointH5::digest(hid_t obj, const std::string& name, std::string_view type, const void* bytes,
                          size_t size) const {
  char path[256] = {0};
  const ssize_t n = check(H5Iget_name(obj, path, sizeof path), "H5Iget_name", name);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof path) fail("object name of '" + name + "' is out of range");
  const std::string object = path;
  const std::string item = object == "/" && !name.empty() ? "/" + name : object + name;
  if (writing_) {
    digests_.add(item, type, bytes, size);
  } else if (digests_.reading()) {
    if (const std::string why = digests_.check(item, type, bytes, size); !why.empty()) fail(why);
  }
}

void CheckpointH5::finish_write(hid_t f) const {
  H5Id t = string_type("digests");
  const std::string text = digests_.text();
  const char* s = text.c_str();
  attr(f, "digests", t.get(), t.get(), &s);
}

bool CheckpointH5::begin_read(hid_t f) const {
  if (check(H5Aexists(f, "digests"), "H5Aexists", "digests") <= 0) return false;
  const std::string text = read_string_attr(f, "digests");  // not checked: nothing is expected yet
  if (const std::string why = digests_.expect(text); !why.empty()) fail(why);
  return true;
}

void CheckpointH5::finish_read() const {
  const auto left = digests_.unchecked();
  if (!left.empty()) fail("'" + left.front() + "' is in its digest list but was not found (the file is damaged)");
}

// A scalar attribute opened after checking that it exists, is scalar and of `cls`.
H5Id CheckpointH5::open_scalar_attr(hid_t obj, const std::string& name, H5T_class_t cls) const {
  if (check(H5Aexists(obj, name.c_str()), "H5Aexists", name) <= 0) fail("attribute '" + name + "' is missing");
  H5Id a(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
  H5Id sp(check(H5Aget_space(a.get()), "H5Aget_space", name), H5Sclose);
  H5Id t(check(H5Aget_type(a.get()), "H5Aget_type", name), H5Tclose);
  if (check(H5Sget_simple_extent_type(sp.get()), "H5Sget_simple_extent_type", name) != H5S_SCALAR ||
      check(H5Tget_class(t.get()), "H5Tget_class", name) != cls)
    fail("attribute '" + name + "' has the wrong type or shape");
  return a;
}

std::string CheckpointH5::read_string_attr(hid_t obj, const std::string& name) const {
  H5Id a = open_scalar_attr(obj, name, H5T_STRING);
  H5Id ft(check(H5Aget_type(a.get()), "H5Aget_type", name), H5Tclose);
  if (check(H5Tis_variable_str(ft.get()), "H5Tis_variable_str", name) <= 0)
    fail("attribute '" + name + "' is not a variable-length string");
  H5Id t = string_type(name);
  char* s = nullptr;
  check(H5Aread(a.get(), t.get(), &s), "H5Aread", name);
  std::string out = s ? s : "";
  if (s) H5free_memory(s);
  digest(obj, "@" + name, "str", out.data(), out.size());
  return out;
}

long long CheckpointH5::read_int_attr(hid_t obj, const std::string& name) const {
  H5Id a = open_scalar_attr(obj, name, H5T_INTEGER);
  long long v = 0;
  check(H5Aread(a.get(), H5T_NATIVE_LLONG, &v), "H5Aread", name);
  digest(obj, "@" + name, "i8", &v, sizeof v);
  return v;
}

double CheckpointH5::read_double_attr(hid_t obj, const std::string& name) const {
  H5Id a = open_scalar_attr(obj, name, H5T_FLOAT);
  double v = 0;
  check(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v), "H5Aread", name);
  digest(obj, "@" + name, "f8", &v, sizeof v);
  return v;
}

bool CheckpointH5::has(hid_t f, const std::string& name) const {
  return check(H5Lexists(f, name.c_str(), H5P_DEFAULT), "H5Lexists", name) > 0;
}

std::string write_checkpoint_file(const std::string& path, const std::function<void(const CheckpointH5& w, hid_t f)>& body) {
  const std::string tmp = temp_path_for(path);
  QuietHdf5Errors quiet;
  const CheckpointH5 w(path, true);
  try {
    H5Id file(w.check(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate", tmp), H5Fclose);
    body(w, file.get());
    w.finish_write(file.get());
    w.check(H5Fclose(file.release()), "H5Fclose", tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file_now(tmp, path);
  return w.file_digest();
}

H5Id open_checkpoint_file(const CheckpointH5& r, const std::string& missing_note) {
  const std::string& path = r.path();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) r.fail("no such file" + missing_note);
  if (r.check(H5Fis_hdf5(path.c_str()), "H5Fis_hdf5") <= 0) r.fail("not an HDF5 file");
  return H5Id(r.check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen"), H5Fclose);
}

bool all_exact_floats(const std::vector<double>& v) {
  for (const double x : v) {
    const double y = static_cast<double>(static_cast<float>(x));
    if (std::memcmp(&x, &y, sizeof(double)) != 0) return false;
  }
  return true;
}

namespace {

// A digest's type: the stored type and the shape, e.g. "f8[4,6,10]".
std::string type_tag(const char* type, std::initializer_list<hsize_t> dims) {
  std::string out = std::string(type) + "[";
  for (const hsize_t d : dims) out += (out.back() == '[' ? "" : ",") + std::to_string(d);
  return out + "]";
}

// A dataset must be stored with the Fletcher-32 filter it was written with: one rewritten without
// it reads without any check of its chunks.
void require_fletcher32(const CheckpointH5& r, hid_t ds, const std::string& name) {
  H5Id dcpl(r.check(H5Dget_create_plist(ds), "H5Dget_create_plist", name), H5Pclose);
  const int n = r.check(H5Pget_nfilters(dcpl.get()), "H5Pget_nfilters", name);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nelmts = 0;
    if (H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nelmts, nullptr, 0, nullptr, &config) ==
        H5Z_FILTER_FLETCHER32)
      return;
  }
  r.fail("dataset '" + name + "' is stored without its Fletcher-32 checksums");
}

}  // namespace

void write_checkpoint_fields(const CheckpointH5& w, hid_t f, const std::string& name, const Fields& q, bool as_float,
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
    w.digest(ds.get(), "", type_tag("f4", {dims[0], dims[1], dims[2]}), tmp.data(), tmp.size() * sizeof(float));
  } else {
    w.check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q.q.data()), "H5Dwrite", name);
    w.digest(ds.get(), "", type_tag("f8", {dims[0], dims[1], dims[2]}), q.q.data(), q.q.size() * sizeof(double));
  }
  w.string_attr(ds.get(), "long_name", long_name);
}

Fields read_checkpoint_fields(const CheckpointH5& r, hid_t f, const std::string& name, int K, int Np,
                              bool allow_float32) {
  if (!r.has(f, name)) r.fail("dataset '" + name + "' is missing");
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
  if (size == 4 && !allow_float32) r.fail("dataset '" + name + "' is float32 in a double-precision checkpoint");
  require_fletcher32(r, ds.get(), name);
  r.read_string_attr(ds.get(), "long_name");  // checked against its digest
  Fields q(K, Np);
  // every chunk must be there (a missing one would read as fill values, not as the saved state)
  if (H5Dget_storage_size(ds.get()) < q.q.size() * size) r.fail("dataset '" + name + "' is incomplete");
  if (size == 4) {
    std::vector<float> tmp(q.q.size());
    r.check(H5Dread(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp.data()), "H5Dread", name);
    r.digest(ds.get(), "", type_tag("f4", {dims[0], dims[1], dims[2]}), tmp.data(), tmp.size() * sizeof(float));
    for (size_t i = 0; i < tmp.size(); ++i) q.q[i] = static_cast<double>(tmp[i]);
  } else {
    r.check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q.q.data()), "H5Dread", name);
    r.digest(ds.get(), "", type_tag("f8", {dims[0], dims[1], dims[2]}), q.q.data(), q.q.size() * sizeof(double));
  }
  return q;
}

void write_checkpoint_bytes(const CheckpointH5& w, hid_t f, const std::string& name, const std::string& text) {
  const hsize_t n = text.size();
  H5Id sp(w.check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple", name), H5Sclose);
  H5Id ds(w.check(H5Dcreate2(f, name.c_str(), H5T_STD_U8LE, sp.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  "H5Dcreate2", name),
          H5Dclose);
  if (n > 0) w.check(H5Dwrite(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "H5Dwrite", name);
  w.digest(ds.get(), "", type_tag("u1", {n}), text.data(), text.size());
}

std::string read_checkpoint_bytes(const CheckpointH5& r, hid_t f, const std::string& name) {
  if (!r.has(f, name)) r.fail("dataset '" + name + "' is missing");
  H5Id ds(r.check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  H5Id sp(r.check(H5Dget_space(ds.get()), "H5Dget_space", name), H5Sclose);
  if (r.check(H5Sget_simple_extent_ndims(sp.get()), "H5Sget_simple_extent_ndims", name) != 1)
    r.fail("dataset '" + name + "' is not one-dimensional");
  hsize_t n = 0;
  r.check(H5Sget_simple_extent_dims(sp.get(), &n, nullptr), "H5Sget_simple_extent_dims", name);
  if (n > (hsize_t(1) << 31)) r.fail("dataset '" + name + "' is implausibly large");
  H5Id t(r.check(H5Dget_type(ds.get()), "H5Dget_type", name), H5Tclose);
  if (r.check(H5Tget_class(t.get()), "H5Tget_class", name) != H5T_INTEGER || H5Tget_size(t.get()) != 1)
    r.fail("dataset '" + name + "' is not uint8");
  std::string text(n, '\0');
  if (n > 0) r.check(H5Dread(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "H5Dread", name);
  r.digest(ds.get(), "", type_tag("u1", {n}), text.data(), text.size());
  return text;
}

namespace {

// A flat array of `file_type`, chunked (at most 2^17 values a chunk) with Fletcher-32 checksums.
void write_flat(const CheckpointH5& w, hid_t f, const std::string& name, hsize_t n, hid_t file_type, hid_t mem_type,
                const void* data, const std::string& long_name) {
  const hsize_t chunk = std::clamp<hsize_t>(n, 1, hsize_t(1) << 17);
  H5Id sp(w.check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple", name), H5Sclose);
  H5Id dcpl(w.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", name), H5Pclose);
  w.check(H5Pset_chunk(dcpl.get(), 1, &chunk), "H5Pset_chunk", name);
  w.check(H5Pset_fletcher32(dcpl.get()), "H5Pset_fletcher32", name);
  H5Id ds(w.check(H5Dcreate2(f, name.c_str(), file_type, sp.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), "H5Dcreate2",
                  name),
          H5Dclose);
  w.check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dwrite", name);
  w.digest(ds.get(), "", type_tag(file_type == H5T_IEEE_F64LE ? "f8" : "i8", {n}), data, n * 8);
  w.string_attr(ds.get(), "long_name", long_name);
}

// An optional flat dataset of 8-byte values of class `cls` (empty when absent).
template <class T>
std::vector<T> read_flat(const CheckpointH5& r, hid_t f, const std::string& name, H5T_class_t cls, hid_t mem_type,
                         const char* type_name) {
  if (!r.has(f, name)) return {};
  H5Id ds(r.check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  H5Id sp(r.check(H5Dget_space(ds.get()), "H5Dget_space", name), H5Sclose);
  H5Id t(r.check(H5Dget_type(ds.get()), "H5Dget_type", name), H5Tclose);
  if (r.check(H5Sget_simple_extent_ndims(sp.get()), "H5Sget_simple_extent_ndims", name) != 1)
    r.fail("dataset '" + name + "' is not one-dimensional");
  if (r.check(H5Tget_class(t.get()), "H5Tget_class", name) != cls || H5Tget_size(t.get()) != 8)
    r.fail("dataset '" + name + "' is not " + type_name);
  hsize_t n = 0;
  r.check(H5Sget_simple_extent_dims(sp.get(), &n, nullptr), "H5Sget_simple_extent_dims", name);
  if (n > (hsize_t(1) << 34)) r.fail("dataset '" + name + "' is implausibly large");
  require_fletcher32(r, ds.get(), name);
  r.read_string_attr(ds.get(), "long_name");  // checked against its digest
  std::vector<T> v(n);
  if (H5Dget_storage_size(ds.get()) < n * sizeof(T)) r.fail("dataset '" + name + "' is incomplete");
  if (n > 0) r.check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "H5Dread", name);
  r.digest(ds.get(), "", type_tag(cls == H5T_FLOAT ? "f8" : "i8", {n}), v.data(), n * sizeof(T));
  return v;
}

}  // namespace

void write_checkpoint_doubles(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<double>& v,
                              const std::string& long_name) {
  write_flat(w, f, name, v.size(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), long_name);
}

std::vector<double> read_checkpoint_doubles(const CheckpointH5& r, hid_t f, const std::string& name) {
  return read_flat<double>(r, f, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, "float64");
}

void write_checkpoint_ints(const CheckpointH5& w, hid_t f, const std::string& name, const std::vector<long long>& v,
                           const std::string& long_name) {
  write_flat(w, f, name, v.size(), H5T_STD_I64LE, H5T_NATIVE_LLONG, v.data(), long_name);
}

std::vector<long long> read_checkpoint_ints(const CheckpointH5& r, hid_t f, const std::string& name) {
  return read_flat<long long>(r, f, name, H5T_INTEGER, H5T_NATIVE_LLONG, "int64");
}

}  // namespace dgmax
