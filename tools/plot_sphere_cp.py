#!/usr/bin/python3
"""Pressure coefficient on a sphere against the angle from the front stagnation point, from the
walls.csv files of flowdg runs ([forces] walls = ["sphere"]), one marker set per file: the
straight-sided and the curved mesh side by side show what the facets do to the surface pressure
(Siebenborn & Schulz 2012, Fig. 7's comparison, on the wall).

    /usr/bin/python3 tools/plot_sphere_cp.py --output cp.png --center 0 0 0 \\
        --run straight=path/walls.csv --run curved=path/walls.csv [--title T]

The incompressible potential flow's Cp = 1 - 9/4 sin^2(theta) is drawn as a guide only (the runs
are at M = 0.38, where compressibility lowers the suction peak). Bad input (a missing file, a file
without the columns) is one line on stderr and exit code 2.
"""
import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def fail(message):
    print(f"plot_sphere_cp: {message}", file=sys.stderr)
    sys.exit(2)


def read_walls(path, center):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    if not rows or not {"x", "y", "z", "cp"} <= set(rows[0]):
        fail(f"{path}: not a flowdg walls.csv (columns x, y, z, cp)")
    theta, cp = [], []
    for row in rows:
        d = [float(row[k]) - c for k, c in zip("xyz", center)]
        r = math.sqrt(sum(v * v for v in d))
        if r == 0:
            continue
        theta.append(math.degrees(math.acos(max(-1.0, min(1.0, -d[0] / r)))))
        cp.append(float(row["cp"]))
    return theta, cp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="LABEL=walls.csv")
    parser.add_argument("--center", nargs=3, type=float, default=[0.0, 0.0, 0.0])
    parser.add_argument("--output", required=True)
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    markers = ["o", "s", "^", "v", "D"]
    for i, spec in enumerate(args.run):
        if "=" not in spec:
            fail(f"--run {spec}: expected LABEL=walls.csv")
        label, path = spec.rsplit("=", 1)
        theta, cp = read_walls(path, args.center)
        ax.plot(theta, cp, markers[i % len(markers)], markersize=2.5, alpha=0.6, label=label)
    guide = [i * 0.5 for i in range(361)]
    ax.plot(guide, [1 - 2.25 * math.sin(math.radians(t)) ** 2 for t in guide], "k--", linewidth=0.8,
            label="incompressible potential flow (guide)")
    ax.set_xlabel("angle from the front stagnation point (degrees)")
    ax.set_ylabel("Cp")
    ax.set_xlim(0, 180)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if args.title:
        ax.set_title(args.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)


if __name__ == "__main__":
    main()
