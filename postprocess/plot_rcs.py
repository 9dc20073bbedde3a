#!/usr/bin/python3
"""Plot the far-field pattern of a dgmax run (bistatic RCS, directivity or radiation pattern) as a PNG.

Reads a far-field CSV as written by write_far_field_csv (solver/physics/near_to_far.hpp):
  frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im[,rcs[,rcs_dB] | ,directivity,directivity_dBi]
and draws, for one frequency, the cuts of constant phi against theta: every phi of the file (at
most 8; with more, as on a full-sphere grid, phi = 0 and 90), or those of --phi. Each curve is
labelled by its phi; --e-plane PHI (the phi of the plane holding the incident E field, or a dipole's
moment) adds "E-plane" to that cut and "H-plane" to the cut 90 degrees from it. With an rcs column
the curves are the bistatic RCS sigma, normalised by pi a^2 when --radius a is given, in dB with
--db; with a directivity column (a radiating source, no incident field) the directivity in dBi;
with neither, the radiation pattern |F|^2 relative to its maximum, in dB.

--map draws instead the whole pattern over theta x phi (pcolormesh; the file must hold every
theta at every phi, e.g. from far_field: {sphere: 5}), of the same quantity, the colour scale
spanning --range dB below the maximum (default 40) for dB quantities (the cuts' y axis too).
Each cut and the map print their largest value and where it is:
  plot_rcs.py: f = 1 phi = 0 deg: 37 angles, max directivity 1.761 dBi at theta = 90

--reference CSV adds a reference (e.g. the Mie series, or another run) as black dashed lines: a
CSV with columns theta_deg,phi_deg,rcs (an area, normalised like the run's), an optional
frequency column (then only rows of the plotted frequency are used). For every cut that both
have, the script prints the largest relative difference of the run's RCS from the reference at
the reference's angles (linear interpolation of the run in theta):
  plot_rcs.py: f = 0.3183 phi = 0 deg (E-plane): 91 angles, max |rcs/ref - 1| = 2.1e-04
--within-db DB compares only where the reference is within DB of its maximum over the plotted cuts
(the nulls of a pattern make large relative differences of small absolute ones).

Usage:
  postprocess/plot_rcs.py out/far_field.csv                        # writes rcs.png
  postprocess/plot_rcs.py far_field.csv --radius 1 --db --e-plane 0 --reference mie.csv --out cmp.png
  postprocess/plot_rcs.py far_field.csv --frequency 0.5            # one of several frequencies
  postprocess/plot_rcs.py far_field_near.csv --phi 0 45 90 --e-plane 0 --out cuts.png
  postprocess/plot_rcs.py far_field_near.csv --map --out directivity_map.png

Needs /usr/bin/python3 with numpy and matplotlib (Debian: python3-numpy python3-matplotlib).
Works without a display (Agg backend). The PNG is written to <out>.tmp and renamed.
"""

import argparse
import io
import os
import sys


def die(msg, hint=None):
    sys.stderr.write("plot_rcs.py: error: %s\n" % msg)
    if hint:
        sys.stderr.write("  hint: %s\n" % hint)
    sys.exit(1)


try:
    import numpy as np
except ImportError:
    die("the python module numpy is missing", "apt-get install python3-numpy (and run /usr/bin/python3)")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    die("the python module matplotlib is missing", "apt-get install python3-matplotlib (and run /usr/bin/python3)")

MAX_DEFAULT_CUTS = 8


def read_csv(path, required):
    """Returns a dict of column name -> numpy array; `required` columns must be present."""
    if not os.path.isfile(path):
        die("'%s' does not exist" % path)
    try:
        with open(path) as f:
            header = f.readline().strip().split(",")
            lines = [ln for ln in f if ln.strip()]
    except (OSError, UnicodeDecodeError) as e:
        die("cannot read %s: %s" % (path, e))
    for col in required:
        if col not in header:
            die("%s has no '%s' column (header: %s)" % (path, col, ",".join(header)),
                "expected a far-field CSV of dgmax (frequency,theta_deg,phi_deg,E_theta_re,...)")
    if not lines:
        die("%s has no data rows" % path)
    try:
        data = np.array([[float(v) for v in ln.split(",")] for ln in lines], dtype=float)
    except ValueError as e:
        die("%s has a malformed row: %s" % (path, e))
    if data.ndim != 2 or data.shape[1] != len(header):
        die("%s: rows do not match the header's %d columns" % (path, len(header)))
    return {name: data[:, i] for i, name in enumerate(header)}


