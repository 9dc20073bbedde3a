// The config's `partition:` key: how several ranks split the mesh (auto | metis | rcb | sfc).
#include <gtest/gtest.h>

#include <string>

#include "expect_user_error.hpp"
#include "solver/io/run_config.hpp"
#include "solver/io/yaml_doc.hpp"
#include "solver/mesh/partition.hpp"

namespace dgmax {
using test::expect_hinted_user_error;
using test::expect_user_error;
namespace {

constexpr const char* kPartitionTestMesh = "mesh: {box: {cells: [1, 1, 1]}}\n";
RunConfig parse_with_partition(const std::string& text) {
  return parse_run_config(YamlDoc::load_string(text, "c.yaml"));
}

TEST(PartitionConfig, DefaultsToAutoAndTakesEachMethod) {
  EXPECT_EQ(parse_with_partition(kPartitionTestMesh).partition, "auto");
  for (const char* m : {"auto", "rcb", "sfc"})
    EXPECT_EQ(parse_with_partition(std::string(kPartitionTestMesh) + "partition: " + m + "\n").partition, m);
  if (metis_available()) {
    EXPECT_EQ(parse_with_partition(std::string(kPartitionTestMesh) + "partition: metis\n").partition, "metis");
  }
  YamlDoc doc = YamlDoc::load_string(kPartitionTestMesh, "c.yaml");
  doc.apply_override("partition=sfc");  // --set partition=sfc
  EXPECT_EQ(parse_run_config(doc).partition, "sfc");
}

TEST(PartitionConfig, RefusesUnknownMethodsWithTheirPlace) {
  const UserError e = expect_hinted_user_error([] { parse_with_partition(std::string(kPartitionTestMesh) + "partition: scotch\n"); },
                                               {"unknown partition method 'scotch'"});
  EXPECT_EQ(e.where().file, "c.yaml");
  EXPECT_EQ(e.where().line, 2);
  EXPECT_NE(e.hint().find("rcb"), std::string::npos) << e.render();
  expect_user_error([] { parse_with_partition(std::string(kPartitionTestMesh) + "partition: [rcb]\n"); });
  if (!metis_available()) {
    expect_hinted_user_error([] { parse_with_partition(std::string(kPartitionTestMesh) + "partition: metis\n"); }, {"no METIS"});
  }
}

}  // namespace
}  // namespace dgmax
