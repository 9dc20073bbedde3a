// What the features built on straight-sided elements refuse on a curved mesh, each with the
// element it found, the config's block and a hint: a curved element in the layer, a curved face on
// the TF/SF box or a monitor's surface. A curved object away from them runs (curved_tfsf_test.cpp,
// curved_pml_test.cpp, curved_monitor_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "expect_user_error.hpp"
#include "solver/physics/dft_monitor.hpp"
#include "warped_config_problem.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

// [-0.625, 0.625]^3 in 5^3 cells, N = 2, and `extra` (a layer, a box)
std::string config(const std::string& extra) {
  return "mesh: {box: {lower: [-0.625, -0.625, -0.625], upper: [0.625, 0.625, 0.625], cells: [5, 5, 5]}}\n"
         "discretization: {order: 2}\nincident: {E: [\"0\", \"sin(x - t)\", \"0\"], H: [\"0\", \"0\", \"sin(x - t)\"]}\n" +
         extra;
}

// Every element curved, every vertex kept (so the layer and the boxes find their elements and
// planes as on the straight mesh): with ξ = (x + 0.625) / h, h = 0.25 the cell size, every
// component moves by 0.05 h (s_x s_y + s_y s_z + s_z s_x), s_d = sin(π ξ_d), which vanishes at the
// vertices only (a face on a cell plane bends off it).
Warp whole_box() {
  return [](const Vec3& x) {
    double s[3];
    for (int d = 0; d < 3; ++d) s[d] = std::sin(M_PI * (x[d] + 0.625) / 0.25);
    const double move = 0.05 * 0.25 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]);
    return Vec3{x[0] + move, x[1] + move, x[2] + move};
  };
}

const std::string kTfsf = "tfsf: {box: {lower: [-0.375, -0.375, -0.375], upper: [0.375, 0.375, 0.375]}}\n";

}  // namespace

TEST(CurvedRefusals, CurvedElementInTheLayer) {
  const UserError e = expect_hinted_user_error([] { warped_config_problem(config("pml: {thickness: 0.25}\n"), 2, whole_box()); },
                                               {"pml: element ", "centroid (", "of the layer is curved (geometry order 2)",
                                                "the layer takes straight-sided elements only"});
  EXPECT_NE(e.hint().find("keep the curved object away from it"), std::string::npos) << e.render();
  EXPECT_EQ(e.where().file, "test.yaml");
}

TEST(CurvedRefusals, CurvedFaceOnTheTfsfBox) {
  const UserError e = expect_hinted_user_error([] { warped_config_problem(config(kTfsf), 2, whole_box()); },
                                               {"the tfsf box [-0.375, 0.375]", "crosses a curved face (face ",
                                                "of element ", "centroid ("});
  EXPECT_NE(e.hint().find("put the box on straight-sided elements"), std::string::npos) << e.render();
  EXPECT_EQ(e.where().file, "test.yaml");
}

TEST(CurvedRefusals, CurvedFaceOnASurfaceMonitor) {
  const auto cp = warped_config_problem(config(""), 2, whole_box());
  MonitorSpec spec;
  spec.name = "shell";
  spec.lower = {-0.375, -0.375, -0.375};
  spec.upper = {0.375, 0.375, 0.375};
  spec.frequencies = {1};
  spec.region_where = {"monitors.yaml", 3, 5};
  const UserError e = expect_hinted_user_error([&] { make_dft_monitor(cp->p, spec); },
                                               {"of monitor 'shell'", "crosses a curved face (face ", "of element "});
  EXPECT_EQ(e.where().file, "monitors.yaml");
  // a volume monitor over the same curved elements is taken (curved_monitor_test.cpp)
  spec.kind = MonitorSpec::Volume;
  spec.volume_tag = "domain";
  EXPECT_EQ(make_dft_monitor(cp->p, spec).points.size(), static_cast<size_t>(cp->p.K()) * cp->p.Np());
}
