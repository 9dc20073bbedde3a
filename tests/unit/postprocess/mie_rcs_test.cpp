// postprocess/mie_rcs.py (the Mie series in Python, a reference CSV for plot_rcs.py) against
// Wiscombe's published MIEV0 values (the cases of tests/unit/physics/mie_series_test.cpp), the
// optical theorem, the PEC monostatic RCS pinned there, and the C++ series of
// tests/common/mie_series.hpp at every row of the CSV it writes; and end to end: its --from-csv
// rows on a far-field CSV of dgmax's writer, which plot_rcs.py then accepts as --reference.
// Needs /usr/bin/python3 with numpy (plot_rcs.py also matplotlib); without them the tests skip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "mie_series.hpp"
#include "python_script.hpp"
#include "solver/physics/near_to_far.hpp"

namespace fs = std::filesystem;
namespace mie = dgmax::test::mie;
using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::sh_quote;
using mie::cplx;
using mie::kPi;
using nlohmann::json;

namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A complex permittivity as Python reads it: "2.25+0.1j".
std::string eps_arg(cplx eps) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "%.17g%+.17gj", eps.real(), eps.imag());
  return buf;
}

std::string join(const std::vector<double>& v) {
  std::string s;
  for (const double x : v) s += (s.empty() ? "" : ",") + num(x);
  return s;
}

cplx pair_to_cplx(const json& j) { return {j.at(0).get<double>(), j.at(1).get<double>()}; }

// The data rows of a CSV written by the script: header checked, then [rows][columns].
std::vector<std::vector<double>> read_rows(const std::string& path, const std::string& header) {
  std::istringstream in(read_all(path));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, header);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

class MieRcs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!dgmax::test::python_has("numpy"))
      GTEST_SKIP() << dgmax::test::kPython << " with numpy is needed for postprocess/mie_rcs.py "
                   << "(Debian: apt-get install python3-numpy)";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_mie_rcs_" + std::to_string(::getpid()) + "_" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  CliResult python(const std::string& name, const std::string& args) {
    return dgmax::test::run_python_script(name, args, dir_ + "/cmd" + std::to_string(calls_++));
  }

  // --print-amplitudes for one material at the size parameters ka (radius 1) -> its "cases".
  json amplitudes(const std::string& material, const std::vector<double>& ka, double step_deg) {
    const CliResult r = python("mie_rcs.py", "--radius 1 " + material + " --ka " + join(ka) + " --step " +
                                                 num(step_deg) + " --print-amplitudes");
    EXPECT_EQ(r.code, 0) << r.err;
    if (r.code != 0) return json::array();
    const json j = json::parse(r.out);
    EXPECT_EQ(j["cases"].size(), ka.size()) << r.out;
    return j["cases"];
  }

  std::string dir_;
  int calls_ = 0;
};

}  // namespace

