#!/usr/bin/python3
"""Convert dgmax HDF5 snapshots (<stem>_<NNNNN>.h5) to high-order VTU files plus a .pvd series.

This gives builds without VTK the same ParaView output a VTK build writes directly: one
VTK_LAGRANGE_TETRAHEDRON (cell type 71) of the solution's order N per element, discontinuous
(points not shared), with point data E, H, |E|, cell data volume_tag and element, and field data
TimeValue and volume_tag_names (see solver/io/vtk_writer.hpp and solver/io/hdf5_writer.hpp).

The DG solution is nodal at the warp & blend nodes (`nodes_rst`); VTK's Lagrange cells interpolate
from equispaced points in VTK's own point order, so the values are interpolated to those points
with a degree-N polynomial basis (exact for the DG polynomial) and the points are placed at the
affine image of the equispaced lattice.

Usage:
  postprocess/h5_to_vtu.py results/                 # every *.h5 in results/, VTUs next to them
  postprocess/h5_to_vtu.py --out vtu/ run_000*.h5   # chosen files, output elsewhere

Snapshots are grouped into series by stem (the name without its trailing _NNNNN); each series
gets <stem>.pvd listing its VTUs sorted by time. Every file is written to <name>.tmp and renamed.

Needs /usr/bin/python3 with numpy, vtk (Debian: python3-vtk9) and h5py (Debian: python3-h5py).
"""

import argparse
import glob
import os
import re
import sys
import xml.sax.saxutils

import numpy as np


def die(msg, hint=None):
    sys.stderr.write("h5_to_vtu.py: error: %s\n" % msg)
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

VTK_LAGRANGE_TETRAHEDRON = 71

# VTK Lagrange tetrahedron point order (as in solver/io/vtk_writer.cpp): vertices; edges
# (0,1) (1,2) (2,0) (0,3) (1,3) (2,3) from first to second vertex; face interiors of faces
# (0,1,3) (2,3,1) (0,3,2) (0,2,1), each a Lagrange triangle of order N-3 in that vertex order,
# ordered recursively; then the interior, recursively a tetrahedron of order N-4.
_EDGES = ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))
_FACES = ((0, 1, 3), (2, 3, 1), (0, 3, 2), (0, 2, 1))


def _triangle(n, off, base, v, out):
    if n < 0:
        return

    def point(wa, wb, wc):
        w = [base] * 4
        w[v[0]] += off + wa
        w[v[1]] += off + wb
        w[v[2]] += off + wc
        out.append(w)

    if n == 0:
        point(0, 0, 0)
        return
    point(n, 0, 0)
    point(0, n, 0)
    point(0, 0, n)
    for i in range(1, n):
        point(n - i, i, 0)
    for i in range(1, n):
        point(0, n - i, i)
    for i in range(1, n):
        point(i, 0, n - i)
    _triangle(n - 3, off + 1, base, v, out)


def _tetra(n, base, out):
    if n < 0:
        return
    if n == 0:
        out.append([base] * 4)
        return
    for v in range(4):
        w = [base] * 4
        w[v] += n
        out.append(w)
    for a, b in _EDGES:
        for i in range(1, n):
            w = [base] * 4
            w[a] += n - i
            w[b] += i
            out.append(w)
    for f in _FACES:
        _triangle(n - 3, 1, base, f, out)
    _tetra(n - 4, base + 1, out)


def vtk_lagrange_tet_lattice(N):
    """[Np][4] integer barycentric weights (on vertices 0..3, summing to N) in VTK point order."""
    out = []
    _tetra(N, 0, out)
    return np.array(out, dtype=np.int64)


def _legendre_basis(N, r, s, t):
    """P_i(r) P_j(s) P_k(t), i+j+k <= N: a well-conditioned basis of degree-N polynomials."""
    from numpy.polynomial import legendre
    cols = []
    for i in range(N + 1):
        for j in range(N + 1 - i):
            for k in range(N + 1 - i - j):
                ci = np.zeros(i + 1); ci[i] = 1
                cj = np.zeros(j + 1); cj[j] = 1
                ck = np.zeros(k + 1); ck[k] = 1
                cols.append(legendre.legval(r, ci) * legendre.legval(s, cj) * legendre.legval(t, ck))
    return np.stack(cols, axis=1)


def interpolation_matrix(N, nodes_rst):
    """[Np][Np]: nodal values at nodes_rst -> values at VTK's equispaced points (VTK order)."""
    lat = vtk_lagrange_tet_lattice(N)
    rst_eq = -1.0 + 2.0 * lat[:, 1:4] / N
    V_nodes = _legendre_basis(N, nodes_rst[:, 0], nodes_rst[:, 1], nodes_rst[:, 2])
    V_eq = _legendre_basis(N, rst_eq[:, 0], rst_eq[:, 1], rst_eq[:, 2])
    return np.linalg.solve(V_nodes.T, V_eq.T).T  # V_eq V_nodes^{-1}


def read_snapshot(path):
    try:
        with h5py.File(path, "r") as f:
            fmt = f.attrs.get("format", b"")
            if isinstance(fmt, bytes):
                fmt = fmt.decode()
            if fmt != "dgmax-snapshot":
                die("'%s' is not a dgmax snapshot (attribute format = %r)" % (path, fmt))
            snap = {name: f[name][()] for name in
                    ("vertices", "elements", "volume_tag", "order", "time", "nodes_rst", "E", "H")}
            names = f["volume_tag"].attrs.get("names", [])
            snap["volume_tag_names"] = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
    except (OSError, KeyError) as e:
        die("cannot read '%s': %s" % (path, e))
    return snap


