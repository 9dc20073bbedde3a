// Errors in a config's user-written flux (`flux:`) and boundary states (`boundary_states:`):
// each names file:line:column, the problem and a hint, and exits 1.
#include <gtest/gtest.h>

#include <fstream>

#include "temp_path.hpp"
#include "run_cli.hpp"

namespace {

struct Case {
  const char* name;
  const char* config;       // after the mesh line
  const char* location;     // "file:line:col: error: message" without the directory
  const char* hint;         // part of the hint ("" for none)
};

const Case kCases[] = {
    {"both", "discretization: {flux: upwind}\nflux:\n  E: \"cross(n, Z.int)\"\n  H: \"n\"\n",
     "both.yaml:4:3: error: both 'flux' and 'discretization.flux' are given; keep one",
     "'discretization.flux' names a built-in"},
    {"missing_h", "flux: {E: \"jump(E)\"}\n", "missing_h.yaml:2:7: error: 'flux' needs both E and H expressions", ""},
    {"type", "flux:\n  E: \"cross(n, Z.int)\"\n  H: \"cross(n, jump(E))\"\n",
     "type.yaml:3:7: error: cross expects two 3-vectors, got a scalar as argument 2", ""},
    {"builtin_name", "boundary_states:\n  pec: {E: \"E.int\", H: \"H.int\"}\n",
     "builtin_name.yaml:3:3: error: 'pec' is a built-in boundary condition; choose another name", ""},
    {"bad_name", "boundary_states:\n  2x: {E: \"E.int\", H: \"H.int\"}\n",
     "bad_name.yaml:3:3: error: '2x' is not a valid state name", ""},
    {"ext_trace", "boundary_states:\n  mine: {E: \"E.ext\", H: \"H.int\"}\n",
     "ext_trace.yaml:3:14: error: 'E.ext': exterior traces are what a boundary condition defines; use E.int/H.int", ""},
    {"unknown_state", "boundary_states:\n  mine: {E: \"-E.int\", H: \"H.int\"}\nboundaries: {default: mien}\n",
     "unknown_state.yaml:4:23: error: unknown boundary condition 'mien' for 'boundaries.default'",
     "did you mean 'mine'? valid: pec, pmc, absorbing, incident, mine"},
};

}  // namespace

TEST(FluxConfigErrors, EachHasItsLocatedMessage) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string dir = dgmax::test::unique_temp_dir("flux_config_errors");
    const std::string path = dir + c.name + ".yaml";
    std::ofstream(path) << "mesh: {box: {cells: [1, 1, 1]}}\n" << c.config;
    const auto r = dgmax::test::run_dgmax("run " + path + " --quiet --output " + dir + "flux_err_out");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(c.location), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.hint), std::string::npos) << r.err;
  }
}