TEST_F(MieRcs, WiscombeEfficienciesAndAmplitudes) {
  // MIEV0 (NCAR TN-140+STR), seven digits; its S1, S2 are the conjugates of Bohren & Huffman's,
  // which the script prints. The index m (BH: Im m >= 0 absorbs) is given as --eps m².
  struct Q {
    double x;
    cplx m;
    double ext, sca;
  };
  const Q effs[] = {
      {0.099, {0.75, 0}, 7.417859e-06, 7.417859e-06}, {0.101, {0.75, 0}, 8.033538e-06, 8.033538e-06},
      {10, {0.75, 0}, 2.232265, 2.232265},            {1000, {0.75, 0}, 1.997908, 1.997908},
      {100, {1.33, 1e-5}, 2.101321, 2.096594},        {10000, {1.33, 1e-5}, 2.004089, 1.723857},
      {0.055, {1.5, 1}, 0.10149104, 1.131687e-05},    {0.056, {1.5, 1}, 0.1033467, 1.216311e-05},
      {100, {1.5, 1}, 2.097502, 1.283697},            {10000, {1.5, 1}, 2.004368, 1.236574},
      {1, {10, 10}, 2.532993, 2.049405},              {100, {10, 10}, 2.071124, 1.836785},
      {10000, {10, 10}, 2.005914, 1.795393},
  };
  struct S {
    double x;
    cplx m;
    int theta_deg;
    cplx S1, S2;  // MIEV0's
  };
  const S amps[] = {
      {0.101, {0.75, 0}, 0, {2.048754e-08, -1.756419e-04}, {2.048754e-08, -1.756419e-04}},
      {0.101, {0.75, 0}, 180, {2.048749e-08, -1.749650e-04}, {-2.048749e-08, 1.749650e-04}},
      {10, {0.75, 0}, 0, {5.580662e+01, -9.758097e+00}, {5.580662e+01, -9.758097e+00}},
      {10, {0.75, 0}, 90, {-1.785905e+00, -5.232828e-02}, {-5.148748e-01, -7.027288e-01}},
      {10, {0.75, 0}, 180, {-1.078568e+00, -3.608807e-02}, {1.078568e+00, 3.608807e-02}},
      {1000, {0.75, 0}, 0, {4.994770e+05, -1.336502e+04}, {4.994770e+05, -1.336502e+04}},
      {1000, {0.75, 0}, 90, {-1.600887e+02, 1.348013e+02}, {-4.152365e+01, 1.143000e+02}},
      {1000, {0.75, 0}, 180, {1.705778e+01, 4.842510e+02}, {-1.705778e+01, -4.842510e+02}},
      {1, {1.33, 1e-5}, 0, {2.348800e-02, 2.281705e-01}, {2.348800e-02, 2.281705e-01}},
      {1, {1.33, 1e-5}, 90, {2.296081e-02, 1.828349e-01}, {2.729533e-04, 6.702879e-03}},
      {1, {1.33, 1e-5}, 180, {2.243622e-02, 1.437106e-01}, {-2.243622e-02, -1.437106e-01}},
      {100, {1.33, 1e-5}, 0, {5.253302e+03, -1.243188e+02}, {5.253302e+03, -1.243188e+02}},
      {100, {1.33, 1e-5}, 90, {-3.655758e+00, 8.769860e+00}, {-6.550512e+00, -4.675370e+00}},
      {100, {1.33, 1e-5}, 180, {-5.659205e+01, 4.650974e+01}, {5.659205e+01, -4.650974e+01}},
      {10000, {1.33, 1e-5}, 0, {5.010222e+07, -1.535815e+05}, {5.010222e+07, -1.535815e+05}},
      {10000, {1.33, 1e-5}, 90, {-1.061003e+03, -1.930155e+02}, {2.430920e+02, 8.409836e+01}},
  };
  // One run per index with all of its size parameters; cases[m][x] -> the script's case.
  std::map<std::pair<double, double>, std::vector<double>> xs;
  for (const Q& q : effs) xs[{q.m.real(), q.m.imag()}].push_back(q.x);
  for (const S& s : amps) {
    auto& v = xs[{s.m.real(), s.m.imag()}];
    if (std::find(v.begin(), v.end(), s.x) == v.end()) v.push_back(s.x);
  }
  std::map<std::pair<double, double>, std::map<double, json>> cases;
  for (const auto& [m, x] : xs) {
    const cplx index(m.first, m.second);
    const json got = amplitudes("--eps " + eps_arg(index * index), x, 90);
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(got[i]["ka"].get<double>(), x[i], 1e-15 * x[i]);
      EXPECT_NEAR(std::abs(pair_to_cplx(got[i]["m"]) - index), 0, 1e-15 * std::abs(index));
      cases[m][x[i]] = got[i];
    }
  }
  for (const Q& q : effs) {
    const json& c = cases[{q.m.real(), q.m.imag()}][q.x];
    // seven digits as published: half a unit of the last one
    EXPECT_NEAR(c["Q_ext"].get<double>(), q.ext, 1e-6 * q.ext) << "x = " << q.x << ", m = " << q.m;
    EXPECT_NEAR(c["Q_sca"].get<double>(), q.sca, 1e-6 * q.sca) << "x = " << q.x << ", m = " << q.m;
  }
  for (const S& s : amps) {
    const json& angles = cases[{s.m.real(), s.m.imag()}][s.x]["angles"];
    ASSERT_EQ(angles.size(), 3u);  // 0, 90, 180
    const json& a = angles[static_cast<size_t>(s.theta_deg / 90)];
    ASSERT_EQ(a["theta_deg"].get<double>(), s.theta_deg);
    EXPECT_NEAR(std::abs(std::conj(pair_to_cplx(a["S1"])) - s.S1), 0, 1e-6 * std::abs(s.S1))
        << "S1, x = " << s.x << ", m = " << s.m << ", theta = " << s.theta_deg;
    EXPECT_NEAR(std::abs(std::conj(pair_to_cplx(a["S2"])) - s.S2), 0, 1e-6 * std::abs(s.S2))
        << "S2, x = " << s.x << ", m = " << s.m << ", theta = " << s.theta_deg;
  }
  // Wiscombe's term counts in his three ranges of x
  const auto& metal = cases[std::make_pair(10.0, 10.0)];
  EXPECT_EQ(metal.at(1)["terms"], 6);         // x + 4 x^(1/3) + 1
  EXPECT_EQ(metal.at(100)["terms"], 120);     // x + 4.05 x^(1/3) + 2
  EXPECT_EQ(metal.at(10000)["terms"], 10088);  // x + 4 x^(1/3) + 2
}

