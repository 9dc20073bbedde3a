#!/usr/bin/python3
"""Plots `dgmax bench` results: throughput vs order and a roofline.

usage: plot_bench.py [--out PNG] [--labels A,B] BENCH.json [BENCH.json ...]

Left panel: GDOF/s per RK stage against the order N, one line per (file, backend), with the
roofline floor of that backend's measured ceilings (dashed) for comparison.
Right panel: the roofline. x = arithmetic intensity of the DG stage (model flops / model bytes,
solver/app/perf_model.hpp), y = achieved GFLOP/s; the device's bandwidth and FMA ceilings as lines.
Reads the JSON that `dgmax bench --json` writes; draws without a display (Agg).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def stage_cost(N, w):
    Np = (N + 1) * (N + 2) * (N + 3) / 6
    Nfp = (N + 1) * (N + 2) / 2
    return 36 * Np * Np + 48 * Np * Nfp + 72 * Np + 240 * Nfp, w * (24 * Np + 24 * Nfp + 16) + 16 * Nfp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="+", help="bench.json files written by dgmax bench --json")
    ap.add_argument("--out", default="bench.png", help="PNG to write (default bench.png)")
    ap.add_argument("--labels", help="comma-separated label per file (default: file names)")
    args = ap.parse_args()
    labels = args.labels.split(",") if args.labels else [os.path.splitext(os.path.basename(b))[0] for b in args.bench]
    if len(labels) != len(args.bench):
        sys.exit("plot_bench.py: --labels needs one label per file")

    fig, (ax_t, ax_r) = plt.subplots(1, 2, figsize=(13, 5))
    for path, label in zip(args.bench, labels):
        with open(path) as f:
            data = json.load(f)
        w = 4 if data.get("precision") == "single" else 8
        K = data["K"]
        by_backend = {}
        for r in data["results"]:
            by_backend.setdefault(r["backend"], []).append(r)
        for backend, rows in by_backend.items():
            rows.sort(key=lambda r: r["N"])
            Ns = [r["N"] for r in rows]
            name = f"{label} {backend} ({data.get('precision', 'double')})"
            line, = ax_t.plot(Ns, [r["gdof_per_s"] for r in rows], "o-", label=name)
            floor = [6 * r["Np"] * K / r["floor_s"] / 1e9 for r in rows]
            ax_t.plot(Ns, floor, "--", color=line.get_color(), alpha=0.6)
            intensity = [stage_cost(r["N"], w)[0] / stage_cost(r["N"], w)[1] for r in rows]
            ax_r.plot(intensity, [r["gflop_per_s"] for r in rows], "o", color=line.get_color(), label=name)
            for x, r in zip(intensity, rows):
                ax_r.annotate(f"N={r['N']}", (x, r["gflop_per_s"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
            ceil = data["ceilings"].get("device" if backend == "cuda" else "host")
            if ceil:
                xs = [0.1 * 1.2 ** i for i in range(60)]
                roof = [min(ceil["flops"], x * ceil["bandwidth_Bps"]) / 1e9 for x in xs]
                ax_r.plot(xs, roof, "-", color=line.get_color(), alpha=0.4)
    ax_t.set_xlabel("order N")
    ax_t.set_ylabel("GDOF/s per RK stage")
    ax_t.set_yscale("log")
    ax_t.set_title("throughput (dashed: roofline floor)")
    ax_t.grid(True, which="both", alpha=0.3)
    ax_t.legend(fontsize=8)
    ax_r.set_xscale("log")
    ax_r.set_yscale("log")
    ax_r.set_xlabel("arithmetic intensity [flop/byte] (model)")
    ax_r.set_ylabel("GFLOP/s (model flops / measured time)")
    ax_r.set_title("roofline (lines: measured ceilings)")
    ax_r.grid(True, which="both", alpha=0.3)
    ax_r.legend(fontsize=8)
    fig.tight_layout()
    tmp = args.out + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
