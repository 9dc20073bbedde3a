// Regression: configs/sphere_rcs.yaml (dielectric sphere, eps = 4) and configs/sphere_rcs_pec.yaml
// (perfectly conducting sphere), radius a = 0.25, x-polarized plane pulse travelling +z through a
// TF/SF box, far field from the closed DFT monitor `rcs` (far_field_rcs.csv, rcs column: the
// incident field's DFT at the origin normalizes it). The bistatic RCS at ka = 1, 2, 3 is compared
// with the Mie series (tests/common/mie_series.hpp: sigma/(pi a²) = 4|S2|²/x² on the E-plane,
// phi = 0, and 4|S1|²/x² on the H-plane, phi = 90°, for E along x travelling +z) at every angle
// where the RCS is within 20 dB of its maximum over both cuts.
//
// On the shipped (coarse, CI) meshes this only shows the comparison is a real one (an RCS off by 2x
// fails it); the 5% target is checked on a fine mesh by sphere_rcs_fine_test.cpp.
#include "sphere_rcs_compare.hpp"

using dgmax::test::sphere_rcs::check_case;

// Measured on the shipped meshes (N = 2, curved at geometry order 2, the layer of cubes): eps = 4
// 0.081 / 0.123 / 0.421, PEC 0.027 / 0.040 / 0.068 (the configs' headers). Every bound is below the
// straight-sided error (eps = 4: 0.101 / 0.358 / 0.686, PEC: 0.092 / 0.132 / 0.103): the curved
// sphere is checked.
TEST(GmshSphereRcs, DielectricSphereAgainstMie) { check_case("sphere_rcs", false, {}, {0.09, 0.16, 0.50}); }
TEST(GmshSphereRcs, PecSphereAgainstMie) { check_case("sphere_rcs_pec", true, {}, {0.035, 0.052, 0.088}); }

