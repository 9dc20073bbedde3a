#include "solver/io/monitor_writer.hpp"

#include <hdf5.h>

#include <cstdio>

#include "solver/io/atomic_write.hpp"
#include "solver/io/hdf5_util.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// A negative HDF5 result becomes a UserError naming the file, the call and HDF5's reason.
struct H5Check {
  const std::string& path;
  hid_t operator()(hid_t r, const char* call) const {
    if (r < 0)
      throw UserError("cannot write '" + path + "': " + call + " failed: " + hdf5_error_message(), {},
                      "check that the output directory is writable and the disk is not full");
    return r;
  }
};

void write_array(const H5Check& ok, hid_t group, const char* name, const std::vector<hsize_t>& dims, const double* data) {
  H5Id space(ok(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "H5Screate_simple"), H5Sclose);
  H5Id set(ok(H5Dcreate2(group, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name), H5Dclose);
  ok(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
}

void write_attribute(const H5Check& ok, hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value) {
  H5Id space(ok(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  H5Id attr(ok(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), name), H5Aclose);
  ok(H5Awrite(attr.get(), mem_type, value), name);
}

void write_text_attribute(const H5Check& ok, hid_t obj, const char* name, const std::string& text) {
  H5Id type(ok(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  ok(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  const char* s = text.c_str();
  write_attribute(ok, obj, name, type.get(), type.get(), &s);
}

void write_monitor(const H5Check& ok, hid_t file, const MonitorResult& r) {
  const DftMonitor& m = *r.monitor;
  const size_t F = m.frequencies.size(), M = m.points.size();
  DGMAX_ASSERT(r.re.size() == F * M * 6 && r.im.size() == r.re.size(), "DFT accumulators are not [F][M][6]");
  H5Id group(ok(H5Gcreate2(file, m.name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Gcreate2"), H5Gclose);
  write_text_attribute(ok, group.get(), "kind", m.surface ? "surface" : "volume");
  const hsize_t hF = F, hM = M;
  write_array(ok, group.get(), "frequencies", {hF}, m.frequencies.data());
  std::vector<double> x(M * 3), n(M * 3), w(M);
  for (size_t p = 0; p < M; ++p) {
    for (int d = 0; d < 3; ++d) x[p * 3 + d] = m.points[p].x[d], n[p * 3 + d] = m.points[p].n[d];
    w[p] = m.points[p].w;
  }
  write_array(ok, group.get(), "x", {hM, 3}, x.data());
  if (m.surface) write_array(ok, group.get(), "normal", {hM, 3}, n.data());
  write_array(ok, group.get(), "weight", {hM}, w.data());
  const char* names[2][2] = {{"E_re", "E_im"}, {"H_re", "H_im"}};
  std::vector<double> part(F * M * 3);
  for (int field = 0; field < 2; ++field)
    for (int ri = 0; ri < 2; ++ri) {
      const std::vector<double>& src = ri ? r.im : r.re;
      for (size_t fm = 0; fm < F * M; ++fm)
        for (int c = 0; c < 3; ++c) part[fm * 3 + c] = src[fm * 6 + field * 3 + c];
      write_array(ok, group.get(), names[field][ri], {hF, hM, 3}, part.data());
    }
}

}  // namespace

void write_monitors_h5(const std::string& path, const std::vector<MonitorResult>& results, double time, long long steps) {
  const std::string tmp = temp_path_for(path);
  QuietHdf5Errors quiet;
  const H5Check ok{path};
  try {
    H5Id file(ok(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate"), H5Fclose);
    write_text_attribute(ok, file.get(), "format", "dgmax-monitors");
    const int version = 1;
    write_attribute(ok, file.get(), "format_version", H5T_STD_I32LE, H5T_NATIVE_INT, &version);
    write_attribute(ok, file.get(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time);
    write_attribute(ok, file.get(), "steps", H5T_STD_I64LE, H5T_NATIVE_LLONG, &steps);
    write_text_attribute(ok, file.get(), "convention",
                         "X(f) = sum over steps n of x(t_n) exp(-i 2 pi f t_n) dt_n, t_n the time after step n");
    for (const MonitorResult& r : results) write_monitor(ok, file.get(), r);
    ok(H5Fclose(file.release()), "H5Fclose");
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file(tmp, path);
}

}  // namespace dgmax
