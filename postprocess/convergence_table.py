#!/usr/bin/python3
"""Convergence table of dgmax runs: L2 errors and observed orders over mesh refinements and orders.

Runs `dgmax run` once per (order N, mesh) pair of one config (the built-in PEC cavity mode when no
--config is given), reads each run's summary.json (which has errors only when the config has an
`exact:` section) and prints one row per run: N, the mesh (cells or refine), h, K, DOF, the L2
errors of E and H and their combination sqrt(E^2 + H^2), and the observed order between successive
rows of the same N, log(e_prev / e) / log(h_prev / h), computed from the combined error.

h is the mean element size (6 / K)^(1/3): for an n x n x n box of the unit cube (K = 6 n^3 tets) it
is exactly 1/n; for any other mesh it is proportional to the mean element size, so its ratios, and
hence the observed orders, are right under uniform refinement (`--cells`, `--refine`).
A row whose error is at round-off level (below 1e-12 of the field norm, or 1e-10 of the largest
error of its N) is marked (*) and gives no order. Measure at t = 1 or later: early in a run the
error is still growing at about order N.

Usage:
  postprocess/convergence_table.py --orders 1,2,3 --cells 2,4,8            # built-in default
  postprocess/convergence_table.py --config my_case.yaml --orders 3 --refine 0,1,2 \\
      --final-time 0.5 --set time.cfl=0.4 --markdown --json conv.json --plot conv.png
  postprocess/convergence_table.py --from out/conv/N3_c2 out/conv/N3_c4     # existing runs, no solver

Options:
  --dgmax PATH      the dgmax executable (default: $DGMAX, else <repo>/build/dgmax, else dgmax on PATH)
  --orders LIST     sets discretization.order (default: the config's)
  --cells LIST      sets mesh.box.cells=[n,n,n] (box meshes)   } at most one of the two;
  --refine LIST     sets mesh.refine                            } default: the config's mesh
  --set KEY=VALUE   passed to every run as --set (repeatable)
  --final-time T    sets time.final
  --workdir DIR     keep the runs in DIR/N<N>_c<n>/ or N<N>_r<r>/ (default: a temporary folder, removed)
  --from DIR|FILE   read run folders or summary.json files instead of running (repeatable list)
  --markdown        print a Markdown table instead of the plain one
  --json FILE       save the rows (and the command that made them) as JSON
  --plot FILE       draw L2 error vs h (log-log) per N with reference slopes h^(N+1), as PNG

Needs /usr/bin/python3; --plot also needs matplotlib (Debian: python3-matplotlib).
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def die(msg, hint=None):
    sys.stderr.write("convergence_table.py: error: %s\n" % msg)
    if hint:
        sys.stderr.write("  hint: %s\n" % hint)
    sys.exit(1)


def int_list(text, what):
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        die("%s must be a comma-separated list of integers, got '%s'" % (what, text), "e.g. %s 1,2,3" % what)
    if not values:
        die("%s is empty" % what)
    return values


def find_dgmax(explicit):
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            die("the dgmax executable '%s' does not exist or is not executable" % explicit,
                "build it (cmake --build build) or pass --dgmax PATH")
        return explicit
    if os.environ.get("DGMAX"):
        return find_dgmax(os.environ["DGMAX"])
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidate = os.path.join(repo, "build", "dgmax")
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    on_path = shutil.which("dgmax")
    if on_path:
        return on_path
    die("no dgmax executable found (looked at $DGMAX, %s and PATH)" % candidate, "pass --dgmax PATH")


def mean_h(K):
    """(6 / K)^(1/3): exactly 1/n for an n x n x n box of the unit cube."""
    return (6.0 / K) ** (1.0 / 3.0)


def field_norm(summary):
    """sqrt(2 W), W the larger of the initial and final energy (the L2 norm when eps = mu = 1)."""
    energy = summary.get("energy", {})
    w = max(float(energy.get("initial", 0) or 0), float(energy.get("final", 0) or 0))
    return math.sqrt(2 * w) if w > 0 else 0.0


def load_summary(path):
    """Reads a run folder's summary.json (or the file itself) into a row."""
    file = os.path.join(path, "summary.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        die("'%s' has no summary.json" % path, "give run folders written by `dgmax run --output DIR`")
    try:
        with open(file) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        die("cannot read %s: %s" % (file, e))
    for key in ("K", "N", "dofs"):
        if key not in s:
            die("%s has no '%s'; is it a dgmax summary.json?" % (file, key))
    if "errors" not in s:
        die("%s has no errors" % file,
            "errors are computed only when the config has an 'exact:' section")
    l2, linf = s["errors"]["L2"], s["errors"].get("Linf", {})
    row = {
        "N": int(s["N"]),
        "K": int(s["K"]),
        "dofs": int(s["dofs"]),
        "h": mean_h(int(s["K"])),
        "mesh": s.get("mesh", ""),
        "final_time": s.get("final_time"),
        "steps": s.get("steps"),
        "L2_E": float(l2["E"]),
        "L2_H": float(l2["H"]),
        "L2": math.hypot(float(l2["E"]), float(l2["H"])),
        "Linf_E": linf.get("E"),
        "Linf_H": linf.get("H"),
        "wall_s": s.get("wall_s"),
        "field_norm": field_norm(s),
        "dir": os.path.dirname(os.path.abspath(file)),
    }
    m = re.fullmatch(r"box:(\d+),(\d+),(\d+)", row["mesh"])
    if m and m.group(1) == m.group(2) == m.group(3):
        row["cells"] = int(m.group(1))
    return row


def run_one(dgmax, config, sets, outdir, label):
    cmd = [dgmax, "run"] + ([config] if config else []) + ["--quiet", "--output", outdir]
    for s in sets:
        cmd += ["--set", s]
    sys.stderr.write("  %-24s" % label)
    sys.stderr.flush()
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        sys.stderr.write("\n")
        die("cannot run %s: %s" % (dgmax, e))
    if proc.returncode != 0:
        sys.stderr.write("failed\n")
        sys.stderr.write(proc.stderr if proc.stderr.endswith("\n") else proc.stderr + "\n")
        die("dgmax exited with code %d for %s" % (proc.returncode, label),
            "command: " + " ".join(cmd))
    sys.stderr.write("%.2f s\n" % (time.time() - t0))
    return load_summary(outdir)


def observed_order(prev, row, key):
    e0, e1, h0, h1 = prev[key], row[key], prev["h"], row["h"]
    if prev.get("roundoff") or row.get("roundoff"):
        return None
    if not (e0 > 0 and e1 > 0 and h0 > 0 and h1 > 0) or abs(math.log(h0 / h1)) < 1e-12:
        return None
    return math.log(e0 / e1) / math.log(h0 / h1)


def mark_roundoff(rows):
    """Marks rows whose error is at round-off level, so that no order is taken from them: below
    1e-12 times the field norm, or below 1e-10 times the largest error of the same N (a refinement
    study spans a few decades; more means a degenerate case, e.g. the cavity mode at N = 1 on one
    box cell, which vanishes at every node so that field and error are both round-off)."""
    for row in rows:
        largest = max(r["L2"] for r in rows if r["N"] == row["N"])
        row["roundoff"] = row["L2"] <= 1e-12 * row.get("field_norm", 0) or row["L2"] < 1e-10 * largest


def add_orders(rows):
    """Sorts rows by N then decreasing h and sets the observed orders between successive rows."""
    rows.sort(key=lambda r: (r["N"], -r["h"]))
    mark_roundoff(rows)
    prev = None
    for row in rows:
        same = prev is not None and prev["N"] == row["N"]
        for key, name in (("L2", "order"), ("L2_E", "order_E"), ("L2_H", "order_H")):
            row[name] = observed_order(prev, row, key) if same else None
        prev = row
    return rows


def mesh_label(row, header):
    return "%d" % row[header] if header in ("cells", "refine") else row["mesh"]


def mesh_header(rows):
    if rows and all("cells" in r for r in rows):
        return "cells"
    if rows and all("refine" in r for r in rows):
        return "refine"
    return "mesh"


def fmt_order(v):
    return "-" if v is None else "%.2f" % v


ROUNDOFF_MARK = " (*)"
ROUNDOFF_NOTE = "(*) at round-off level: no order is taken from this row"


def table_cells(rows):
    mesh = mesh_header(rows)
    header = ["N", mesh, "h", "K", "DOF", "L2 E", "L2 H", "L2 (E,H)", "order"]
    body = [[str(r["N"]), mesh_label(r, mesh), "%.4g" % r["h"], str(r["K"]), str(r["dofs"]),
             "%.3e" % r["L2_E"], "%.3e" % r["L2_H"], "%.3e" % r["L2"] + (ROUNDOFF_MARK if r.get("roundoff") else ""), fmt_order(r["order"])]
            for r in rows]
    return header, body


def print_plain(rows, out):
    header, body = table_cells(rows)
    widths = [max(len(x) for x in col) for col in zip(header, *body)]
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))
    out.write(line(header) + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    prev_n = None
    for r, cells in zip(rows, body):
        if prev_n is not None and r["N"] != prev_n:
            out.write("\n")
        out.write(line(cells) + "\n")
        prev_n = r["N"]
    if any(r.get("roundoff") for r in rows):
        out.write("\n" + ROUNDOFF_NOTE + "\n")


def print_markdown(rows, out):
    header, body = table_cells(rows)
    out.write("| " + " | ".join(header) + " |\n")
    out.write("|" + "|".join("---:" for _ in header) + "|\n")
    for cells in body:
        out.write("| " + " | ".join(cells) + " |\n")
    if any(r.get("roundoff") for r in rows):
        out.write("\n" + ROUNDOFF_NOTE + "\n")


def write_atomically(path, writer, mode="w"):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, mode) as f:
        writer(f)
    os.replace(tmp, path)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die("the python module matplotlib is missing (needed by --plot)",
            "apt-get install python3-matplotlib (and run /usr/bin/python3)")
    import io
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    orders = sorted({r["N"] for r in rows})
    for i, n in enumerate(orders):
        sel = [r for r in rows if r["N"] == n and r["L2"] > 0 and not r.get("roundoff")]
        if not sel:
            continue
        color = "C%d" % (i % 10)
        h = [r["h"] for r in sel]
        e = [r["L2"] for r in sel]
        ax.loglog(h, e, "o-", color=color, label="N = %d" % n)
        if len(sel) > 1:
            # Reference slope N+1, through half the error of the finest point (so both show).
            c = 0.5 * e[-1] / h[-1] ** (n + 1)
            ax.loglog([h[0], h[-1]], [c * h[0] ** (n + 1), c * h[-1] ** (n + 1)], "--", color=color,
                      alpha=0.6, label="$h^{%d}$" % (n + 1))
    ax.set_xlabel("$h = (6/K)^{1/3}$")
    ax.set_ylabel("L2 error sqrt(E² + H²)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title("dgmax convergence")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    write_atomically(path, lambda f: f.write(buf.getvalue()), "wb")


def main():
    ap = argparse.ArgumentParser(
        description="Run dgmax over refinements and orders and print L2 errors with observed orders.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Usage:"):__doc__.index("Options:")])
    ap.add_argument("--dgmax", metavar="PATH", help="dgmax executable (default: $DGMAX, <repo>/build/dgmax, PATH)")
    ap.add_argument("--config", metavar="FILE", help="YAML config (default: the built-in PEC cavity mode)")
    ap.add_argument("--orders", metavar="LIST", help="polynomial orders, e.g. 1,2,3 (default: the config's)")
    mesh = ap.add_mutually_exclusive_group()
    mesh.add_argument("--cells", metavar="LIST", help="box cells per direction, e.g. 2,4,8 (sets mesh.box.cells=[n,n,n])")
    mesh.add_argument("--refine", metavar="LIST", help="uniform refinements, e.g. 0,1,2 (sets mesh.refine)")
    ap.add_argument("--set", "-s", action="append", default=[], metavar="KEY=VALUE",
                    help="config override passed to every run (repeatable)")
    ap.add_argument("--final-time", type=float, metavar="T", help="sets time.final")
    ap.add_argument("--workdir", metavar="DIR", help="keep the runs in this folder (default: a temporary one, removed)")
    ap.add_argument("--from", dest="from_", nargs="+", metavar="DIR",
                    help="read these run folders / summary.json files instead of running dgmax")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--json", metavar="FILE", help="save the rows as JSON to this file")
    ap.add_argument("--plot", metavar="PNG", help="save a log-log plot of error vs h to this PNG")
    args = ap.parse_args()

    if args.from_:
        if args.orders or args.cells or args.refine or args.set or args.final_time is not None or args.config:
            die("--from reads existing runs; it takes none of --config, --orders, --cells, --refine, "
                "--set, --final-time")
        rows = [load_summary(p) for p in args.from_]
        source = {"from": [os.path.abspath(p) for p in args.from_]}
    else:
        dgmax = find_dgmax(args.dgmax)
        if args.config and not os.path.isfile(args.config):
            die("the config '%s' does not exist" % args.config)
        orders = int_list(args.orders, "--orders") if args.orders else [None]
        if args.cells:
            meshes = [("cells", n, "mesh.box.cells=[%d,%d,%d]" % (n, n, n)) for n in int_list(args.cells, "--cells")]
        elif args.refine:
            meshes = [("refine", r, "mesh.refine=%d" % r) for r in int_list(args.refine, "--refine")]
        else:
            meshes = [(None, None, None)]
        common = list(args.set)
        if args.final_time is not None:
            common.append("time.final=%.17g" % args.final_time)
        keep = args.workdir is not None
        workdir = os.path.abspath(args.workdir) if keep else tempfile.mkdtemp(prefix="dgmax_conv_")
        sys.stderr.write("convergence_table.py: %d runs of %s (%s) in %s\n" % (
            len(orders) * len(meshes), args.config or "the built-in default", dgmax, workdir))
        rows = []
        try:
            for n in orders:
                for kind, value, mesh_set in meshes:
                    sets = list(common)
                    label = []
                    if n is not None:
                        sets.append("discretization.order=%d" % n)
                        label.append("N%d" % n)
                    if mesh_set:
                        sets.append(mesh_set)
                        label.append("%s%d" % ("c" if kind == "cells" else "r", value))
                    name = "_".join(label) or "run"
                    row = run_one(dgmax, args.config, sets, os.path.join(workdir, name), name)
                    if kind:
                        row.pop("cells", None)  # as read from the mesh name; the set value rules
                        row[kind] = value
                    if not keep:
                        row["dir"] = None
                    rows.append(row)
        finally:
            if not keep:
                shutil.rmtree(workdir, ignore_errors=True)
        source = {"dgmax": os.path.abspath(dgmax), "config": os.path.abspath(args.config) if args.config else None,
                  "set": common, "orders": args.orders, "cells": args.cells, "refine": args.refine}

    add_orders(rows)
    if args.markdown:
        print_markdown(rows, sys.stdout)
    else:
        print_plain(rows, sys.stdout)
    if args.json:
        doc = {"source": source, "h": "(6/K)^(1/3)", "order": "log(e_prev/e)/log(h_prev/h) of sqrt(L2_E^2+L2_H^2)",
               "rows": rows}
        write_atomically(args.json, lambda f: f.write(json.dumps(doc, indent=2) + "\n"))
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
