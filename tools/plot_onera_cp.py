#!/usr/bin/python3
"""Pressure coefficient on the ONERA M6 wing at the experiment's span stations, from the walls.csv
of a flowdg run ([forces] walls = ["wing"], wall_distribution = true; examples/onera_m6.toml), beside
Schmitt & Charpin's measurements (examples/data/onera_m6_cp_schmitt_charpin.csv).

    /usr/bin/python3 tools/plot_onera_cp.py RUN_DIR [--output cp.png] [--data CSV] [--band 0.01]

At each station eta = y / b (b = 1.1963 m) the wall points with |y / b - eta| < band are taken, and
x/c is measured from the local leading edge over the local chord of the planform
(x_LE = y tan 30 deg, c = c_r - y (tan 30 deg - tan 15.8 deg), c_r = 0.8059 m); upper and lower sides
by the sign of the normal's z component (walls.csv's `side`). The figure has one panel per station,
Cp axis reversed; a CSV of the sampled points (station, x/c, cp, side) is written beside the PNG,
and the RMS of Cp minus the experiment's (interpolated along each side at the taps) per station is
printed (at each tap the median of the side's 5 samples nearest to its x/c).
Bad input is one line on stderr and exit code 2.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

B = 1.1963
C_ROOT = 0.8059
TAN_LE = math.tan(math.radians(30.0))
TAN_TE = math.tan(math.radians(15.8))


def fail(message):
    print(f"plot_onera_cp: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path, needed):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    if not rows or not set(needed) <= set(rows[0]):
        fail(f"{path}: expected the columns {', '.join(needed)}")
    return rows


def local_chord(y):
    return C_ROOT - y * (TAN_LE - TAN_TE)


def sample(walls, eta, band):
    points = []
    for row in walls:
        y = float(row["y"])
        if abs(y / B - eta) >= band:
            continue
        c = local_chord(y)
        xc = (float(row["x"]) - y * TAN_LE) / c
        if -0.01 <= xc <= 1.01:
            points.append((xc, float(row["cp"]), int(row["side"])))
    points.sort()
    return points


def at_tap(points, x, k=5):
    """Cp at x/c = x from one side's samples: the median of the k nearest in x/c."""
    near = sorted(cp for _, cp, _ in sorted(points, key=lambda p: abs(p[0] - x))[:k])
    return near[len(near) // 2] if near else None


def binned(points, bins=80):
    """Running means in bins of x/c spaced as cosines (fine at the leading and trailing edges)."""
    edges = [0.5 * (1 - math.cos(math.pi * i / bins)) for i in range(bins + 1)]
    sums = {}
    for x, cp, _ in points:
        k = 0
        while k < bins - 1 and x > edges[k + 1]:
            k += 1
        s = sums.setdefault(k, [0.0, 0.0, 0])
        s[0] += x
        s[1] += cp
        s[2] += 1
    return [(s[0] / s[2], s[1] / s[2]) for _, s in sorted(sums.items())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="the run's output folder (with walls.csv)")
    parser.add_argument("--output", default="", help="PNG (default RUN/onera_cp.png)")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--data", default=os.path.join(here, "..", "examples", "data", "onera_m6_cp_schmitt_charpin.csv"))
    parser.add_argument("--band", type=float, default=0.01, help="half width of a station's strip, in y / b")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    walls = read_csv(os.path.join(args.run, "walls.csv"), ["x", "y", "z", "cp", "side"])
    data = read_csv(args.data, ["station_eta", "x_over_c", "cp", "surface"])
    stations = sorted({float(r["station_eta"]) for r in data})
    output = args.output or os.path.join(args.run, "onera_cp.png")
    fig, axes = plt.subplots(2, 4, figsize=(16, 7.5))
    rows_out = []
    for ax, eta in zip(axes.flat, stations):
        points = sample(walls, eta, args.band)
        if not points:
            fail(f"no wall point within {args.band} of eta = {eta} (is this the ONERA M6 run, y spanwise?)")
        rows_out += [(eta, x, cp, side) for x, cp, side in points]
        errors = []
        for side, label, colour in ((1, "upper", "tab:blue"), (-1, "lower", "tab:red")):
            mine = [p for p in points if p[2] == side]
            ax.plot([p[0] for p in mine], [p[1] for p in mine], ".", ms=2, color=colour, alpha=0.35)
            curve = binned(mine)
            ax.plot([p[0] for p in curve], [p[1] for p in curve], "-", lw=1.2, color=colour, label=f"flowdg {label}")
            exp = [r for r in data if float(r["station_eta"]) == eta and r["surface"] == label]
            ax.plot([float(r["x_over_c"]) for r in exp], [float(r["cp"]) for r in exp], "o", mfc="none", color="k",
                    ms=4, label="experiment" if side == 1 else None)
            for r in exp:
                value = at_tap(mine, float(r["x_over_c"]))
                if value is not None:
                    errors.append(value - float(r["cp"]))
        rms = math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else float("nan")
        print(f"eta = {eta:.2f}: {len(points)} wall points, RMS(Cp - experiment) = {rms:.3f} at {len(errors)} taps")
        ax.set_title(f"y/b = {eta:.2f}  (RMS {rms:.3f})")
        ax.invert_yaxis()
        ax.set_xlabel("x/c")
        ax.set_ylabel("Cp")
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    for ax in list(axes.flat)[len(stations):]:
        ax.axis("off")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    with open(os.path.splitext(output)[0] + ".csv", "w") as f:
        f.write("station_eta,x_over_c,cp,side\n")
        for eta, x, cp, side in rows_out:
            f.write(f"{eta},{x:.6f},{cp:.6f},{side}\n")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
