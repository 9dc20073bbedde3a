#!/usr/bin/python3
"""Render dgmax results to PNG without a display: a slice of a snapshot, or a DFT monitor.

  render.py slice SNAPSHOT [--time T | --index I] [--quantity Q] [--normal x|y|z] [--offset O]
                   [--iso V ...] [--material TAG=EPS,MU ...] [common options]
  render.py monitor MONITORS.h5 [--name NAME] [--frequency F] [--component C] [--part P]
                   [--normal x|y|z] [--offset O] [common options]
  common: [--out PNG] [--size W H] [--range LO HI] [--engine auto|vtk|matplotlib] [--cmap NAME]

slice: SNAPSHOT is a .vtu, .pvtu, .h5 snapshot or a .pvd series (--time: the entry nearest T,
--index: entry I, negative from the end; default the last). The plane x|y|z = O (default through
the centre of the mesh's bounding box) is coloured by Q: E (|E|), Ex, Ey, Ez, H (|H|), Hx, Hy,
Hz or energy (u = (eps|E|^2 + mu|H|^2)/2, eps = mu = 1 unless --material gives a volume tag's).
--iso V draws the isosurface(s) Q = V too, in a 3D view. See render_snapshot.py for how the
slice is made and exactly which points "the field's range" is taken over.

monitor: one monitor of monitors.h5 (--name; may be left out when there is one) at frequency F
(default the first; must be one of the monitor's), component C (Ex..Hz, or E / H for the
magnitude sqrt(sum |X_c|^2)), part P (real, imag, abs, phase in radians; default abs).
A surface monitor is drawn unfolded; a volume monitor on one plane of its points. See
render_monitor.py.

Each PNG has a colour bar labelled with the quantity and its unit (dgmax's normalised units,
c = 1), axes in mesh length units and a title with the time or frequency. The colour range is
the field's range (min..max on the slice / the monitor's points) unless --range LO HI. Both
ranges are printed and stored in the PNG as tEXt chunks `dgmax:color_range` and
`dgmax:field_range` ("LO HI", Python reprs: every digit of the doubles).

Engines: vtk (off-screen rendering) or matplotlib (Agg). The default, auto, uses vtk when it
can render off screen here and matplotlib otherwise, with a one-line note on stderr.

Needs /usr/bin/python3 with numpy, matplotlib, vtk (Debian: python3-vtk9; it also reads the
snapshots) and h5py for .h5 inputs. The PNG is written to <out>.tmp and renamed.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # its modules sit beside it: leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from render_common import Scene, UserError, color_range, png_metadata, value_range  # noqa: E402


def die(msg, hint=None):
    sys.stderr.write("render.py: error: %s\n" % msg)
    if hint:
        sys.stderr.write("  hint: %s\n" % hint)
    sys.exit(1)


def _need(module, package):
    try:
        __import__(module)
    except ImportError:
        die("the python module %s is missing" % module, "apt-get install %s (and run /usr/bin/python3)" % package)


def slice_scene(args):
    _need("vtk", "python3-vtk9")
    import numpy as np
    import render_snapshot as rs
    snap = rs.load_snapshot(args.input, args.time, args.index)
    rs.prepare(snap, rs.parse_materials(args.material))
    axis = rs.AXES[args.normal]
    lo, hi = rs.bounds(snap.grid)
    offset = 0.5 * (lo[axis] + hi[axis]) if args.offset is None else args.offset
    pts, tris, vals = rs.slice_values(snap, args.quantity, axis, offset)
    frange = value_range(vals)
    name, unit = rs.QUANTITIES[args.quantity]
    where = "%s = %.6g" % (args.normal, offset)
    title = "%s   t = %.6g   slice %s" % (snap.name, snap.time, where)
    length = "(length, mesh units)"
    scene = Scene(points=pts, triangles=tris, values=vals, color_range=color_range(frange, args.range),
                  field_range=frange, colorbar_label="%s  [%s, c = 1]" % (name, unit), title=title,
                  axis_labels=tuple("%s %s" % (c, length) for c in "xyz"), cmap=args.cmap,
                  metadata={"dgmax:quantity": args.quantity, "dgmax:time": repr(snap.time),
                            "dgmax:slice": "%s %r" % (args.normal, float(offset))})
    if args.iso:
        scene.flat = False
        scene.iso_points, scene.iso_triangles = rs.isosurface(snap, args.quantity, args.iso)
        scene.title += "   isosurface %s = %s" % (name, ", ".join("%.4g" % v for v in args.iso))
    else:
        a, b = rs.IN_PLANE[axis]
        scene.points = np.c_[pts[:, a], pts[:, b], np.zeros(len(pts))]
        scene.axis_labels = ("%s %s" % ("xyz"[a], length), "%s %s" % ("xyz"[b], length))
    return scene


def monitor_scene(args):
    _need("h5py", "python3-h5py")
    import numpy as np
    import render_monitor as rm
    m = rm.read_monitor(args.input, args.name)
    fi = rm.frequency_index(m, args.frequency)
    f = float(m["frequencies"][fi])
    v = rm.values(m, fi, args.component, args.part)
    length = "(length, mesh units)"
    if m["kind"] == "surface":
        pts, tris, shown, labels = rm.surface_net(m, v)
        along = "unfolded box: distance along the surface %s" % length
        every, axes, where = v, (along, along), "unfolded box"
    else:
        axis = "xyz".index(args.normal)
        pts, tris, shown, every, plane = rm.volume_section(m, v, axis, args.offset)
        a, b = [i for i in range(3) if i != axis]
        labels, axes = [], ("%s %s" % ("xyz"[a], length), "%s %s" % ("xyz"[b], length))
        where = "%s = %.6g" % (args.normal, plane)
    frange = value_range(every)
    shown_as = {"real": "Re DFT(%s)", "imag": "Im DFT(%s)", "abs": "|DFT(%s)|", "phase": "arg DFT(%s)"}[args.part]
    what = shown_as % args.component  # E, H: |DFT(E)| = sqrt(sum |X_c|^2)
    label = ("%s  [rad]" % what if args.part == "phase" else
             "%s  [%s (normalised) x time, c = 1]" % (what, args.component[0]))
    title = "monitor %s   f = %.6g   %s" % (m["name"], f, where)
    return Scene(points=np.c_[pts, np.zeros(len(pts))], triangles=tris, values=shown,
                 color_range=color_range(frange, args.range), field_range=frange, colorbar_label=label,
                 title=title, axis_labels=axes, labels=labels,
                 cmap="twilight" if args.part == "phase" and args.cmap == "viridis" else args.cmap,
                 metadata={"dgmax:monitor": m["name"], "dgmax:frequency": repr(f),
                           "dgmax:component": args.component, "dgmax:part": args.part})


def pick_engine(requested):
    if requested == "matplotlib":
        return "matplotlib"
    import render_vtk
    ok, why = render_vtk.offscreen_works()
    if ok:
        return "vtk"
    if requested == "vtk":
        die("VTK cannot render off screen here: %s" % why,
            "use --engine matplotlib, or a VTK built for off-screen rendering (EGL or OSMesa); "
            "Debian's python3-vtk9 needs an X display")
    sys.stderr.write("render.py: note: VTK cannot render off screen here (%s); drawing with matplotlib\n" % why)
    return "matplotlib"


def write_png(scene, engine, out, size):
    md = png_metadata(scene, engine)
    tmp = out + ".tmp"
    try:
        if engine == "vtk":
            import render_vtk
            render_vtk.draw(scene, tmp, size, md)
        else:
            import render_mpl
            render_mpl.draw(scene, tmp, size, md)
        if not os.path.isfile(tmp):
            raise OSError("no file was written")
        os.replace(tmp, out)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        die("cannot write '%s': %s" % (out, e), "check that the folder is writable and the disk is not full")


def parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", help="PNG to write (default: slice.png / monitor.png)")
    common.add_argument("--size", nargs=2, type=int, default=(1000, 750), metavar=("W", "H"), help="pixels")
    common.add_argument("--range", nargs=2, type=float, metavar=("LO", "HI"), help="colour range (default: the field's)")
    common.add_argument("--engine", choices=("auto", "vtk", "matplotlib"), default="auto")
    common.add_argument("--cmap", default="viridis", help="matplotlib colour map name (both engines)")
    common.add_argument("--normal", choices=("x", "y", "z"), default="z", help="normal of the plane")
    common.add_argument("--offset", type=float, help="the plane's coordinate (default: the centre)")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("slice", parents=[common], help="a planar slice of a snapshot")
    s.add_argument("input", help=".vtu, .pvtu, .h5 or .pvd")
    which = s.add_mutually_exclusive_group()
    which.add_argument("--time", type=float, help="(.pvd) the snapshot nearest this time")
    which.add_argument("--index", type=int, help="(.pvd) the snapshot number (negative: from the end)")
    s.add_argument("--quantity", default="E", choices=("E", "Ex", "Ey", "Ez", "H", "Hx", "Hy", "Hz", "energy"))
    s.add_argument("--iso", type=float, nargs="+", metavar="V", help="isosurface value(s) of the quantity")
    s.add_argument("--material", action="append", metavar="TAG=EPS,MU", help="eps, mu of a volume tag (energy)")
    m = sub.add_parser("monitor", parents=[common], help="a DFT monitor of monitors.h5")
    m.add_argument("input", help="monitors.h5")
    m.add_argument("--name", help="the monitor (default: the only one)")
    m.add_argument("--frequency", type=float, help="one of the monitor's frequencies (default: the first)")
    m.add_argument("--component", default="E", choices=("Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "E", "H"))
    m.add_argument("--part", default="abs", choices=("real", "imag", "abs", "phase"))
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    _need("numpy", "python3-numpy")
    _need("matplotlib", "python3-matplotlib")
    if min(args.size) < 100 or max(args.size) > 8000:
        die("--size %d %d is outside 100..8000 pixels" % tuple(args.size), "e.g. --size 1000 750")
    out = args.out or ("slice.png" if args.what == "slice" else "monitor.png")
    if os.path.dirname(out):
        try:
            os.makedirs(os.path.dirname(out), exist_ok=True)
        except OSError as e:
            die("cannot create the folder of '%s': %s" % (out, e.strerror))
    try:
        scene = slice_scene(args) if args.what == "slice" else monitor_scene(args)
    except UserError as e:
        die(str(e), e.hint)
    engine = pick_engine(args.engine)
    write_png(scene, engine, out, tuple(args.size))
    print("render.py: wrote %s (%s, %dx%d)" % (out, engine, args.size[0], args.size[1]))
    print("render.py: color range %r %r" % scene.color_range)
    print("render.py: field range %r %r" % scene.field_range)
    return 0


if __name__ == "__main__":
    sys.exit(main())
