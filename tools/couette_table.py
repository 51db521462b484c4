#!/usr/bin/env python3
"""Couette flow beside Gao, Chen et al. 2022, Table 3: runs examples/couette.toml on the meshes A-C
(triangles) and D-F (quadrilaterals) of examples/meshes at p = 1..3, reads each run's summary.json
and prints the L2 density errors and rates beside the paper's as a Markdown table.

  tools/couette_table.py --flowdg build/bin/flowdg --backend cuda --end-time 300 --out runs/couette

Every run starts from the exact solution and marches to end_time (the transient's slowest mode,
heat diffusing across the channel, decays as exp(-t / 25) at Re = 100); the run's error is then the
discrete steady state's.
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys

PAPER = {  # Table 3: (mesh, p) -> L2 density error
    ("A", 1): 1.30e-5, ("B", 1): 2.98e-6, ("C", 1): 7.09e-7,
    ("A", 2): 7.46e-8, ("B", 2): 1.01e-8, ("C", 2): 1.10e-9,
    ("A", 3): 2.47e-10, ("B", 3): 1.95e-11, ("C", 3): 1.46e-12,
    ("D", 1): 1.66e-5, ("E", 1): 3.62e-6, ("F", 1): 9.30e-7,
    ("D", 2): 1.28e-7, ("E", 2): 1.61e-8, ("F", 2): 2.02e-9,
    ("D", 3): 4.78e-10, ("E", 3): 3.09e-11, ("F", 3): 2.35e-12,
}


def run(args, mesh, order):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    out = os.path.join(args.out, f"{mesh}_p{order}")
    command = shlex.split(args.flowdg) + ["run", os.path.join(root, "examples", "couette.toml"), "--backend", args.backend,
               "--set", f'mesh.file="{os.path.join(root, "examples", "meshes", f"couette_{mesh}.msh")}"',
               "--set", f"solver.order={order}", "--set", f"time.end_time={args.end_time}",
               "--set", f"time.cfl={args.cfl}", "--set", f"physics.reynolds={args.reynolds}", "--set", "output.vtu=false", "--set", f'output.directory="{out}"']
    if args.dt_every > 1:
        command += ["--set", f"time.dt_every={args.dt_every}"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return summary["errors"]["l2"]["rho"], summary["elements"], summary["steps"], summary["wall_seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowdg", default="build/bin/flowdg", help="the program (a command line: '.bundle/run flowdg')")
    parser.add_argument("--reynolds", type=float, default=100.0)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--end-time", type=float, default=300.0)
    parser.add_argument("--cfl", type=float, default=0.4)
    parser.add_argument("--dt-every", type=int, default=10)
    parser.add_argument("--orders", default="1,2,3")
    parser.add_argument("--families", default="ABC,DEF")
    parser.add_argument("--out", default="runs/couette")
    args = parser.parse_args()
    # Rates by the meshes' h, h ~ 1 / sqrt(elements) (the unstructured A-C do not halve h exactly).
    # RMS: the L2 error over sqrt(|domain|) = sqrt(8), the paper's norm if it normalises.
    area = 8.0
    lines = ["| p | mesh | elements | L2 error | RMS | rate | paper | paper rate | L2 / paper | RMS / paper | steps | wall s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    worst_ratio, worst_rms_ratio, failures = 0.0, 0.0, []
    for order in [int(p) for p in args.orders.split(",")]:
        for family in args.families.split(","):
            previous = None
            for mesh in family:
                error, elements, steps, wall = run(args, mesh, order)
                paper = PAPER[(mesh, order)]
                rms = error / math.sqrt(area)
                rate, paper_rate = "", ""
                if previous is not None:
                    h_ratio = math.sqrt(elements / previous[2])
                    value = math.log(previous[0] / error) / math.log(h_ratio)
                    rate = f"{value:.2f}"
                    paper_rate = f"{math.log2(previous[1] / paper):.2f}"
                    if value < order + 1 - 0.3:
                        failures.append(f"p = {order} {mesh}: rate {rate}")
                worst_ratio = max(worst_ratio, error / paper)
                worst_rms_ratio = max(worst_rms_ratio, rms / paper)
                lines.append(f"| {order} | {mesh} | {elements} | {error:.2e} | {rms:.2e} | {rate} | {paper:.2e} | {paper_rate} | "
                             f"{error / paper:.2f} | {rms / paper:.2f} | {steps} | {wall:.1f} |")
                print(lines[-1], flush=True)
                previous = (error, paper, elements)
    print("\n".join(lines))
    print(f"largest error / paper's: L2 {worst_ratio:.2f}, RMS {worst_rms_ratio:.2f}")
    if failures:
        print("rates below p + 1 - 0.3: " + "; ".join(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
