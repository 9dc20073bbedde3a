// postprocess/render.py and postprocess/monitors_to_vtu.py on real dgmax runs. The PNG's colour
// range (its tEXt chunk dgmax:color_range) is checked against the field's range computed here from
// the data: a static field that is linear in x, y, z, whose range on a plane section of the unit
// cube is known exactly (its values at the section's corners) once the snapshot is checked to
// hold that field; and a DFT monitor's values read from monitors.h5 with h5py. Both engines where
// they can run: VTK only where it renders off screen (Debian's python3-vtk9 needs an X display:
// the VTK test skips with the reason otherwise).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"

namespace fs = std::filesystem;
using dgmax::test::CliResult;
using dgmax::test::read_all;
using dgmax::test::run_dgmax;
using nlohmann::json;

namespace render_test {

const std::string kPython = "/usr/bin/python3";

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A static field: curl E = 0 (its Jacobian is symmetric) and H = 0, held at the walls by an
// `incident` boundary with the same field, so E stays this linear function (to ~1e-15).
const char* kLinearConfig = R"text(mesh: {box: {lower: [0, 0, 0], upper: [1, 1, 1], cells: [2, 2, 2]}}
discretization: {order: 2}
boundaries: {default: incident}
initial:  {E: ["x + 2*y + 3*z", "2*x - y", "3*x + z"], H: ["0", "0", "0"]}
incident: {E: ["x + 2*y + 3*z", "2*x - y", "3*x + z"], H: ["0", "0", "0"]}
time: {final: 0.05}
output: {format: both}
)text";

// The PEC cavity mode with a surface (box) and a volume DFT monitor.
const char* kMonitorConfig = R"text(mesh:
  box: {lower: [0, 0, 0], upper: [1, 1, 1], cells: [4, 4, 4],
        regions: [{tag: core, lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}]}
discretization: {order: 2}
boundaries: {default: pec}
initial: {E: ["0", "0", "sin(pi*x)*sin(pi*y)"]}
time: {final: 0.5}
output: {vtk_every: 0.25}
monitors:
  - {name: box, surface: {box: {lower: [0.25, 0.25, 0.25], upper: [0.75, 0.75, 0.75]}}, frequencies: [0.5, 0.7071]}
  - {name: vol, volume: core, frequencies: [0.7071]}
)text";

// Prints the PNG's size, how many distinct colours it has and its dgmax: text chunks, as JSON.
const char* kPngInfo = R"text(import json, sys
import numpy as np
from PIL import Image
im = Image.open(sys.argv[1]); im.load()
rgb = np.asarray(im.convert("RGB")).reshape(-1, 3)
print(json.dumps({"format": im.format, "width": im.size[0], "height": im.size[1],
                  "colors": int(len(np.unique(rgb, axis=0))),
                  "text": {k: v for k, v in im.text.items() if k.startswith("dgmax:")}}))
)text";

// The largest deviation of a snapshot's E from the linear field, and its largest |H|.
const char* kLinearCheck = R"text(import json, sys
import numpy as np
import vtk
from vtk.util import numpy_support as ns
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(sys.argv[1]); r.Update(); g = r.GetOutput()
x = ns.vtk_to_numpy(g.GetPoints().GetData())
E = ns.vtk_to_numpy(g.GetPointData().GetArray("E")); H = ns.vtk_to_numpy(g.GetPointData().GetArray("H"))
lin = np.c_[x[:, 0] + 2 * x[:, 1] + 3 * x[:, 2], 2 * x[:, 0] - x[:, 1], 3 * x[:, 0] + x[:, 2]]
print(json.dumps({"points": int(len(x)), "E_dev": float(np.abs(E - lin).max()), "H_max": float(np.abs(H).max()),
                  "bounds": [float(b) for b in g.GetBounds()]}))
)text";

