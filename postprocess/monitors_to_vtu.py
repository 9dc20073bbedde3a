#!/usr/bin/python3
"""Convert dgmax's monitors.h5 (DFT monitors) to .vtu files for ParaView, one per monitor.

monitors.h5 (solver/io/monitor_writer.cpp) holds per monitor: attribute kind (surface|volume),
frequencies [F], x [M][3], normal [M][3] (surfaces), weight [M] and E_re, E_im, H_re, H_im
[F][M][3]. It has no connectivity, so each monitor becomes M points, each with a VTK_VERTEX cell
(ParaView shows them as points; use "Point Gaussian" or a Delaunay filter for surfaces). Point data:

  E_re f=<f>, E_im f=<f>, H_re f=<f>, H_im f=<f>   3 components each (x, y, z), per frequency f
  |E| f=<f>                                        sqrt(sum_c |E_c|^2), the phasor's magnitude
  weight                                           the quadrature weight of the point
  normal (surface monitors; also set as the points' normals)

<f> is the frequency as Python's repr prints it (every digit). Field data: frequencies [F],
monitor_kind, and time and steps (the DFT's end, from the file's attributes).

Usage:
  postprocess/monitors_to_vtu.py out/run/monitors.h5              # out/run/monitors_<name>.vtu
  postprocess/monitors_to_vtu.py --out vtu/ --name near out/run/monitors.h5

Needs /usr/bin/python3 with numpy, h5py (python3-h5py) and vtk (python3-vtk9). Every file is
written to <name>.tmp and renamed.
"""

import argparse
import os
import sys

import numpy as np


def die(msg, hint=None):
    sys.stderr.write("monitors_to_vtu.py: error: %s\n" % msg)
    if hint:
        sys.stderr.write("  hint: %s\n" % hint)
    sys.exit(1)


try:
    import h5py
except ImportError:
    die("the python module h5py is missing", "apt-get install python3-h5py")
try:
    import vtk
    from vtk.util import numpy_support
except ImportError:
    die("the python module vtk is missing", "apt-get install python3-vtk9 (and run /usr/bin/python3)")


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read_monitors(path):
    """{name: {datasets..., kind}}, and the file's attributes."""
    try:
        with h5py.File(path, "r") as f:
            if _text(f.attrs.get("format", "")) != "dgmax-monitors":
                die("'%s' is not a dgmax monitors file (attribute format = %r)" % (path, f.attrs.get("format")),
                    "give the monitors.h5 of a dgmax run")
            attrs = {k: f.attrs[k] for k in ("time", "steps") if k in f.attrs}
            monitors = {}
            for name, g in f.items():
                m = {k: g[k][()] for k in g.keys()}
                m["kind"] = _text(g.attrs.get("kind", "volume"))
                monitors[name] = m
    except OSError as e:
        die("cannot read '%s': %s" % (path, e), "is it the monitors.h5 that dgmax wrote completely?")
    return monitors, attrs


def _point_array(grid, name, a):
    arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(a, dtype=np.float64), deep=1)
    arr.SetName(name)
    grid.GetPointData().AddArray(arr)
    return arr


def build_grid(m, attrs):
    x = np.asarray(m["x"], dtype=np.float64)  # [M][3]
    M = len(x)
    grid = vtk.vtkUnstructuredGrid()
    points = vtk.vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(x), deep=1))
    grid.SetPoints(points)
    cells = vtk.vtkCellArray()
    ids = numpy_support.ID_TYPE_CODE
    cells.SetData(numpy_support.numpy_to_vtkIdTypeArray(np.arange(M + 1, dtype=ids), deep=1),
                  numpy_support.numpy_to_vtkIdTypeArray(np.arange(M, dtype=ids), deep=1))
    grid.SetCells(vtk.VTK_VERTEX, cells)
    for fi, f in enumerate(np.asarray(m["frequencies"], dtype=np.float64)):
        tag = " f=%r" % float(f)
        for field in ("E_re", "E_im", "H_re", "H_im"):
            _point_array(grid, field + tag, m[field][fi])
        re, im = m["E_re"][fi], m["E_im"][fi]
        _point_array(grid, "|E|" + tag, np.sqrt(np.sum(re * re + im * im, axis=1)))
    _point_array(grid, "weight", m["weight"])
    if "normal" in m:
        grid.GetPointData().SetNormals(_point_array(grid, "normal", m["normal"]))
    fd = grid.GetFieldData()
    freqs = numpy_support.numpy_to_vtk(np.ascontiguousarray(m["frequencies"], dtype=np.float64), deep=1)
    freqs.SetName("frequencies")
    fd.AddArray(freqs)
    kind = vtk.vtkStringArray()
    kind.SetName("monitor_kind")
    kind.InsertNextValue(m["kind"])
    fd.AddArray(kind)
    for key in ("time", "steps"):
        if key in attrs:
            a = vtk.vtkDoubleArray()
            a.SetName(key)
            a.InsertNextValue(float(attrs[key]))
            fd.AddArray(a)
    return grid


def write_vtu(grid, path):
    tmp = path + ".tmp"
    w = vtk.vtkXMLUnstructuredGridWriter()
    w.SetInputData(grid)
    w.SetFileName(tmp)
    w.SetDataModeToAppended()
    w.EncodeAppendedDataOff()
    w.SetCompressorTypeToZLib()
    w.SetHeaderTypeToUInt64()
    if w.Write() != 1 or w.GetErrorCode() != 0:
        if os.path.exists(tmp):
            os.remove(tmp)
        die("cannot write '%s'" % path, "check that the folder is writable and the disk is not full")
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="monitors.h5 of a dgmax run")
    ap.add_argument("--out", help="output folder (default: next to the input)")
    ap.add_argument("--name", action="append", help="only this monitor (repeatable; default: all)")
    args = ap.parse_args(argv)
    if not os.path.isfile(args.input):
        die("'%s' does not exist" % args.input, "dgmax writes monitors.h5 into the run's folder when the config has monitors:")
    monitors, attrs = read_monitors(args.input)
    names = args.name or sorted(monitors)
    for name in names:
        if name not in monitors:
            die("'%s' has no monitor '%s'" % (args.input, name), "its monitors are: %s" % ", ".join(sorted(monitors)))
    out_dir = args.out or os.path.dirname(args.input) or "."
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        die("cannot create output folder '%s': %s" % (out_dir, e.strerror))
    stem = os.path.splitext(os.path.basename(args.input))[0]
    for name in names:
        path = os.path.join(out_dir, "%s_%s.vtu" % (stem, name))
        grid = build_grid(monitors[name], attrs)
        write_vtu(grid, path)
        print("wrote %s (%s monitor, %d points, %d frequencies)"
              % (path, monitors[name]["kind"], grid.GetNumberOfPoints(), len(monitors[name]["frequencies"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
