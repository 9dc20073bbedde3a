#!/usr/bin/python3
"""Plot the energy history (and, when present, the L2 errors) of one or more dgmax runs as a PNG.

Reads each run's energy.csv (header `step,t,energy` or `step,t,energy,L2_E,L2_H`, written by
`dgmax run`; see solver/app/simulation.cpp). The top panel shows W(t) / W(0), the electromagnetic
energy relative to its initial value; the bottom panel, drawn when any run has error columns, shows
the L2 errors of E (solid) and H (dashed) against t on a log scale. One colour and one legend entry
per run; when a run folder has a summary.json its N and K are added to the label.

Usage:
  postprocess/plot_energy.py out/default                      # writes energy.png
  postprocess/plot_energy.py --out cmp.png run_a/ run_b/energy.csv --labels upwind,central
  postprocess/plot_energy.py --drift --out drift.png out/central   # |W/W0 - 1| on a log scale

Energy scales:
  (default)  W(t) / W(0), linear axis
  --log      W(t) / W(0), log axis (e.g. absorbing boundaries, where the energy leaves the domain)
  --drift    |W(t) / W(0) - 1|, log axis (energy conservation of the central flux, upwind decay)
A run whose initial energy is 0 (a source-driven run) cannot be normalised: all runs are then
plotted as absolute energy W(t) (log axis with --log or --drift), with a note on stderr.

Needs /usr/bin/python3 with numpy and matplotlib (Debian: python3-numpy python3-matplotlib).
Works without a display (Agg backend). The PNG is written to <out>.tmp and renamed.
"""

import argparse
import io
import json
import os
import sys


def die(msg, hint=None):
    sys.stderr.write("plot_energy.py: error: %s\n" % msg)
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


def resolve_csv(path):
    if os.path.isdir(path):
        csv = os.path.join(path, "energy.csv")
        if not os.path.isfile(csv):
            die("the folder '%s' has no energy.csv" % path, "give a run folder written by `dgmax run --output DIR`")
        return csv
    if not os.path.isfile(path):
        die("'%s' does not exist" % path)
    return path


def read_energy(csv):
    """Returns a dict of column name -> numpy array."""
    try:
        with open(csv) as f:
            header = f.readline().strip().split(",")
            lines = [ln for ln in f if ln.strip()]
    except (OSError, UnicodeDecodeError) as e:
        die("cannot read %s: %s" % (csv, e))
    for col in ("t", "energy"):
        if col not in header:
            die("%s has no '%s' column (header: %s)" % (csv, col, ",".join(header)),
                "expected the energy.csv of a dgmax run: step,t,energy[,L2_E,L2_H]")
    if not lines:
        die("%s has no data rows" % csv)
    try:
        data = np.array([[float(v) for v in ln.split(",")] for ln in lines], dtype=float)
    except ValueError as e:
        die("%s has a malformed row: %s" % (csv, e))
    if data.ndim != 2 or data.shape[1] != len(header):
        die("%s: rows do not match the header's %d columns" % (csv, len(header)))
    return {name: data[:, i] for i, name in enumerate(header)}


def default_label(csv):
    folder = os.path.dirname(os.path.abspath(csv))
    label = os.path.basename(folder) if os.path.basename(csv) == "energy.csv" else os.path.basename(csv)
    summary = os.path.join(folder, "summary.json")
    if os.path.isfile(summary):
        try:
            with open(summary) as f:
                s = json.load(f)
            label += " (N=%s, K=%s)" % (s.get("N", "?"), s.get("K", "?"))
        except (OSError, ValueError):
            pass
    return label


def main():
    ap = argparse.ArgumentParser(
        description="Plot energy (relative to the initial energy) and L2 errors of dgmax runs vs time.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Usage:"):__doc__.index("Needs ")])
    ap.add_argument("inputs", nargs="+", metavar="RUN", help="energy.csv files or run folders holding one")
    ap.add_argument("--out", "-o", default="energy.png", help="PNG to write (default: energy.png)")
    scale = ap.add_mutually_exclusive_group()
    scale.add_argument("--log", action="store_true", help="log scale for W/W0")
    scale.add_argument("--drift", action="store_true", help="plot |W/W0 - 1| on a log scale")
    ap.add_argument("--labels", help="comma-separated legend labels, one per run")
    ap.add_argument("--title", help="figure title")
    ap.add_argument("--dpi", type=int, default=120, help="resolution (default: 120)")
    args = ap.parse_args()

    csvs = [resolve_csv(p) for p in args.inputs]
    runs = [read_energy(c) for c in csvs]
    if args.labels:
        labels = args.labels.split(",")
        if len(labels) != len(csvs):
            die("--labels has %d labels for %d runs" % (len(labels), len(csvs)))
    else:
        labels = [default_label(c) for c in csvs]
        if len(set(labels)) < len(labels):  # same folder names: use the paths
            labels = [os.path.relpath(c) for c in csvs]

    absolute = any(not (r["energy"][0] > 0) for r in runs)
    if absolute:
        sys.stderr.write("plot_energy.py: note: a run starts with zero energy; plotting absolute energy W(t)\n")
    has_errors = any("L2_E" in r or "L2_H" in r for r in runs)

    if has_errors:
        fig, (ax_w, ax_e) = plt.subplots(2, 1, sharex=True, figsize=(7, 7))
    else:
        fig, ax_w = plt.subplots(figsize=(7, 4.2))
        ax_e = None

    for i, (r, label) in enumerate(zip(runs, labels)):
        color = "C%d" % (i % 10)
        t, w = r["t"], r["energy"]
        if absolute:
            y = w
        elif args.drift:
            y = np.abs(w / w[0] - 1.0)
            keep = y > 0  # log axis: the first sample is exactly 0
            t, y = t[keep], y[keep]
        else:
            y = w / w[0]
        ax_w.plot(t, y, "-", color=color, label=label)
        if ax_e is not None:
            for col, style, name in (("L2_E", "-", "E"), ("L2_H", "--", "H")):
                if col in r:
                    keep = r[col] > 0  # the error is 0 at t = 0 when the initial field is exact
                    ax_e.semilogy(r["t"][keep], r[col][keep], style, color=color, label="%s: %s" % (label, name))

    if absolute:
        ax_w.set_ylabel("energy W(t)")
        if args.log or args.drift:
            ax_w.set_yscale("log")
    elif args.drift:
        ax_w.set_yscale("log")
        ax_w.set_ylabel("|W(t) / W(0) - 1|")
    else:
        if args.log:
            ax_w.set_yscale("log")
        ax_w.set_ylabel("W(t) / W(0)")
    ax_w.grid(True, which="both", alpha=0.3)
    ax_w.legend(fontsize="small")
    if ax_e is not None:
        ax_e.set_ylabel("L2 error (E solid, H dashed)")
        ax_e.grid(True, which="both", alpha=0.3)
        ax_e.legend(fontsize="small", ncol=2 if len(runs) > 2 else 1)
        ax_e.set_xlabel("t")
    else:
        ax_w.set_xlabel("t")
    ax_w.set_title(args.title or ("dgmax energy" + (" and errors" if has_errors else "")))
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
    print("plot_energy.py: wrote %s (%d runs)" % (out, len(runs)))


if __name__ == "__main__":
    main()
