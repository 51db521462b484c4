#!/usr/bin/python3
"""Draws a flowdg run's force history (forces.csv) and wall distributions (walls.csv).

    /usr/bin/python3 tools/plot_forces.py RUN_DIR [--history PNG] [--walls PNG]
        [--against x_over_c|angle] [--boundary NAME] [--reference CSV] [--title T]

forces.csv: step, cd, cl, cd_pressure, cd_viscous (and recirculation_length, s/d, when present):
CD and CL against step, the pressure and viscous drag, s/d; the last row is printed as one line.
walls.csv: boundary, x_over_c, angle, side, cp, cf: Cp (axis inverted) and Cf along the wall, one
line per boundary and side (upper solid, lower dashed). --reference overlays a CSV with columns
x,cp and/or x,cf as markers (x in the same abscissa as --against).
Plots default to RUN_DIR/forces.png and RUN_DIR/walls.png; a missing file is skipped with a note
unless its plot was asked for. Bad input is one line on stderr and exit code 2.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or wanted
import matplotlib.pyplot as plt
import numpy as np

FORCES = ["step", "cd", "cl", "cd_pressure", "cd_viscous"]
WALLS = ["boundary", "x_over_c", "angle", "side", "cp", "cf"]


def fail(message):
    print(f"plot_forces: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path, required, text=("boundary",)):
    """Columns of a CSV file by header name: numbers as float arrays, the `text` ones as lists."""
    try:
        with open(path, newline="") as f:
            rows = [row for row in csv.reader(f) if row]
    except OSError as error:
        fail(f"cannot read {path}: {error.strerror}")
    if not rows:
        fail(f"{path} is empty")
    header = [name.strip() for name in rows[0]]
    missing = [name for name in required if name not in header]
    if missing:
        fail(f"{path} lacks the column(s) {', '.join(missing)}; it has {', '.join(header)}")
    body = rows[1:]
    if not body:
        fail(f"{path} has a header but no rows")
    if any(len(row) != len(header) for row in body):
        fail(f"{path} has rows whose length differs from its header's ({len(header)} columns)")
    columns = {}
    for k, name in enumerate(header):
        values = [row[k].strip() for row in body]
        if name in text:
            columns[name] = values
            continue
        try:
            columns[name] = np.array(values, dtype=float)
        except ValueError:
            fail(f"{path}: column {name} holds a value that is not a number")
    return columns


def plot_history(forces, output, title):
    wake = forces.get("recirculation_length")
    step = forces["step"]
    figure, axes = plt.subplots(3 if wake is not None else 2, 1, figsize=(9, 9 if wake is not None else 6.5), sharex=True)
    axes[0].plot(step, forces["cd"], label="CD")
    axes[0].plot(step, forces["cl"], label="CL")
    axes[0].set_ylabel("coefficient")
    axes[1].plot(step, forces["cd_pressure"], label="CD pressure")
    axes[1].plot(step, forces["cd_viscous"], label="CD viscous")
    axes[1].set_ylabel("drag parts")
    if wake is not None:
        axes[2].plot(step, wake, color="tab:green", label="recirculation length")
        axes[2].set_ylabel("s / d")
    for panel in axes:
        panel.grid(alpha=0.3)
        panel.legend(loc="best")
    axes[-1].set_xlabel("step")
    axes[0].set_title(title if title is not None else "force history")
    figure.savefig(output, dpi=150, bbox_inches="tight")
    plt.close(figure)

    last = f"last: step {int(step[-1])}  CD {forces['cd'][-1]:.4f}  CDp {forces['cd_pressure'][-1]:.4f}  " \
           f"CDv {forces['cd_viscous'][-1]:.4f}  CL {forces['cl'][-1]:.4f}"
    if wake is not None:
        last += f"  s/d {wake[-1]:.4f}"
    print(last)


def read_reference(path):
    if not os.path.isfile(path):
        fail(f"no such reference file: {path}")
    reference = read_csv(path, ["x"], text=())
    if "cp" not in reference and "cf" not in reference:
        fail(f"{path} has neither a cp nor a cf column")
    return reference


def plot_walls(walls, output, against, boundary, reference, title):
    names = sorted(set(walls["boundary"])) if boundary is None else [boundary]
    labels = np.array(walls["boundary"])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    figure, (cp_axes, cf_axes) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    for b, name in enumerate(names):
        for side, style, word in ((1, "-", "upper"), (-1, "--", "lower")):
            chosen = (labels == name) & (walls["side"] == side)
            if not chosen.any():
                continue
            order = np.argsort(walls[against][chosen], kind="stable")
            abscissa = walls[against][chosen][order]
            label = word if len(names) == 1 else f"{name} {word}"
            colour = colours[b % len(colours)]
            cp_axes.plot(abscissa, walls["cp"][chosen][order], style, color=colour, label=label)
            cf_axes.plot(abscissa, walls["cf"][chosen][order], style, color=colour, label=label)
    if reference is not None:
        for key, panel in (("cp", cp_axes), ("cf", cf_axes)):
            if key in reference:
                panel.plot(reference["x"], reference[key], "o", color="black", markersize=4, fillstyle="none", label="reference")
    cp_axes.invert_yaxis()  # suction up
    cp_axes.set_ylabel("Cp")
    cf_axes.set_ylabel("Cf")
    cf_axes.axhline(0.0, color="grey", linewidth=0.6)
    cf_axes.set_xlabel("x / c" if against == "x_over_c" else "angle (degrees, 0 at the front)")
    for panel in (cp_axes, cf_axes):
        panel.grid(alpha=0.3)
        panel.legend(loc="best")
    cp_axes.set_title(title if title is not None else "wall distribution" + (f": {boundary}" if boundary else ""))
    figure.savefig(output, dpi=150, bbox_inches="tight")
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run's output directory (holding forces.csv and/or walls.csv)")
    parser.add_argument("--history", metavar="PNG", help="PNG of the force history (default RUN_DIR/forces.png)")
    parser.add_argument("--walls", metavar="PNG", help="PNG of the wall Cp and Cf (default RUN_DIR/walls.png)")
    parser.add_argument("--against", choices=["x_over_c", "angle"], default="x_over_c", help="abscissa of the wall plot")
    parser.add_argument("--boundary", metavar="NAME", help="the one wall boundary to draw (default all)")
    parser.add_argument("--reference", metavar="CSV", help="CSV with columns x,cp and/or x,cf drawn as markers on the wall plot")
    parser.add_argument("--title", metavar="TEXT")
    args = parser.parse_args()

    if not os.path.isdir(args.run_dir):
        fail(f"no such directory: {args.run_dir}")
    forces = os.path.join(args.run_dir, "forces.csv")
    walls = os.path.join(args.run_dir, "walls.csv")
    have_forces, have_walls = os.path.isfile(forces), os.path.isfile(walls)
    if not have_forces and not have_walls:
        fail(f"neither forces.csv nor walls.csv in {args.run_dir}")
    if args.history is not None and not have_forces:
        fail(f"--history asked for, but there is no {forces}")
    if args.walls is not None and not have_walls:
        fail(f"--walls asked for, but there is no {walls}")
    wall_options = args.boundary is not None or args.reference is not None or args.against != "x_over_c"
    if wall_options and not have_walls:
        fail(f"wall options given, but there is no {walls}")
    # Everything is read and checked before anything is drawn: bad input leaves no half-done plots.
    reference = read_reference(args.reference) if args.reference is not None else None
    history = read_csv(forces, FORCES) if have_forces else None
    wall_data = read_csv(walls, WALLS) if have_walls else None
    if wall_data is not None and args.boundary is not None and args.boundary not in wall_data["boundary"]:
        fail(f"no boundary '{args.boundary}' in {walls}; boundaries: {', '.join(sorted(set(wall_data['boundary'])))}")

    if history is not None:
        plot_history(history, args.history or os.path.join(args.run_dir, "forces.png"), args.title)
    else:
        print(f"plot_forces: no {forces}; force history skipped", file=sys.stderr)
    if wall_data is not None:
        plot_walls(wall_data, args.walls or os.path.join(args.run_dir, "walls.png"), args.against, args.boundary, reference, args.title)
    else:
        print(f"plot_forces: no {walls}; wall plot skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