TEST_F(MieRcs, OpticalTheoremForLosslessSpheres) {
  // Q_ext (from the coefficients) = Q_sca when nothing is absorbed, Q_ext = 4/x² Re S(0), S1(0) =
  // S2(0), and the monostatic Q_back = 4|S(180)|²/x² from both amplitudes.
  const std::vector<double> ka = {0.3, 1.0, 2.0, 5.0, 20.0};
  for (const std::string material : {"--eps 4", "--pec", "--eps -2.5"}) {
    const json got = amplitudes(material, ka, 90);
    ASSERT_EQ(got.size(), ka.size());
    for (size_t i = 0; i < ka.size(); ++i) {
      const double x = ka[i], ext = got[i]["Q_ext"], sca = got[i]["Q_sca"], back = got[i]["Q_back"];
      const json& angles = got[i]["angles"];
      const cplx S1_0 = pair_to_cplx(angles[0]["S1"]), S2_0 = pair_to_cplx(angles[0]["S2"]);
      EXPECT_NEAR(ext, sca, 1e-12 * sca) << material << ", x = " << x;
      EXPECT_NEAR(4 / (x * x) * S1_0.real(), ext, 1e-12 * ext) << material << ", x = " << x;
      EXPECT_NEAR(std::abs(S1_0 - S2_0), 0, 1e-13 * std::abs(S1_0));
      EXPECT_NEAR(4 * std::norm(pair_to_cplx(angles[2]["S1"])) / (x * x), back, 1e-11 * back);
      EXPECT_NEAR(4 * std::norm(pair_to_cplx(angles[2]["S2"])) / (x * x), back, 1e-11 * back);
    }
  }
  // A lossy sphere absorbs: Q_ext > Q_sca. --sigma s is the complex permittivity eps + i s/(2 pi f)
  // (f = ka/(2 pi) at a = 1), and the sign of Im eps is read as loss in either time convention.
  const json sigma = amplitudes("--eps 4 --sigma 0.6", {2.0}, 90);
  const json plus = amplitudes("--eps 4+0.3j", {2.0}, 90), minus = amplitudes("--eps 4-0.3j", {2.0}, 90);
  ASSERT_EQ(sigma.size(), 1u);
  ASSERT_EQ(plus.size(), 1u);
  ASSERT_EQ(minus.size(), 1u);
  EXPECT_GT(sigma[0]["Q_ext"].get<double>(), 1.01 * sigma[0]["Q_sca"].get<double>());
  EXPECT_EQ(sigma[0]["Q_ext"], plus[0]["Q_ext"]);
  EXPECT_EQ(sigma[0]["Q_sca"], plus[0]["Q_sca"]);
  EXPECT_EQ(minus[0]["Q_ext"], plus[0]["Q_ext"]);
  EXPECT_EQ(minus[0]["angles"], plus[0]["angles"]);
}

TEST_F(MieRcs, PecMonostaticRcs) {
  // The values of mie_series_test.cpp PecMonostaticRcsAgreesWithSphericalBesselFunctions (equal to
  // a libstdc++ std::sph_bessel evaluation to 8 digits), and the CSV's theta = 180 rows agree.
  const json got = amplitudes("--pec", {1, 2, 3}, 90);
  const double expect[] = {3.6375665, 1.0081431, 0.52076541};
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i]["Q_back"].get<double>(), expect[i], 2e-8 * expect[i]) << i + 1;

  const double a = 0.25;
  const std::string csv = dir_ + "/pec.csv";
  const CliResult r = python("mie_rcs.py", "--radius 0.25 --pec --ka 1,2,3 --step 45 --out " + sh_quote(csv));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(ka = 1): Q_ext = 2.0359, Q_sca = 2.0359, sigma_back/(pi a^2) = 3.6376"), std::string::npos)
      << r.out;
  const auto rows = read_rows(csv, "frequency,theta_deg,phi_deg,rcs,rcs_dB");
  ASSERT_EQ(rows.size(), 3u * 2 * 5);
  int checked = 0;
  for (const auto& row : rows)
    if (row[1] == 180) {
      const int i = static_cast<int>(std::lround(row[0] * 2 * kPi * a)) - 1;  // ka - 1
      EXPECT_NEAR(row[3], expect[i] * kPi * a * a, 2e-8 * expect[i] * kPi * a * a);
      EXPECT_NEAR(row[4], 10 * std::log10(expect[i]), 1e-7);
      ++checked;
    }
  EXPECT_EQ(checked, 6);
}

