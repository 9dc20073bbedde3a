"""Snapshot side of render.py: read a dgmax snapshot, cut it by a plane, evaluate a quantity.

A snapshot is a .vtu (one rank), a .pvtu (the pieces of a run on several ranks), one entry of a
.pvd series (by time or index), or an HDF5 snapshot .h5 (converted in memory exactly as
h5_to_vtu.py converts it). Every form becomes the same vtkUnstructuredGrid: discontinuous
VTK_LAGRANGE_TETRAHEDRON cells (no point shared between elements) with point data E and H.

The slice is VTK's cut of those cells by the plane: VTK splits each Lagrange cell into linear
tetrahedra on its equispaced points and cuts their edges, interpolating E and H linearly along
each edge. Points are not merged (vtkNonMergingPointLocator), so where two elements meet each keeps
its own values, as the DG solution does. The quantity is computed at the slice's points from the
interpolated components (|E| is the norm of the interpolated E). "The field's range on the slice"
is the minimum and maximum of the quantity over exactly these points.
"""

import os
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np
import vtk
from vtk.util import numpy_support

from render_common import UserError

# name -> (label on the colour bar, unit text)
QUANTITIES = {
    "E": ("|E|", "E (normalised)"),
    "Ex": ("Ex", "E (normalised)"),
    "Ey": ("Ey", "E (normalised)"),
    "Ez": ("Ez", "E (normalised)"),
    "H": ("|H|", "H (normalised)"),
    "Hx": ("Hx", "H (normalised)"),
    "Hy": ("Hy", "H (normalised)"),
    "Hz": ("Hz", "H (normalised)"),
    "energy": ("u = (eps|E|^2 + mu|H|^2)/2", "energy density (normalised)"),
}
AXES = {"x": 0, "y": 1, "z": 2}
# In-plane axes (horizontal, vertical) of the picture for each normal.
IN_PLANE = {0: (1, 2), 1: (0, 2), 2: (0, 1)}


@dataclass
class Snapshot:
    grid: object          # vtkUnstructuredGrid with point data E, H
    time: float
    name: str             # file name, for titles
    tag_names: list = field(default_factory=list)


def _read_xml(reader_cls, path):
    r = reader_cls()
    r.SetFileName(path)
    r.Update()
    out = r.GetOutput()
    if out is None or out.GetNumberOfPoints() == 0 or r.GetErrorCode() != 0:
        raise UserError("cannot read '%s' as a VTK unstructured grid" % path,
                        "is it a snapshot that dgmax wrote completely (not a .tmp left by a killed run)?")
    return out


def _time_of(grid):
    arr = grid.GetFieldData().GetArray("TimeValue")
    return float(arr.GetValue(0)) if arr is not None and arr.GetNumberOfTuples() > 0 else float("nan")


def _tag_names_of(grid):
    arr = grid.GetFieldData().GetAbstractArray("volume_tag_names")
    if arr is None:
        return []
    return [arr.GetValue(i) for i in range(arr.GetNumberOfValues())]