def pick_frequency(cols, wanted, path):
    freqs = np.unique(cols["frequency"])
    if wanted is None:
        if len(freqs) > 1:
            sys.stderr.write("plot_rcs.py: note: %s has %d frequencies; plotting the first, %g (--frequency F)\n"
                             % (path, len(freqs), freqs[0]))
        return freqs[0]
    near = freqs[np.isclose(freqs, wanted, rtol=1e-6, atol=0)]
    if len(near) == 0:
        die("%s has no frequency %g" % (path, wanted), "its frequencies: " + ", ".join("%g" % f for f in freqs))
    return near[0]


def rows_at(cols, freq):
    keep = np.ones(len(cols["theta_deg"]), dtype=bool)
    if "frequency" in cols and freq is not None:
        keep = np.isclose(cols["frequency"], freq, rtol=1e-6, atol=0)
    return {k: v[keep] for k, v in cols.items()}


def cut(cols, phi, values):
    """theta (sorted) and values of the rows with phi_deg == phi."""
    sel = np.isclose(cols["phi_deg"], phi, atol=1e-9)
    theta = cols["theta_deg"][sel]
    order = np.argsort(theta)
    return theta[order], values[sel][order]


def same_angle(a, b):
    """Whether two angles in degrees name the same direction of phi (modulo 360)."""
    return abs((a - b + 180.0) % 360.0 - 180.0) < 1e-9


def cut_label(phi, e_plane):
    """'phi = 0 deg', with ' (E-plane)' / ' (H-plane)' when the E-plane's phi is known."""
    label = "phi = %g deg" % phi
    if e_plane is not None:
        if same_angle(phi, e_plane) or same_angle(phi, e_plane + 180):
            label += " (E-plane)"
        elif same_angle(phi, e_plane + 90) or same_angle(phi, e_plane - 90):
            label += " (H-plane)"
    return label


def choose_cuts(cols, wanted, path, freq):
    """The phi values to plot: --phi's (each must be in the file), else every phi of the file when
    there are at most MAX_DEFAULT_CUTS, else phi = 0 and 90."""
    present = np.unique(cols["phi_deg"])
    if wanted:
        missing = [p for p in wanted if not np.isclose(present, p, atol=1e-9).any()]
        if missing:
            die("%s has no cut at phi = %s deg (f = %g)" % (path, ", ".join("%g" % p for p in missing), freq),
                "its phi values: " + ", ".join("%g" % p for p in present[:20]) + (" ..." if len(present) > 20 else ""))
        return list(wanted)
    if len(present) <= MAX_DEFAULT_CUTS:
        return list(present)
    chosen = [p for p in (0.0, 90.0) if np.isclose(present, p, atol=1e-9).any()] or list(present[:2])
    sys.stderr.write("plot_rcs.py: note: %s has %d phi cuts; plotting phi = %s (--phi, or --map for all)\n"
                     % (path, len(present), ", ".join("%g" % p for p in chosen)))
    return chosen


def grid_of(cols, values, path, freq):
    """theta [T], phi [P] and values [T][P] of a file that holds every theta at every phi."""
    theta, phi = np.unique(cols["theta_deg"]), np.unique(cols["phi_deg"])
    if len(theta) < 2 or len(phi) < 2 or len(cols["theta_deg"]) != len(theta) * len(phi):
        die("%s is not a theta x phi grid at f = %g (%d rows, %d theta and %d phi values)"
            % (path, freq, len(cols["theta_deg"]), len(theta), len(phi)),
            "--map needs every theta at every phi: far_field: {sphere: 5} in the monitor, or plot the cuts")
    grid = np.full((len(theta), len(phi)), np.nan)
    grid[np.searchsorted(theta, cols["theta_deg"]), np.searchsorted(phi, cols["phi_deg"])] = values
    if np.isnan(grid).any():
        die("%s has a direction twice at f = %g: not a theta x phi grid" % (path, freq))
    if same_angle(phi[0], phi[-1] + (phi[-1] - phi[-2])) and not same_angle(phi[0], phi[-1]):
        phi, grid = np.append(phi, phi[0] + 360.0), np.hstack([grid, grid[:, :1]])  # close the circle
    return theta, phi, grid