// From monitors.h5 with h5py: the range of a component's part over all points of a monitor, or
// over its points on the plane x[axis] = at (within 1e-9), at the frequency index fi.
const char* kMonitorRange = R"text(import json, sys
import numpy as np, h5py
path, name, fi, comp, part = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
with h5py.File(path, "r") as f:
    g = f[name]
    x = g["x"][()]
    z = g[comp[0] + "_re"][fi][:, "xyz".index(comp[1])] + 1j * g[comp[0] + "_im"][fi][:, "xyz".index(comp[1])]
    freq = float(g["frequencies"][fi])
v = {"real": z.real, "imag": z.imag, "abs": np.abs(z), "phase": np.angle(z)}[part]
if len(sys.argv) > 6:
    on = np.abs(x[:, "xyz".index(sys.argv[6])] - float(sys.argv[7])) <= 1e-9
    v = v[on]
print(json.dumps({"min": float(v.min()), "max": float(v.max()), "points": int(v.size), "frequency": freq}))
)text";

// Compares a monitors_to_vtu.py .vtu with monitors.h5: point count, coordinates, normals and
// 50 random (frequency, point, component) entries of every array (|E| recomputed here).
const char* kVtuVsH5 = R"text(import json, sys
import numpy as np, h5py, vtk
from vtk.util import numpy_support as ns
h5, name, vtu = sys.argv[1:4]
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(vtu); r.Update(); g = r.GetOutput()
pd = g.GetPointData()
rng = np.random.default_rng(7)
worst, checked = 0.0, 0
with h5py.File(h5, "r") as f:
    m = f[name]
    freqs = m["frequencies"][()]
    x = m["x"][()]
    out = {"h5_points": int(len(x)), "vtu_points": int(g.GetNumberOfPoints()), "vtu_cells": int(g.GetNumberOfCells())}
    worst = float(np.abs(ns.vtk_to_numpy(g.GetPoints().GetData()) - x).max())
    if "normal" in m:
        worst = max(worst, float(np.abs(ns.vtk_to_numpy(pd.GetNormals()) - m["normal"][()]).max()))
    for _ in range(50):
        fi, p, c = rng.integers(len(freqs)), rng.integers(len(x)), rng.integers(3)
        tag = " f=%r" % float(freqs[fi])
        for field in ("E_re", "E_im", "H_re", "H_im"):
            got = ns.vtk_to_numpy(pd.GetArray(field + tag))[p, c]
            worst = max(worst, abs(float(got) - float(m[field][fi, p, c])))
            checked += 1
        mag = np.sqrt(np.sum(m["E_re"][fi, p] ** 2 + m["E_im"][fi, p] ** 2))
        worst = max(worst, abs(float(ns.vtk_to_numpy(pd.GetArray("|E|" + tag))[p]) - mag) / max(mag, 1e-300))
        checked += 1
out.update({"worst": worst, "checked": checked})
print(json.dumps(out))
)text";

CliResult shell(const std::string& cmdline, const std::string& base) {
  const std::string cmd = cmdline + " >" + quote(base + ".out") + " 2>" + quote(base + ".err");
  const int status = std::system(cmd.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(base + ".out"), read_all(base + ".err")};
  fs::remove(base + ".out");
  fs::remove(base + ".err");
  return r;
}

// |a - b| within 1e-12 of the larger magnitude of the range it belongs to.
void expect_range(const json& got, double lo, double hi, const std::string& what) {
  ASSERT_TRUE(got.is_array() && got.size() == 2) << what << ": " << got.dump();
  const double scale = std::max(std::abs(lo), std::abs(hi));
  EXPECT_NEAR(got[0].get<double>(), lo, 1e-12 * scale) << what;
  EXPECT_NEAR(got[1].get<double>(), hi, 1e-12 * scale) << what;
}

json pair_of(const std::string& text) {
  double a = NAN, b = NAN;
  if (std::sscanf(text.c_str(), "%lf %lf", &a, &b) != 2) return json();
  return json::array({a, b});
}

