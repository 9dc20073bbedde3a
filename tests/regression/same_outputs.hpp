// Comparing what two runs wrote (a run on several ranks against the same run on one): monitors.h5
// dataset by dataset and CSV files number by number, each within a relative tolerance of the
// largest magnitude in its dataset or column (sums over ranks differ from one rank's by rounding).
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/io/hdf5_check.hpp"
#include "run_cli.hpp"

namespace dgmax::test {

struct H5Array {
  std::vector<hsize_t> dims;
  std::vector<double> values;
};

// A dataset of any shape, as doubles (empty dims when it is missing: the test fails).
inline H5Array read_h5_array(hid_t file, const std::string& name) {
  H5Array a;
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  if (ds < 0) return a;
  const hid_t sp = H5Dget_space(ds);
  a.dims.resize(static_cast<size_t>(std::max(0, H5Sget_simple_extent_ndims(sp))));
  H5Sget_simple_extent_dims(sp, a.dims.data(), nullptr);
  a.values.resize(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)));
  EXPECT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data()), 0) << name;
  H5Sclose(sp);
  H5Dclose(ds);
  return a;
}

// A variable-length text attribute in whatever character set it was written (monitors.h5: ASCII).
inline std::string read_text_attr(hid_t obj, const char* name) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a < 0) return {};
  const hid_t t = H5Aget_type(a);
  char* s = nullptr;
  EXPECT_TRUE(H5Tis_variable_str(t) > 0 && H5Aread(a, t, &s) >= 0) << name;
  std::string out = s ? s : "";
  H5free_memory(s);
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

// |a_i - b_i| <= rel * max_i |a_i| for every element; `what` names them in a failure.
inline void expect_same_values(const std::vector<double>& a, const std::vector<double>& b, double rel,
                               const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0, worst = 0;
  size_t at = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > worst) worst = std::abs(a[i] - b[i]), at = i;
  EXPECT_LE(worst, rel * scale) << what << ": element " << at << " is " << b[at] << " against " << a[at]
                                << " (largest magnitude " << scale << ")";
}

// Every dataset of the monitors `names` in two monitors.h5 files, and the steps summed.
inline void expect_same_monitors(const std::string& one, const std::string& many, const std::vector<std::string>& names,
                                 double rel) {
  H5File a(one), b(many);
  ASSERT_GE(a.id, 0) << one;
  ASSERT_GE(b.id, 0) << many;
  EXPECT_EQ(read_text_attr(a.id, "format"), "dgmax-monitors");
  EXPECT_EQ(read_text_attr(b.id, "format"), "dgmax-monitors");
  for (const char* attr : {"time", "steps"}) {
    double va = 0, vb = 0;
    const hid_t x = H5Aopen(a.id, attr, H5P_DEFAULT), y = H5Aopen(b.id, attr, H5P_DEFAULT);
    ASSERT_TRUE(x >= 0 && y >= 0) << attr;
    H5Aread(x, H5T_NATIVE_DOUBLE, &va);
    H5Aread(y, H5T_NATIVE_DOUBLE, &vb);
    H5Aclose(x);
    H5Aclose(y);
    EXPECT_EQ(va, vb) << attr;
  }
  for (const std::string& m : names) {
    const hid_t g = H5Gopen2(a.id, m.c_str(), H5P_DEFAULT);
    ASSERT_GE(g, 0) << "no monitor " << m << " in " << one;
    const std::string kind = read_text_attr(g, "kind");
    H5Gclose(g);
    std::vector<std::string> sets = {"frequencies", "x", "weight", "E_re", "E_im", "H_re", "H_im"};
    if (kind == "surface") sets.push_back("normal");
    for (const std::string& s : sets) {
      const H5Array x = read_h5_array(a.id, m + "/" + s), y = read_h5_array(b.id, m + "/" + s);
      EXPECT_EQ(x.dims, y.dims) << m << "/" << s;
      EXPECT_FALSE(x.values.empty()) << m << "/" << s;
      expect_same_values(x.values, y.values, rel, m + "/" + s);
    }
  }
}

// Two CSV files with one header line: the same header, rows and columns, every column's numbers
// within rel of its largest magnitude.
inline void expect_same_csv(const std::string& one, const std::string& many, double rel) {
  std::istringstream a(read_all(one)), b(read_all(many));
  std::string ha, hb;
  std::getline(a, ha);
  std::getline(b, hb);
  ASSERT_FALSE(ha.empty()) << one;
  EXPECT_EQ(ha, hb) << many;
  std::vector<std::vector<double>> ca, cb;  // [column][row]
  auto read_rows = [](std::istringstream& in, std::vector<std::vector<double>>& cols) {
    for (std::string line; std::getline(in, line);) {
      std::istringstream cells(line);
      size_t c = 0;
      for (std::string cell; std::getline(cells, cell, ','); ++c) {
        if (cols.size() <= c) cols.emplace_back();
        cols[c].push_back(std::stod(cell));
      }
    }
  };
  read_rows(a, ca);
  read_rows(b, cb);
  ASSERT_EQ(ca.size(), cb.size()) << "columns of " << many;
  ASSERT_FALSE(ca.empty()) << one;
  for (size_t c = 0; c < ca.size(); ++c) expect_same_values(ca[c], cb[c], rel, many + " column " + std::to_string(c));
}

}  // namespace dgmax::test