def write_png(fig, out, dpi):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, out)
    print("plot_rcs.py: wrote %s" % out)


def main():
    ap = argparse.ArgumentParser(
        description="Plot the bistatic RCS, directivity or radiation pattern of a dgmax far-field CSV: cuts of "
                    "constant phi, or a theta x phi map.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Usage:"):__doc__.index("Needs ")])
    ap.add_argument("csv", help="far-field CSV written by dgmax")
    ap.add_argument("--out", "-o", default="rcs.png", help="PNG to write (default: rcs.png)")
    ap.add_argument("--frequency", "-f", type=float, help="frequency to plot (default: the first in the file)")
    ap.add_argument("--phi", type=float, nargs="+", metavar="DEG", help="phi cuts to plot (degrees; default: all, at most 8)")
    ap.add_argument("--e-plane", type=float, metavar="PHI",
                    help="phi of the E-plane (e.g. 0 for an incident E along x): labels it and the H-plane")
    ap.add_argument("--map", action="store_true", help="draw the theta x phi map of a full-sphere CSV instead of cuts")
    ap.add_argument("--range", type=float, default=40,
                    help="dB below the maximum that the y axis (cuts) or the colours (--map) span (default 40)")
    ap.add_argument("--radius", "-a", type=float, help="sphere radius a: plot sigma / (pi a^2)")
    ap.add_argument("--db", action="store_true", help="RCS in dB (10 log10)")
    ap.add_argument("--reference", "-r", help="reference CSV (theta_deg,phi_deg,rcs[,frequency]), dashed")
    ap.add_argument("--within-db", type=float, metavar="DB",
                    help="compare with the reference only where it is within DB of its maximum over the cuts")
    ap.add_argument("--title", help="figure title")
    ap.add_argument("--dpi", type=int, default=120, help="resolution (default: 120)")
    args = ap.parse_args()
    if args.radius is not None and not args.radius > 0:
        die("--radius must be > 0 (got %g)" % args.radius)
    if not args.range > 0:
        die("--range must be > 0 dB (got %g)" % args.range)
    if args.within_db is not None and not (args.within_db > 0 and args.reference):
        die("--within-db takes a number of dB > 0 and needs --reference (got %g)" % args.within_db,
            "e.g. --reference mie.csv --within-db 20")
    if args.map and (args.reference or args.phi):
        die("--map draws the whole sphere: it takes no --reference or --phi", "drop --map to plot cuts")

    cols = read_csv(args.csv, ("frequency", "theta_deg", "phi_deg", "E_theta_re", "E_theta_im", "E_phi_re", "E_phi_im"))
    freq = pick_frequency(cols, args.frequency, args.csv)
    cols = rows_at(cols, freq)
    has_rcs = "rcs" in cols
    has_dir = not has_rcs and "directivity" in cols
    area = np.pi * args.radius ** 2 if args.radius else 1.0
    if has_rcs:
        values = cols["rcs"] / area
        unit = "sigma / (pi a^2)" if args.radius else "sigma"
        ylabel = ("%s (dB)" % unit) if args.db else unit
    elif has_dir:
        values = cols["directivity"]
        ylabel = "directivity (dBi)"
    else:
        F2 = cols["E_theta_re"] ** 2 + cols["E_theta_im"] ** 2 + cols["E_phi_re"] ** 2 + cols["E_phi_im"] ** 2
        if not F2.max() > 0:
            die("%s: the far field is zero at f = %g" % (args.csv, freq))
        values = F2 / F2.max()
        ylabel = "|F|^2 / max (dB)"
    in_db = args.db or not has_rcs
    ref = None
    if args.reference:
        if not has_rcs:
            die("--reference needs RCS values, but %s has no rcs column (a radiation pattern)" % args.csv)
        ref = rows_at(read_csv(args.reference, ("theta_deg", "phi_deg", "rcs")), freq)
        if len(ref["theta_deg"]) == 0:
            die("the reference %s has no rows at frequency %g" % (args.reference, freq))

    def scale(v):
        return 10 * np.log10(np.maximum(v, 1e-300)) if in_db else v

    what = "bistatic RCS" if has_rcs else "directivity" if has_dir else "radiation pattern"
    unit_of_max = " dBi" if has_dir else " dB" if in_db else ""
    if args.map:
        theta, phi, grid = grid_of(cols, values, args.csv, freq)
        z = scale(grid)
        fig, ax = plt.subplots(figsize=(8, 4.5))
        vmax = z.max()
        t, p = np.unravel_index(np.argmax(z), z.shape)
        print("plot_rcs.py: f = %.10g map of %d theta x %d phi: max %s %.4g%s at theta = %g, phi = %g"
              % (freq, len(theta), len(phi), what, vmax, unit_of_max, theta[t], phi[p]))
        mesh = ax.pcolormesh(phi, theta, z, shading="nearest", cmap="viridis",
                             vmin=vmax - args.range if in_db else None, vmax=vmax)
        fig.colorbar(mesh, ax=ax, label=ylabel)
        ax.set_xlabel("phi (degrees)")
        ax.set_ylabel("theta (degrees)")
        ax.set_ylim(180, 0)  # the +z pole on top
        ax.set_title(args.title or ("%s at f = %g" % (what, freq)))
        fig.tight_layout()
        write_png(fig, args.out, args.dpi)
        return

    fig, ax = plt.subplots(figsize=(7, 4.5))
    cuts = choose_cuts(cols, args.phi, args.csv, freq)
    floor = 0.0  # --within-db: the reference's maximum over the plotted cuts, lowered by DB
    if ref is not None and args.within_db is not None:
        peak = max([cut(ref, phi, ref["rcs"] / area)[1].max(initial=0) for phi in cuts])
        floor = peak * 10 ** (-args.within_db / 10)
    for i, phi in enumerate(cuts):
        theta, v = cut(cols, phi, values)
        label = cut_label(phi, args.e_plane)
        ax.plot(theta, scale(v), "-", color="C%d" % (i % 10), label="dgmax, " + label)
        top = np.argmax(v)
        print("plot_rcs.py: f = %.10g %s: %d angles, max %s %.4g%s at theta = %g"
              % (freq, label, len(theta), what, scale(v[top]), unit_of_max, theta[top]))
        if ref is not None:
            rt, rv = cut(ref, phi, ref["rcs"] / area)
            if len(rt) == 0:
                continue
            ax.plot(rt, scale(rv), "--", color="k", lw=1, label="reference, " + label)
            inside = (rt >= theta[0]) & (rt <= theta[-1]) & (rv > 0) & (rv >= floor)
            if inside.any():
                diff = np.abs(np.interp(rt[inside], theta, v) / rv[inside] - 1).max()
                within = "" if args.within_db is None else " within %g dB" % args.within_db
                print("plot_rcs.py: f = %.10g %s: %d angles%s, max |rcs/ref - 1| = %.3e"
                      % (freq, label, inside.sum(), within, diff))

    if in_db:  # a null of the pattern (-inf dB, or -300 at roundoff) would flatten the rest
        low, high = ax.get_ylim()
        ax.set_ylim(max(low, high - args.range), high)
    ax.set_xlabel("theta (degrees)")
    ax.set_xlim(0, 180)
    ax.set_xticks(np.arange(0, 181, 30))
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(args.title or ("%s at f = %g" % (what, freq)))
    fig.tight_layout()
    write_png(fig, args.out, args.dpi)


if __name__ == "__main__":
    main()