class Render : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string probe = kPython + " -c 'import numpy, matplotlib, vtk, h5py, PIL' >/dev/null 2>&1";
    if (std::system(probe.c_str()) != 0)
      GTEST_SKIP() << kPython << " with numpy, matplotlib, vtk, h5py and PIL is needed for render.py and its checks "
                   << "(Debian: apt-get install python3-numpy python3-matplotlib python3-vtk9 python3-h5py python3-pil)";
    ::setenv("OMP_NUM_THREADS", "1", 1);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / ("dgmax_render_" + std::to_string(::getpid()) + "_" + info->name())).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Runs dgmax on `config` into dir_/run; fails the test when it does not finish.
  std::string run_config(const std::string& config) {
    const std::string run = dir_ + "/run";
    const CliResult d = run_dgmax("run -q " + quote(write("case.yaml", config)) + " --output " + quote(run));
    EXPECT_EQ(d.code, 0) << d.err;
    return run;
  }
  CliResult script(const std::string& name, const std::string& args) {
    return shell(kPython + " " + quote(std::string(DGMAX_SOURCE_DIR) + "/postprocess/" + name) + " " + args,
                 dir_ + "/cmd" + std::to_string(calls_++));
  }
  // Runs a check script (text) and parses what it printed.
  json check(const char* text, const std::string& args) {
    const std::string path = write("check" + std::to_string(calls_) + ".py", text);
    const CliResult r = shell(kPython + " " + quote(path) + " " + args, dir_ + "/cmd" + std::to_string(calls_++));
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json::object();
  }
  // The PNG's facts (kPngInfo), after checking it exists and no .tmp is left.
  json png(const std::string& path) {
    EXPECT_TRUE(fs::exists(path)) << path;
    EXPECT_FALSE(fs::exists(path + ".tmp")) << path;
    return check(kPngInfo, quote(path));
  }
  // Whether VTK renders off screen here, and why not (render_vtk.offscreen_works()).
  std::pair<bool, std::string> vtk_offscreen() {
    const CliResult r = shell(kPython + " -B -c " +
                                  quote("import sys; sys.path.insert(0, '" + std::string(DGMAX_SOURCE_DIR) +
                                        "/postprocess'); import render_vtk; ok, why = render_vtk.offscreen_works(); "
                                        "print('yes' if ok else why)"),
                              dir_ + "/probe");
    const bool ok = r.out.rfind("yes", 0) == 0;
    return {ok, ok ? std::string() : r.out.substr(0, r.out.find_last_not_of("\n") + 1) + r.err};
  }

  // Slices of the linear field in both snapshot formats by `engine`, each range against the field's
  // values at the plane section's corners (E is linear: its extremes on the section are there).
  // Ex = x + 2y + 3z, Ey = 2x - y, Ez = 3x + z on the unit cube; z = 0.3 cuts through elements,
  // z = 0.5 (the default: the centre) runs along element faces.
  void linear_slices(const std::string& run, const std::string& engine) {
    struct Case {
      std::string input, args;
      double lo, hi;
    };
    const Case cases[] = {
        {"fields.pvd", "--index 0 --quantity Ex --offset 0.3", 0.9, 3.9},
        {"fields.pvd", "--quantity Ex", 1.5, 4.5},
        {"fields_00001.h5", "--quantity Ey --normal x --offset 0.7", 0.4, 1.4},
        {"fields_00001.vtu", "--quantity Ez --normal y --offset 0.7", 0.0, 4.0},
    };
    int i = 0;
    for (const Case& c : cases) {
      const std::string out = dir_ + "/" + engine + std::to_string(i++) + ".png";
      const CliResult r = script("render.py", "slice " + quote(run + "/" + c.input) + " " + c.args + " --engine " +
                                                  engine + " --size 640 480 --out " + quote(out));
      ASSERT_EQ(r.code, 0) << c.args << "\n" << r.out << r.err;
      const json p = png(out);
      const std::string what = engine + ": " + c.input + " " + c.args;
      EXPECT_EQ(p["format"], "PNG") << what;
      EXPECT_EQ(p["width"], 640) << what;
      EXPECT_EQ(p["height"], 480) << what;
      EXPECT_GT(p["colors"].get<int>(), 50) << what;  // a colour map, not a blank picture
      EXPECT_EQ(p["text"]["dgmax:engine"], engine) << what;
      expect_range(pair_of(p["text"].value("dgmax:field_range", "")), c.lo, c.hi, what + " (field range)");
      expect_range(pair_of(p["text"].value("dgmax:color_range", "")), c.lo, c.hi, what + " (colour range)");
      // printed too, with every digit
      EXPECT_NE(r.out.find("render.py: color range " + p["text"].value("dgmax:color_range", "?")), std::string::npos)
          << r.out;
    }
  }

  std::string dir_;
  int calls_ = 0;
};

}  // namespace render_test

