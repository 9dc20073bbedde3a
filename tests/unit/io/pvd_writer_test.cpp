// ParaView collection files: every step listed with its exact time, valid XML after every add.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "solver/io/pvd_writer.hpp"
#include "solver/util/error.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  std::vector<double> times;
  std::vector<std::string> files;
  bool well_formed = false;
};

// A small structural parse of the collection: header, root element, closed tags, DataSets.
Parsed parse(const std::string& xml) {
  Parsed p;
  p.well_formed = xml.rfind("<?xml version=\"1.0\"?>\n", 0) == 0 &&
                  xml.find("<VTKFile type=\"Collection\"") != std::string::npos &&
                  xml.find("<Collection>") != std::string::npos &&
                  xml.find("</Collection>") != std::string::npos &&
                  xml.size() >= 11 && xml.substr(xml.size() - 11) == "</VTKFile>\n";
  const std::regex ds("<DataSet timestep=\"([^\"]*)\" group=\"\" part=\"0\" file=\"([^\"]*)\"/>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), ds); it != std::sregex_iterator(); ++it) {
    p.times.push_back(std::strtod((*it)[1].str().c_str(), nullptr));
    p.files.push_back((*it)[2].str());
  }
  return p;
}

}  // namespace

TEST(PvdWriter, ListsAllStepsWithExactTimes) {
  TempDir dir("pvd");
  PvdWriter w(dir / "series.pvd");
  const std::vector<double> times = {0.0, 0.1, 1.0 / 3.0, 2.5e-7, 1e6 + 0.5};
  for (size_t i = 0; i < times.size(); ++i) {
    w.add(times[i], "series_0000" + std::to_string(i) + ".vtu");
    // Valid and complete after every step.
    const Parsed p = parse(slurp(w.path()));
    EXPECT_TRUE(p.well_formed);
    ASSERT_EQ(p.times.size(), i + 1);
    for (size_t j = 0; j <= i; ++j) {
      EXPECT_EQ(p.times[j], times[j]);  // bit-exact round trip (17 digits)
      EXPECT_EQ(p.files[j], "series_0000" + std::to_string(j) + ".vtu");
    }
  }
  EXPECT_EQ(w.entries().size(), times.size());
  EXPECT_EQ(dir.count_tmp(), 0);
}

TEST(PvdWriter, EscapesFileNames) {
  const std::string xml = pvd_xml({{1.0, "a&b<c>\"d'.vtu", 0}});
  EXPECT_NE(xml.find("file=\"a&amp;b&lt;c&gt;&quot;d&apos;.vtu\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("timestep=\"1\""), std::string::npos) << xml;
}

TEST(PvdWriter, EmptyCollectionIsValid) {
  const Parsed p = parse(pvd_xml({}));
  EXPECT_TRUE(p.well_formed);
  EXPECT_TRUE(p.times.empty());
}

TEST(PvdWriter, UnwritableLocationIsAUserErrorNamingIt) {
  TempDir dir("pvd_fail");
  const std::string path = dir / "missing/series.pvd";
  PvdWriter w(path);
  try {
    w.add(0.0, "x.vtu");
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find(path), std::string::npos) << e.message();
  }
  EXPECT_EQ(dir.count_tmp(), 0);  // no temporary file left (they end in ".tmp")
}