def _read_h5(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import h5_to_vtu  # the converter's own reader and grid builder: the same points and values
    snap = h5_to_vtu.read_snapshot(path)
    grid = h5_to_vtu.build_grid(snap, {})
    return Snapshot(grid, float(snap["time"]), os.path.basename(path), list(snap["volume_tag_names"]))


def _pvd_entries(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise UserError("cannot read '%s': %s" % (path, e), "a .pvd is the collection file dgmax writes next to the snapshots")
    entries = [(float(d.get("timestep", "nan")), d.get("file")) for d in root.iter("DataSet")]
    if not entries:
        raise UserError("'%s' lists no snapshot" % path, "the run may have stopped before its first snapshot")
    return entries


def pick_from_pvd(path, time=None, index=None):
    """The file of a .pvd entry: the one nearest `time`, or number `index` (negative: from the end)."""
    entries = _pvd_entries(path)
    if time is not None:
        i = int(np.argmin([abs(t - time) for t, _ in entries]))
        if abs(entries[i][0] - time) > 1e-9 * max(1.0, abs(time)):
            sys.stderr.write("render.py: note: no snapshot at t = %g in '%s'; using the nearest, t = %.10g\n"
                             % (time, path, entries[i][0]))
    else:
        i = -1 if index is None else index
        if not -len(entries) <= i < len(entries):
            raise UserError("--index %d is out of range: '%s' lists %d snapshots" % (i, path, len(entries)),
                            "use 0..%d (or -1 for the last)" % (len(entries) - 1))
    return os.path.join(os.path.dirname(path), entries[i][1])


def load_snapshot(path, time=None, index=None):
    if not os.path.isfile(path):
        raise UserError("'%s' does not exist" % path, "give a .vtu, .pvtu, .pvd or .h5 snapshot that dgmax wrote")
    ext = os.path.splitext(path)[1].lower()
    if ext != ".pvd" and (time is not None or index is not None):
        raise UserError("--time and --index choose an entry of a .pvd series, but '%s' is one snapshot" % path,
                        "give the run's .pvd, or leave --time/--index out")
    if ext == ".pvd":
        return load_snapshot(pick_from_pvd(path, time, index))
    if ext == ".h5":
        return _read_h5(path)
    if ext == ".vtu":
        grid = _read_xml(vtk.vtkXMLUnstructuredGridReader, path)
    elif ext == ".pvtu":
        grid = _read_xml(vtk.vtkXMLPUnstructuredGridReader, path)
    else:
        raise UserError("'%s': unknown snapshot type '%s'" % (path, ext), "give a .vtu, .pvtu, .pvd or .h5 file")
    for name in ("E", "H"):
        if grid.GetPointData().GetArray(name) is None:
            raise UserError("'%s' has no point data '%s'" % (path, name), "render.py reads snapshots written by dgmax")
    return Snapshot(grid, _time_of(grid), os.path.basename(path), _tag_names_of(grid))


def parse_materials(items):
    """["TAG=EPS,MU", ...] -> {tag: (eps, mu)}."""
    out = {}
    for item in items or []:
        try:
            tag, rest = item.split("=", 1)
            eps, mu = (float(v) for v in rest.split(","))
        except ValueError:
            raise UserError("--material '%s' is not TAG=EPS,MU" % item, "e.g. --material slab=4,1 (default: eps = mu = 1)")
        out[tag] = (eps, mu)
    return out


def _point_materials(snap, materials):
    """eps, mu at every point [P] (points are per element: each takes its element's tag)."""
    grid = snap.grid
    P = grid.GetNumberOfPoints()
    eps, mu = np.ones(P), np.ones(P)
    unknown = set(materials) - set(snap.tag_names)
    if unknown:
        raise UserError("--material names the volume tag(s) %s, which this snapshot does not have" % sorted(unknown),
                        "its tags are: %s" % ", ".join(snap.tag_names))
    tags = grid.GetCellData().GetArray("volume_tag")
    if not materials or tags is None:
        return eps, mu
    tags = numpy_support.vtk_to_numpy(tags)
    cells = grid.GetCells()
    conn = numpy_support.vtk_to_numpy(cells.GetConnectivityArray())
    offsets = numpy_support.vtk_to_numpy(cells.GetOffsetsArray())
    point_tag = np.repeat(tags, np.diff(offsets))
    for tag, (e, m) in materials.items():
        sel = conn[point_tag == snap.tag_names.index(tag)]
        eps[sel], mu[sel] = e, m
    return eps, mu


def quantity(name, E, H, eps, mu):
    """The quantity [P] from E, H [P][3] and eps, mu [P]."""
    if name == "E":
        return np.linalg.norm(E, axis=1)
    if name == "H":
        return np.linalg.norm(H, axis=1)
    if name == "energy":
        return 0.5 * (eps * np.einsum("pd,pd->p", E, E) + mu * np.einsum("pd,pd->p", H, H))
    return (E if name[0] == "E" else H)[:, "xyz".index(name[1])]


def _add_point_array(grid, name, values):
    arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=1)
    arr.SetName(name)
    grid.GetPointData().AddArray(arr)


def _arrays(data, names):
    return [numpy_support.vtk_to_numpy(data.GetPointData().GetArray(n)).astype(np.float64) for n in names]


def prepare(snap, materials):
    """Adds eps, mu and keeps them with E and H (the arrays the cut interpolates)."""
    eps, mu = _point_materials(snap, materials)
    _add_point_array(snap.grid, "eps", eps)
    _add_point_array(snap.grid, "mu", mu)


def cut(snap, normal_axis, offset):
    """(points [P][3], triangles [T][3]) of the plane's cut, with E, H, eps, mu at the points."""
    plane = vtk.vtkPlane()
    origin = [0.0, 0.0, 0.0]
    origin[normal_axis] = offset
    n = [0.0, 0.0, 0.0]
    n[normal_axis] = 1.0
    plane.SetOrigin(origin)
    plane.SetNormal(n)
    cutter = vtk.vtkCutter()
    cutter.SetCutFunction(plane)
    cutter.SetInputData(snap.grid)
    cutter.SetLocator(vtk.vtkNonMergingPointLocator())
    cutter.GenerateTrianglesOn()
    cutter.Update()
    poly = cutter.GetOutput()
    if poly.GetNumberOfPolys() == 0:
        lo, hi = bounds(snap.grid)
        raise UserError("the plane %s = %.10g misses the mesh" % ("xyz"[normal_axis], offset),
                        "the mesh spans %s = %.10g .. %.10g" % ("xyz"[normal_axis], lo[normal_axis], hi[normal_axis]))
    pts = numpy_support.vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64)
    polys = numpy_support.vtk_to_numpy(poly.GetPolys().GetConnectivityArray()).reshape(-1, 3)
    return pts, polys, poly


def bounds(grid):
    b = grid.GetBounds()
    return np.array(b[0::2]), np.array(b[1::2])


def slice_values(snap, qname, normal_axis, offset):
    """Slice points [P][3], triangles [T][3] and the quantity at the points [P]."""
    pts, tris, poly = cut(snap, normal_axis, offset)
    E, H, eps, mu = _arrays(poly, ("E", "H", "eps", "mu"))
    return pts, tris, quantity(qname, E, H, eps, mu)


def isosurface(snap, qname, values):
    """Triangles of the quantity's isosurfaces: (points [P][3], triangles [T][3]); the quantity is
    evaluated at the snapshot's points and contoured on VTK's linear split of each cell."""
    E, H, eps, mu = _arrays(snap.grid, ("E", "H", "eps", "mu"))
    _add_point_array(snap.grid, "quantity", quantity(qname, E, H, eps, mu))
    snap.grid.GetPointData().SetActiveScalars("quantity")
    contour = vtk.vtkContourFilter()
    contour.SetInputData(snap.grid)
    contour.SetInputArrayToProcess(0, 0, 0, vtk.vtkDataObject.FIELD_ASSOCIATION_POINTS, "quantity")
    for i, v in enumerate(values):
        contour.SetValue(i, v)
    contour.GenerateTrianglesOn()
    contour.Update()
    poly = contour.GetOutput()
    if poly.GetNumberOfPolys() == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    pts = numpy_support.vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64)
    tris = numpy_support.vtk_to_numpy(poly.GetPolys().GetConnectivityArray()).reshape(-1, 3)
    return pts, tris