using render_test::quote;
using render_test::Render;
using render_test::expect_range;
using render_test::pair_of;

TEST_F(Render, SliceRangesOfALinearFieldAreExactWithMatplotlib) {
  const std::string run = run_config(render_test::kLinearConfig);
  // The snapshots hold the linear field (checked here, not by render.py): the truth is exact.
  for (const char* f : {"fields_00000.vtu", "fields_00001.vtu"}) {
    const json lin = check(render_test::kLinearCheck, quote(run + "/" + f));
    EXPECT_LT(lin["E_dev"].get<double>(), 1e-13) << f;
    EXPECT_LT(lin["H_max"].get<double>(), 1e-13) << f;
    EXPECT_EQ(lin["bounds"], json::array({0, 1, 0, 1, 0, 1})) << f;
  }
  linear_slices(run, "matplotlib");

  // --range sets the colour range only; the field's range is still stored and printed.
  const std::string out = dir_ + "/ranged.png";
  const CliResult r = script("render.py", "slice " + quote(run + "/fields.pvd") +
                                              " --quantity Ex --offset 0.3 --range -1 5 --engine matplotlib --out " +
                                              quote(out));
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = png(out);
  expect_range(pair_of(p["text"].value("dgmax:color_range", "")), -1, 5, "--range");
  expect_range(pair_of(p["text"].value("dgmax:field_range", "")), 0.9, 3.9, "--range");
  EXPECT_NE(r.out.find("render.py: color range -1.0 5.0\n"), std::string::npos) << r.out;

  // Energy density with eps = 2 in the one volume tag: u = |E|^2 (H = 0), convex, so its maximum on
  // the section z = 0.3 is at a corner: (1, 1) with E = (3.9, 1, 3.3), |E|^2 = 27.1; the minimum is
  // at most the smallest corner value, 0.9 at (0, 0).
  const std::string energy = dir_ + "/energy.png";
  const CliResult re = script("render.py", "slice " + quote(run + "/fields.pvd") +
                                               " --quantity energy --material domain=2,1 --offset 0.3"
                                               " --engine matplotlib --out " + quote(energy));
  ASSERT_EQ(re.code, 0) << re.err;
  const json fe = pair_of(png(energy)["text"].value("dgmax:field_range", ""));
  ASSERT_EQ(fe.size(), 2u);
  EXPECT_NEAR(fe[1].get<double>(), 27.1, 1e-12 * 27.1);
  EXPECT_GE(fe[0].get<double>(), 0.0);
  EXPECT_LE(fe[0].get<double>(), 0.9 + 1e-12);

  // An isosurface (3D view): the slice's range is unchanged.
  const std::string iso = dir_ + "/iso.png";
  const CliResult ri = script("render.py", "slice " + quote(run + "/fields.pvd") +
                                               " --quantity Ex --offset 0.3 --iso 2 3 --engine matplotlib --out " +
                                               quote(iso));
  ASSERT_EQ(ri.code, 0) << ri.err;
  const json pi = png(iso);
  EXPECT_EQ(pi["width"], 1000);  // the default size
  EXPECT_EQ(pi["height"], 750);
  expect_range(pair_of(pi["text"].value("dgmax:field_range", "")), 0.9, 3.9, "--iso");
}