TEST_F(MieRcs, CsvRowsAreTheSeriesRcs) {
  // Every row: sigma = pi a² 4/x² (cos² phi |S2|² + sin² phi |S1|²), with S1, S2 from the C++
  // series (an independent implementation) at ka = 1 and 2.5 (a = 0.4: f = ka/(2 pi a)), for a
  // dielectric, a lossy one and a PEC sphere, on three cuts.
  const double a = 0.4;
  const std::vector<double> ka = {1, 2.5};
  struct Material {
    std::string arg;
    bool pec;
    cplx eps;
  };
  for (const Material& mat : {Material{"--eps 4", false, 4.0}, Material{"--eps 2.25+0.4j", false, {2.25, 0.4}},
                              Material{"--pec", true, 0.0}}) {
    const std::string csv = dir_ + "/sub/mie.csv";  // the folder does not exist yet
    const CliResult r = python("mie_rcs.py", "--radius 0.4 " + mat.arg + " --ka " + join(ka) +
                                                 " --phi 0 45 90 --step 15 --out " + sh_quote(csv));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("wrote " + csv + " (78 rows)"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(csv + ".tmp"));
    const auto rows = read_rows(csv, "frequency,theta_deg,phi_deg,rcs,rcs_dB");
    ASSERT_EQ(rows.size(), 2u * 3 * 13);  // ka x phi x theta, in that order
    for (size_t i = 0; i < rows.size(); ++i) {
      const double x = ka[i / 39], theta_deg = 15.0 * static_cast<double>(i % 13);
      const double phi_deg = 45.0 * static_cast<double>((i / 13) % 3);
      EXPECT_NEAR(rows[i][0], x / (2 * kPi * a), 1e-15);
      EXPECT_EQ(rows[i][1], theta_deg);
      EXPECT_EQ(rows[i][2], phi_deg);
      const mie::Coefficients c =
          mat.pec ? mie::pec_coefficients(x) : mie::dielectric_coefficients(x, std::sqrt(mat.eps));
      const mie::Amplitudes s = mie::amplitudes(c, theta_deg * kPi / 180);
      const double cp = std::cos(phi_deg * kPi / 180), sp = std::sin(phi_deg * kPi / 180);
      const double sigma = kPi * a * a * 4 / (x * x) * (cp * cp * std::norm(s.S2) + sp * sp * std::norm(s.S1));
      EXPECT_NEAR(rows[i][3], sigma, 1e-12 * sigma) << mat.arg << ", row " << i;
      EXPECT_NEAR(rows[i][4], 10 * std::log10(sigma / (kPi * a * a)), 1e-11) << mat.arg << ", row " << i;
    }
  }
}