def build_grid(snap, interp_cache):
    N = int(snap["order"])
    verts = np.asarray(snap["vertices"], dtype=np.float64)
    elems = np.asarray(snap["elements"], dtype=np.int64)
    E = np.asarray(snap["E"], dtype=np.float64)  # [K][Np][3]
    H = np.asarray(snap["H"], dtype=np.float64)
    K, Np = E.shape[0], E.shape[1]
    if Np != (N + 1) * (N + 2) * (N + 3) // 6:
        die("inconsistent snapshot: order %d but %d nodes per element" % (N, Np))
    if N not in interp_cache:
        interp_cache[N] = (vtk_lagrange_tet_lattice(N), interpolation_matrix(N, snap["nodes_rst"]))
    lat, I = interp_cache[N]

    # Points: x = sum_v (w_v / N) X_v, element-major.
    X = verts[elems]                                  # [K][4][3]
    pts = np.einsum("pv,kvd->kpd", lat / N, X).reshape(-1, 3)
    Eeq = np.einsum("pi,kid->kpd", I, E).reshape(-1, 3)
    Heq = np.einsum("pi,kid->kpd", I, H).reshape(-1, 3)

    grid = vtk.vtkUnstructuredGrid()
    points = vtk.vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(pts), deep=1))
    grid.SetPoints(points)
    conn = numpy_support.numpy_to_vtkIdTypeArray(np.arange(K * Np, dtype=numpy_support.ID_TYPE_CODE), deep=1)
    cells = vtk.vtkCellArray()
    cells.SetData(Np, conn)
    grid.SetCells(VTK_LAGRANGE_TETRAHEDRON, cells)

    def point_array(name, a):
        arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(a), deep=1)
        arr.SetName(name)
        grid.GetPointData().AddArray(arr)

    point_array("E", Eeq)
    point_array("H", Heq)
    point_array("|E|", np.linalg.norm(Eeq, axis=1))
    grid.GetPointData().SetActiveVectors("E")
    grid.GetPointData().SetActiveScalars("|E|")

    def cell_array(name, a):
        arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(a, dtype=np.int32), deep=1)
        arr.SetName(name)
        grid.GetCellData().AddArray(arr)

    cell_array("volume_tag", snap["volume_tag"])
    cell_array("element", np.arange(K))

    tv = vtk.vtkDoubleArray()
    tv.SetName("TimeValue")
    tv.InsertNextValue(float(snap["time"]))
    grid.GetFieldData().AddArray(tv)
    names = vtk.vtkStringArray()
    names.SetName("volume_tag_names")
    for n in snap["volume_tag_names"]:
        names.InsertNextValue(n)
    grid.GetFieldData().AddArray(names)
    return grid


def write_vtu(grid, path):
    tmp = path + ".tmp"
    w = vtk.vtkXMLUnstructuredGridWriter()
    w.SetInputData(grid)
    w.SetFileName(tmp)
    w.SetDataModeToAppended()
    w.EncodeAppendedDataOff()
    w.SetCompressorTypeToZLib()
    w.SetCompressionLevel(1)
    w.SetHeaderTypeToUInt64()
    if w.Write() != 1 or w.GetErrorCode() != 0:
        if os.path.exists(tmp):
            os.remove(tmp)
        die("cannot write '%s'" % path, "check that the directory is writable and the disk is not full")
    os.replace(tmp, path)


def write_pvd(path, entries):
    """entries: (time, file name relative to the pvd's folder)."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
             "  <Collection>"]
    for t, name in entries:
        lines.append('    <DataSet timestep="%s" group="" part="0" file=%s/>'
                     % (repr(float(t)), xml.sax.saxutils.quoteattr(name)))
    lines += ["  </Collection>", "</VTKFile>", ""]
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
        os.replace(tmp, path)
    except OSError as e:
        die("cannot write '%s': %s" % (path, e.strerror))


def series_stem(path):
    base = os.path.splitext(os.path.basename(path))[0]
    m = re.match(r"^(.*)_\d+$", base)
    return m.group(1) if m else base


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help=".h5 snapshot files or directories holding them")
    ap.add_argument("--out", help="output directory (default: next to each input)")
    args = ap.parse_args(argv)

    files = []
    for inp in args.inputs:
        if os.path.isdir(inp):
            found = sorted(glob.glob(os.path.join(inp, "*.h5")))
            if not found:
                die("no .h5 files in '%s'" % inp)
            files += found
        elif os.path.isfile(inp):
            files.append(inp)
        else:
            die("'%s' does not exist" % inp)
    if args.out:
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            die("cannot create output directory '%s': %s" % (args.out, e.strerror))

    series = {}  # (output dir, stem) -> [(time, vtu name)]
    cache = {}
    for path in files:
        snap = read_snapshot(path)
        out_dir = args.out or os.path.dirname(path) or "."
        name = os.path.splitext(os.path.basename(path))[0] + ".vtu"
        write_vtu(build_grid(snap, cache), os.path.join(out_dir, name))
        series.setdefault((out_dir, series_stem(path)), []).append((float(snap["time"]), name))
        print("wrote %s" % os.path.join(out_dir, name))
    for (out_dir, stem), entries in sorted(series.items()):
        entries.sort(key=lambda e: (e[0], e[1]))
        pvd = os.path.join(out_dir, stem + ".pvd")
        write_pvd(pvd, entries)
        print("wrote %s (%d steps)" % (pvd, len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