TEST_F(Render, SliceRangesOfALinearFieldAreExactWithVtk) {
  const auto [ok, why] = vtk_offscreen();
  if (!ok) GTEST_SKIP() << "VTK cannot render off screen on this machine (" << why << "); the matplotlib engine is tested";
  linear_slices(run_config(render_test::kLinearConfig), "vtk");
}

TEST_F(Render, AutomaticEngineFallsBackWithANote) {
  const std::string run = run_config(render_test::kLinearConfig);
  const auto [ok, why] = vtk_offscreen();
  const std::string out = dir_ + "/auto.png";
  const CliResult r = script("render.py", "slice " + quote(run + "/fields_00000.vtu") + " --out " + quote(out));
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = png(out);
  EXPECT_EQ(p["text"]["dgmax:engine"], ok ? "vtk" : "matplotlib") << why;
  const std::string note = "render.py: note: VTK cannot render off screen here";
  EXPECT_EQ(r.err.find(note) != std::string::npos, !ok) << r.err;
  if (!ok) {  // forcing the engine that cannot run is an error, with a hint
    const CliResult forced = script("render.py", "slice " + quote(run + "/fields_00000.vtu") +
                                                     " --engine vtk --out " + quote(dir_ + "/x.png"));
    EXPECT_EQ(forced.code, 1);
    EXPECT_NE(forced.err.find("render.py: error: VTK cannot render off screen here"), std::string::npos) << forced.err;
    EXPECT_NE(forced.err.find("hint: use --engine matplotlib"), std::string::npos) << forced.err;
    EXPECT_FALSE(fs::exists(dir_ + "/x.png"));
  }
}

TEST_F(Render, MonitorRangesAreTheMonitorsValues) {
  const std::string run = run_config(render_test::kMonitorConfig);
  const std::string h5 = quote(run + "/monitors.h5");
  // Surface monitor: every point counts. Volume monitor: the points on the plane z = 0.5, also when
  // the offset asked for (0.49) is not a plane of points (the nearest one is taken, with a note).
  struct Case {
    std::string args, truth_args;
    int points;
  };
  const Case cases[] = {
      // 6 faces x 8 element faces (2 x 2 cells, 2 triangles each) x 6 face nodes (N = 2)
      {"--name box --component Ez --part abs", "box 0 Ez abs", 288},
      {"--name box --frequency 0.7071 --component Hx --part real", "box 1 Hx real", 288},
      {"--name vol --component Ez --part imag --offset 0.5", "vol 0 Ez imag z 0.5", 0},
      {"--name vol --component Ez --part phase --offset 0.49", "vol 0 Ez phase z 0.5", 0},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string out = dir_ + "/m" + std::to_string(i++) + ".png";
    const CliResult r = script("render.py", "monitor " + h5 + " " + c.args + " --engine matplotlib --size 800 600 --out " +
                                                quote(out));
    ASSERT_EQ(r.code, 0) << c.args << "\n" << r.err;
    const json truth = check(render_test::kMonitorRange, h5 + " " + c.truth_args);
    if (c.points > 0) {
      EXPECT_EQ(truth["points"], c.points) << c.args;
    }
    EXPECT_GE(truth["points"].get<int>(), 3) << c.args;
    const json p = png(out);
    EXPECT_EQ(p["width"], 800) << c.args;
    EXPECT_EQ(p["height"], 600) << c.args;
    EXPECT_GT(p["colors"].get<int>(), 50) << c.args;
    const double lo = truth["min"], hi = truth["max"];
    EXPECT_LT(lo, hi) << c.args;
    expect_range(pair_of(p["text"].value("dgmax:field_range", "")), lo, hi, c.args);
    expect_range(pair_of(p["text"].value("dgmax:color_range", "")), lo, hi, c.args);
    EXPECT_EQ(std::stod(p["text"].value("dgmax:frequency", "nan")), truth["frequency"].get<double>()) << c.args;
    EXPECT_EQ(r.err.find("no points on z = 0.49") != std::string::npos, c.args.find("0.49") != std::string::npos)
        << c.args << "\n" << r.err;
  }
}

