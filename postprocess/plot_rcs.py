#!/usr/bin/python3
"""Plot the far-field pattern of a dgmax run (bistatic RCS or radiation pattern) against angle as a PNG.

Reads a far-field CSV as written by write_far_field_csv (solver/physics/near_to_far.hpp):
  frequency,theta_deg,phi_deg,E_theta_re,E_theta_im,E_phi_re,E_phi_im[,rcs[,rcs_dB]]
and draws, for one frequency, the E-plane cut (phi = 0) and the H-plane cut (phi = 90) against
theta. With an rcs column the curves are the bistatic RCS sigma, normalised by pi a^2 when
--radius a is given, in dB with --db; without one (a radiating source, no incident field) they
are the radiation pattern |F|^2 relative to its maximum, in dB.

--reference CSV adds a reference (e.g. the Mie series, or another run) as black dashed lines: a
CSV with columns theta_deg,phi_deg,rcs (an area, normalised like the run's), an optional
frequency column (then only rows of the plotted frequency are used). For every cut that both
have, the script prints the largest relative difference of the run's RCS from the reference at
the reference's angles (linear interpolation of the run in theta):
  plot_rcs.py: f = 0.3183 E-plane: 91 angles, max |rcs/ref - 1| = 2.1e-04

Usage:
  postprocess/plot_rcs.py out/far_field.csv                        # writes rcs.png
  postprocess/plot_rcs.py far_field.csv --radius 1 --db --reference mie.csv --out cmp.png
  postprocess/plot_rcs.py far_field.csv --frequency 0.5            # one of several frequencies

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

CUTS = ((0.0, "E-plane (phi = 0)", "E-plane"), (90.0, "H-plane (phi = 90)", "H-plane"))


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


def main():
    ap = argparse.ArgumentParser(
        description="Plot the bistatic RCS (or radiation pattern) of a dgmax far-field CSV in the E- and H-plane.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Usage:"):__doc__.index("Needs ")])
    ap.add_argument("csv", help="far-field CSV written by dgmax")
    ap.add_argument("--out", "-o", default="rcs.png", help="PNG to write (default: rcs.png)")
    ap.add_argument("--frequency", "-f", type=float, help="frequency to plot (default: the first in the file)")
    ap.add_argument("--radius", "-a", type=float, help="sphere radius a: plot sigma / (pi a^2)")
    ap.add_argument("--db", action="store_true", help="RCS in dB (10 log10)")
    ap.add_argument("--reference", "-r", help="reference CSV (theta_deg,phi_deg,rcs[,frequency]), dashed")
    ap.add_argument("--title", help="figure title")
    ap.add_argument("--dpi", type=int, default=120, help="resolution (default: 120)")
    args = ap.parse_args()
    if args.radius is not None and not args.radius > 0:
        die("--radius must be > 0 (got %g)" % args.radius)

    cols = read_csv(args.csv, ("frequency", "theta_deg", "phi_deg", "E_theta_re", "E_theta_im", "E_phi_re", "E_phi_im"))
    freq = pick_frequency(cols, args.frequency, args.csv)
    cols = rows_at(cols, freq)
    has_rcs = "rcs" in cols
    area = np.pi * args.radius ** 2 if args.radius else 1.0
    if has_rcs:
        values = cols["rcs"] / area
    else:
        F2 = cols["E_theta_re"] ** 2 + cols["E_theta_im"] ** 2 + cols["E_phi_re"] ** 2 + cols["E_phi_im"] ** 2
        if not F2.max() > 0:
            die("%s: the far field is zero at f = %g" % (args.csv, freq))
        values = F2 / F2.max()
    ref = None
    if args.reference:
        if not has_rcs:
            die("--reference needs RCS values, but %s has no rcs column (a radiation pattern)" % args.csv)
        ref = rows_at(read_csv(args.reference, ("theta_deg", "phi_deg", "rcs")), freq)
        if len(ref["theta_deg"]) == 0:
            die("the reference %s has no rows at frequency %g" % (args.reference, freq))

    def scale(v):
        if args.db or not has_rcs:
            return 10 * np.log10(np.maximum(v, 1e-300))
        return v

    fig, ax = plt.subplots(figsize=(7, 4.5))
    plotted = 0
    for i, (phi, label, short) in enumerate(CUTS):
        theta, v = cut(cols, phi, values)
        if len(theta) == 0:
            continue
        plotted += 1
        ax.plot(theta, scale(v), "-", color="C%d" % i, label="dgmax, " + label)
        if ref is not None:
            rt, rv = cut(ref, phi, ref["rcs"] / area)
            if len(rt) == 0:
                continue
            ax.plot(rt, scale(rv), "--", color="k", lw=1, label="reference, " + short)
            inside = (rt >= theta[0]) & (rt <= theta[-1]) & (rv > 0)
            if inside.any():
                diff = np.abs(np.interp(rt[inside], theta, v) / rv[inside] - 1).max()
                print("plot_rcs.py: f = %.10g %s: %d angles, max |rcs/ref - 1| = %.3e" % (freq, short, inside.sum(), diff))
    if plotted == 0:
        die("%s has no E-plane (phi = 0) or H-plane (phi = 90) rows at f = %g" % (args.csv, freq),
            "evaluate the far field on principal_cuts() (solver/physics/near_to_far.hpp)")

    ax.set_xlabel("theta (degrees)")
    ax.set_xlim(0, 180)
    ax.set_xticks(np.arange(0, 181, 30))
    if has_rcs:
        unit = "sigma / (pi a^2)" if args.radius else "sigma"
        ax.set_ylabel(("%s (dB)" % unit) if args.db else unit)
    else:
        ax.set_ylabel("|F|^2 / max (dB)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(args.title or ("%s at f = %g" % ("bistatic RCS" if has_rcs else "radiation pattern", freq)))
    fig.tight_layout()

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=args.dpi)
    plt.close(fig)
    out = args.out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, out)
    print("plot_rcs.py: wrote %s" % out)


if __name__ == "__main__":
    main()
