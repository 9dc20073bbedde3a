// The far-field accuracy check (5% of Mie at every angle within 20 dB of the maximum, ka = 1, 2, 3)
// of configs/sphere_rcs.yaml and configs/sphere_rcs_pec.yaml on a fine mesh made beforehand (a GPU
// machine has no gmsh binary; configs/sphere_rcs.yaml's header gives the commands; dgmax reads a .msh
// without Gmsh). No gmsh_ prefix: it is built everywhere, reads its settings from the environment and
// skips without them:
//   DGMAX_SPHERE_RCS_MSH       dielectric-sphere .msh (meshes/sphere_rcs.geo)
//   DGMAX_SPHERE_RCS_PEC_MSH   PEC-sphere .msh (meshes/sphere_rcs_pec.geo)
//   DGMAX_SPHERE_RCS_BACKEND   backend (default auto), DGMAX_SPHERE_RCS_ORDER (default 3),
//   DGMAX_SPHERE_RCS_FINAL     final time (default the config's), DGMAX_SPHERE_RCS_TOL (default 0.05)
#include <cstdlib>

#include "sphere_rcs_compare.hpp"

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

void check_fine(const char* config, const char* mesh_var, bool pec) {
  const char* msh = env(mesh_var);
  if (!msh) GTEST_SKIP() << mesh_var << " is not set: give it a fine .msh (configs/sphere_rcs.yaml's header says how)";
  const char* backend = env("DGMAX_SPHERE_RCS_BACKEND");
  const char* order = env("DGMAX_SPHERE_RCS_ORDER");
  const char* tol = env("DGMAX_SPHERE_RCS_TOL");
  const char* final_time = env("DGMAX_SPHERE_RCS_FINAL");
  const double t = tol ? std::atof(tol) : 0.05;
  std::vector<std::string> sets = {std::string("mesh.file=") + msh, std::string("backend=") + (backend ? backend : "auto"),
                                   std::string("discretization.order=") + (order ? order : "3")};
  if (final_time) sets.push_back(std::string("time.final=") + final_time);
  dgmax::test::sphere_rcs::check_case(config, pec, sets, {t, t, t});
}

}  // namespace

TEST(SphereRcsFine, DielectricSphereWithin5Percent) { check_fine("sphere_rcs", "DGMAX_SPHERE_RCS_MSH", false); }
TEST(SphereRcsFine, PecSphereWithin5Percent) { check_fine("sphere_rcs_pec", "DGMAX_SPHERE_RCS_PEC_MSH", true); }