TEST_F(Render, UserErrorsNameTheInputAndGiveAHint) {
  const std::string run = run_config(render_test::kMonitorConfig);
  const std::string h5 = quote(run + "/monitors.h5"), pvd = quote(run + "/fields.pvd");
  struct Case {
    std::string args, message, hint;
  };
  const Case cases[] = {
      {"monitor " + h5, "holds 2 monitors: choose one with --name", "its monitors are: box, vol"},
      {"monitor " + h5 + " --name nope", "has no monitor 'nope'", "its monitors are: box, vol"},
      {"monitor " + h5 + " --name box --frequency 0.3", "monitor 'box' has no frequency 0.3",
       "its frequencies are: 0.5, 0.7071"},
      {"monitor " + h5 + " --name box --component E --part real", "it has no real part", "use --part abs"},
      {"slice " + pvd + " --offset 2", "the plane z = 2 misses the mesh", "the mesh spans z = 0 .. 1"},
      {"slice " + pvd + " --index 7", "--index 7 is out of range", "use 0..2"},
      {"slice " + pvd + " --range 1 0", "LO must be below HI", "e.g. --range"},
      {"slice " + quote(run + "/nowhere.vtu"), "nowhere.vtu' does not exist", "give a .vtu, .pvtu, .pvd or .h5"},
      {"slice " + pvd + " --quantity energy --material glass=2,1", "which this snapshot does not have",
       "its tags are: domain, core"},
  };
  for (const Case& c : cases) {
    const CliResult r = script("render.py", c.args + " --engine matplotlib --out " + quote(dir_ + "/x.png"));
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("render.py: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("hint: " + c.hint), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir_ + "/x.png")) << c.args;
  }
}

TEST_F(Render, MonitorsToVtuHoldsTheH5Values) {
  const std::string run = run_config(render_test::kMonitorConfig);
  const CliResult r = script("monitors_to_vtu.py", quote(run + "/monitors.h5") + " --out " + quote(dir_ + "/vtu"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string name : {"box", "vol"}) {
    const std::string vtu = dir_ + "/vtu/monitors_" + name + ".vtu";
    ASSERT_TRUE(fs::exists(vtu)) << r.out;
    EXPECT_FALSE(fs::exists(vtu + ".tmp"));
    const json c = check(render_test::kVtuVsH5, quote(run + "/monitors.h5") + " " + name + " " + quote(vtu));
    EXPECT_EQ(c["vtu_points"], c["h5_points"]) << name;
    EXPECT_EQ(c["vtu_cells"], c["h5_points"]) << name;  // one vertex cell per point
    EXPECT_EQ(c["checked"], 250) << name;
    EXPECT_LE(c["worst"].get<double>(), 1e-15) << name;
  }
  // 4^3 cells, 6 tets each, the 2^3 cells of `core`: 48 elements x 10 nodes at N = 2
  EXPECT_NE(r.out.find("monitors_vol.vtu (volume monitor, 480 points, 1 frequencies)"), std::string::npos) << r.out;
  const CliResult bad = script("monitors_to_vtu.py", quote(run + "/monitors.h5") + " --name nope");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("has no monitor 'nope'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("hint: its monitors are: box, vol"), std::string::npos) << bad.err;
}
