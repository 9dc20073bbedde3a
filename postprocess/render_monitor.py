"""Monitor side of render.py: a DFT monitor of monitors.h5 at one frequency, on its own points.

monitors.h5 (solver/io/monitor_writer.cpp): one group per monitor with attribute kind
(surface|volume), frequencies [F], x [M][3], normal [M][3] (surfaces), weight [M] and
E_re, E_im, H_re, H_im [F][M][3]: X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) dt_n.

The values drawn are those at the monitor's points, nothing interpolated:
- surface monitor (an axis-aligned box): its six faces unfolded into a net, the four side faces
  in a row (-y, +x, +y, -x, going round z) with +z above and -z below the -y face; each face's
  points triangulated (Delaunay) in the net. "The field's range" is over all the monitor's points.
- volume monitor: the points on one plane normal to x|y|z (within 1e-9 of the points' extent):
  of the coordinate values held by at least 3 points not on one line, the one nearest the
  requested offset (default: the centre of the points' extent); triangulated (Delaunay; a
  non-convex section is filled to its convex hull). "The field's range" is over those points.
Where elements meet, a point appears once per element with that element's value: the range
counts every copy, the picture shows their mean.
"""

import os
import sys

import numpy as np

from render_common import UserError

COMPONENTS = ("Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "E", "H")
PARTS = ("real", "imag", "abs", "phase")


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read_monitor(path, name):
    import h5py
    if not os.path.isfile(path):
        raise UserError("'%s' does not exist" % path, "dgmax writes monitors.h5 into the run's folder when the config has monitors:")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise UserError("cannot read '%s': %s" % (path, e), "is it the monitors.h5 that dgmax wrote?")
    with f:
        if _text(f.attrs.get("format", "")) != "dgmax-monitors":
            raise UserError("'%s' is not a dgmax monitors file (attribute format)" % path, "give the run's monitors.h5")
        names = sorted(f.keys())
        if name is None:
            if len(names) != 1:
                raise UserError("'%s' holds %d monitors: choose one with --name" % (path, len(names)),
                                "its monitors are: %s" % ", ".join(names))
            name = names[0]
        if name not in f:
            raise UserError("'%s' has no monitor '%s'" % (path, name), "its monitors are: %s" % ", ".join(names))
        g = f[name]
        m = {k: g[k][()] for k in g.keys()}
        m["kind"] = _text(g.attrs.get("kind", "volume"))
        m["name"] = name
        m["time"] = float(f.attrs.get("time", float("nan")))
    return m


def frequency_index(m, frequency):
    freqs = np.asarray(m["frequencies"], dtype=np.float64)
    if frequency is None:
        return 0
    i = int(np.argmin(np.abs(freqs - frequency)))
    if abs(freqs[i] - frequency) > 1e-9 * max(abs(frequency), 1e-300):
        raise UserError("monitor '%s' has no frequency %r" % (m["name"], frequency),
                        "its frequencies are: %s" % ", ".join(repr(float(f)) for f in freqs))
    return i


def values(m, fi, component, part):
    """The drawn value at every point [M]: a part of a component's phasor, or |E| / |H|."""
    if component in ("E", "H"):
        if part != "abs":
            raise UserError("--component %s is the magnitude sqrt(sum |X_c|^2); it has no %s part" % (component, part),
                            "use --part abs with it, or a single component (%sx, %sy, %sz)" % ((component,) * 3))
        re, im = m[component + "_re"][fi], m[component + "_im"][fi]  # [M][3]
        return np.sqrt(np.sum(re * re + im * im, axis=1))
    c = "xyz".index(component[1])
    z = m[component[0] + "_re"][fi][:, c] + 1j * m[component[0] + "_im"][fi][:, c]
    return {"real": z.real, "imag": z.imag, "abs": np.abs(z), "phase": np.angle(z)}[part]


def _dedupe(ab, v, tol):
    """Points equal within tol merged: (unique points [U][2], mean value [U])."""
    keys = np.round(ab / tol).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = np.zeros(len(first))
    np.add.at(sums, inverse, v)
    return ab[first], sums / np.bincount(inverse)


def _triangulate(ab, what):
    import matplotlib.tri as mtri
    try:
        return mtri.Triangulation(ab[:, 0], ab[:, 1]).triangles
    except (ValueError, RuntimeError) as e:
        raise UserError("cannot triangulate %s (%d points): %s" % (what, len(ab), e),
                        "the points may lie on one line; choose another --normal or --offset")


def volume_section(m, v, axis, offset):
    """(points [P][2], triangles, values [P], the values of every copy [Q], the plane's coordinate)."""
    x = np.asarray(m["x"], dtype=np.float64)
    extent = float(np.max(x.max(axis=0) - x.min(axis=0))) or 1.0
    tol = 1e-9 * extent
    c = x[:, axis]
    planes, counts = np.unique(np.round(c / tol).astype(np.int64), return_counts=True)
    planes = planes[counts >= 3] * tol
    want = 0.5 * (c.min() + c.max()) if offset is None else offset
    a, b = [i for i in range(3) if i != axis]
    for plane in planes[np.argsort(np.abs(planes - want), kind="stable")]:
        on = np.abs(c - plane) <= tol
        ab = x[on][:, [a, b]]
        if np.linalg.matrix_rank(ab - ab.mean(axis=0), tol=tol) == 2:
            break
    else:
        raise UserError("monitor '%s' has no plane of points normal to %s" % (m["name"], "xyz"[axis]),
                        "choose another --normal")
    plane = float(np.mean(c[on]))
    if offset is not None and abs(plane - offset) > tol:
        sys.stderr.write("render.py: note: monitor '%s' has no points on %s = %.10g; using the nearest plane of points, "
                         "%s = %.10g\n" % (m["name"], "xyz"[axis], offset, "xyz"[axis], plane))
    pts, mean = _dedupe(ab, v[on], tol)
    return pts, _triangulate(pts, "the monitor's points on the plane"), mean, v[on], plane


# Net of an axis-aligned box: face (axis, sign) -> (u, v) in the net from the point's coordinates,
# with L = box lengths and lo/hi its corners. Neighbouring faces share their fold edges.
def _net(axis, sign, p, lo, hi):
    L = hi - lo
    x, y, z = (p[:, i] - lo[i] for i in range(3))
    if (axis, sign) == (1, -1):
        return np.c_[x, z]
    if (axis, sign) == (0, 1):
        return np.c_[L[0] + y, z]
    if (axis, sign) == (1, 1):
        return np.c_[L[0] + L[1] + (L[0] - x), z]
    if (axis, sign) == (0, -1):
        return np.c_[2 * L[0] + L[1] + (L[1] - y), z]
    if (axis, sign) == (2, 1):
        return np.c_[x, L[2] + y]
    return np.c_[x, -y]  # (2, -1)


def surface_net(m, v):
    """(points [P][2], triangles, values [P], face labels [(u, v, text)]) of the unfolded box."""
    x = np.asarray(m["x"], dtype=np.float64)
    n = np.asarray(m["normal"], dtype=np.float64)
    axis = np.argmax(np.abs(n), axis=1)
    if not np.allclose(np.abs(n[np.arange(len(n)), axis]), 1.0, atol=1e-9):
        raise UserError("monitor '%s' is not an axis-aligned box (normals off the axes)" % m["name"],
                        "render.py unfolds box monitors only; monitors_to_vtu.py shows any monitor in ParaView")
    sign = np.sign(n[np.arange(len(n)), axis]).astype(int)
    lo, hi = x.min(axis=0), x.max(axis=0)
    tol = 1e-9 * float(np.max(hi - lo) or 1.0)
    all_pts, all_tris, all_vals, labels = [], [], [], []
    offset = 0
    for ax in range(3):
        for s in (-1, 1):
            on = (axis == ax) & (sign == s)
            if not on.any():
                continue
            uv = _net(ax, s, x[on], lo, hi)
            pts, mean = _dedupe(uv, v[on], tol)
            all_tris.append(_triangulate(pts, "face %s%s of monitor '%s'" % ("-+"[s > 0], "xyz"[ax], m["name"])) + offset)
            all_pts.append(pts)
            all_vals.append(mean)
            offset += len(pts)
            centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
            labels.append((centre[0], centre[1], "%s%s" % ("-+"[s > 0], "xyz"[ax])))
    return np.vstack(all_pts), np.vstack(all_tris), np.concatenate(all_vals), labels