TEST_F(MieRcs, FromARunCsvAsPlotRcsReference) {
  // A far-field CSV from dgmax's writer at ka = 1 and 2 (a = 0.25, eps = 4, 5-degree principal
  // cuts), its amplitude the C++ series' far field (near_to_far.hpp's normalization: rcs =
  // 4 pi |F|²). mie_rcs.py --from-csv writes one row per row of it, same frequencies and angles,
  // and plot_rcs.py compares the two without interpolation: the differences are round-off.
  const double a = 0.25;
  std::vector<dgmax::FarFieldPattern> patterns;
  for (const double x : {1.0, 2.0}) {
    const double k = x / a;
    const mie::Coefficients c = mie::dielectric_coefficients(x, 2.0);
    dgmax::FarFieldPattern p;
    p.frequency = k / (2 * kPi);
    p.directions = dgmax::principal_cuts(5);
    for (const auto& d : p.directions) {
      const auto F = mie::far_field_amplitude(c, k, d.theta, d.phi);
      p.fields.push_back({F[0], F[1]});
    }
    p.incident = 1;
    patterns.push_back(p);
  }
  const std::string run = dir_ + "/far_field_rcs.csv", ref = dir_ + "/mie.csv";
  dgmax::write_far_field_csv(run, patterns, a);
  const CliResult r = python("mie_rcs.py", "--radius 0.25 --eps 4 --from-csv " + sh_quote(run) + " -o " + sh_quote(ref));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mie_rcs.py: f = 0.6366197724 (ka = 1): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mie_rcs.py: f = 1.273239545 (ka = 2): "), std::string::npos) << r.out;

  const auto run_rows = read_rows(run, "frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im,rcs,rcs_dB");
  const auto ref_rows = read_rows(ref, "frequency,theta_deg,phi_deg,rcs,rcs_dB");
  ASSERT_EQ(run_rows.size(), 2u * 2 * 37);
  ASSERT_EQ(ref_rows.size(), run_rows.size());
  double worst = 0;
  for (size_t i = 0; i < run_rows.size(); ++i) {
    for (int col = 0; col < 3; ++col) EXPECT_EQ(ref_rows[i][col], run_rows[i][col]) << "row " << i;
    worst = std::max(worst, std::abs(ref_rows[i][3] / run_rows[i][7] - 1));
  }
  EXPECT_LT(worst, 1e-12);
  for (const auto& row : ref_rows) EXPECT_GT(row[3], 0);

  if (!dgmax::test::python_has("numpy, matplotlib"))
    GTEST_SKIP() << "plot_rcs.py needs matplotlib (Debian: apt-get install python3-matplotlib)";
  const std::string png = dir_ + "/cmp.png";
  const CliResult plot = python("plot_rcs.py", sh_quote(run) + " --radius 0.25 --db --frequency 1.2732395447351628" +
                                                   " --reference " + sh_quote(ref) + " --out " + sh_quote(png));
  ASSERT_EQ(plot.code, 0) << plot.out << plot.err;
  int lines = 0;
  const std::string key = "max |rcs/ref - 1| = ";
  for (size_t pos = plot.out.find(key); pos != std::string::npos; pos = plot.out.find(key, pos + 1), ++lines)
    EXPECT_LT(std::stod(plot.out.substr(pos + key.size())), 1e-12) << plot.out;
  EXPECT_EQ(lines, 2) << plot.out;
  EXPECT_NE(plot.out.find("f = 1.273239545 phi = 0 deg: 37 angles, max |rcs/ref - 1|"), std::string::npos) << plot.out;
  EXPECT_NE(plot.out.find("f = 1.273239545 phi = 90 deg: 37 angles, max |rcs/ref - 1|"), std::string::npos) << plot.out;
  EXPECT_TRUE(fs::exists(png));
}

TEST_F(MieRcs, UserErrors) {
  const std::string out = dir_ + "/never.csv";
  const std::string o = " --out " + sh_quote(out);
  const std::string no_phi = dir_ + "/no_phi.csv";
  std::ofstream(no_phi) << "frequency,theta_deg\n1,0\n";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--eps 4 --ka 1" + o, "the following arguments are required: --radius/-a"},
      {"--radius 1 --eps 4 --pec --ka 1" + o, "argument --pec: not allowed with argument --eps"},
      {"--radius 1 --ka 1" + o, "one of the arguments --eps --pec is required"},
      {"--radius 1 --eps 4" + o, "one of the arguments --frequency/-f --ka --from-csv is required"},
      {"--radius 0 --eps 4 --ka 1" + o, "--radius must be > 0 (got 0)"},
      {"--radius 1 --eps 4x --ka 1" + o, "--eps: '4x' is not a number"},
      {"--radius 1 --eps 0 --ka 1" + o, "--eps must not be 0"},
      {"--radius 1 --pec --sigma 2 --ka 1" + o, "--sigma is for a dielectric (--eps), not --pec"},
      {"--radius 1 --eps 4 --ka 1 --step 7" + o, "--step 7 does not divide 180"},
      {"--radius 1 --eps 4 --ka 1,x" + o, "--ka: 'x' is not a number"},
      {"--radius 1 --eps 4 --frequency -1" + o, "the frequencies must be > 0 (got -1)"},
      {"--radius 1 --eps 4 --frequency 1e6" + o, "ka = 6.28319e+06 at f = 1e+06 is beyond 100000"},
      {"--radius 1 --eps 4 --from-csv " + sh_quote(dir_ + "/nowhere.csv") + o, "nowhere.csv' does not exist"},
      {"--radius 1 --eps 4 --from-csv " + sh_quote(no_phi) + o, "no_phi.csv has no 'phi_deg' column"},
      {"--radius 1 --eps 4 --from-csv " + sh_quote(no_phi) + " --step 2" + o,
       "--step and --phi do not go with --from-csv"},
  };
  for (const Case& c : cases) {
    const CliResult r = python("mie_rcs.py", c.args);
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("mie_rcs.py: error: ", 0), 0u) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
  }
  // argparse's own errors carry the same hint
  EXPECT_NE(python("mie_rcs.py", "--radius 1 --ka 1" + o).err.find("  hint: mie_rcs.py --help"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".tmp"));

  // --help answers with the usage block of the docstring
  const CliResult help = python("mie_rcs.py", "--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("mie_rcs.py --radius 0.25 --eps 4 --from-csv out/far_field_rcs.csv"), std::string::npos)
      << help.out;
}
