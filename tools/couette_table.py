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
    command = [args.flowdg, "run", os.path.join(root, "examples", "couette.toml"), "--backend", args.backend,
               "--set", f'mesh.file="{os.path.join(root, "examples", "meshes", f"couette_{mesh}.msh")}"',
               "--set", f"solver.order={order}", "--set", f"time.end_time={args.end_time}",
               "--set", f"time.cfl={args.cfl}", "--set", "output.vtu=false", "--set", f'output.directory="{out}"']
    if args.dt_every > 1:
        command += ["--set", f"time.dt_every={args.dt_every}"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return summary["errors"]["l2"]["rho"], summary["steps"], summary["wall_seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowdg", default="build/bin/flowdg")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--end-time", type=float, default=300.0)
    parser.add_argument("--cfl", type=float, default=0.2)
    parser.add_argument("--dt-every", type=int, default=10)
    parser.add_argument("--orders", default="1,2,3")
    parser.add_argument("--families", default="ABC,DEF")
    parser.add_argument("--out", default="runs/couette")
    args = parser.parse_args()
    lines = ["| p | mesh | L2 error | rate | paper | paper rate | ratio | steps | wall s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    worst_ratio, failures = 0.0, []
    for order in [int(p) for p in args.orders.split(",")]:
        for family in args.families.split(","):
            previous = None
            for mesh in family:
                error, steps, wall = run(args, mesh, order)
                paper = PAPER[(mesh, order)]
                rate = "" if previous is None else f"{math.log2(previous[0] / error):.2f}"
                paper_rate = "" if previous is None else f"{math.log2(previous[1] / paper):.2f}"
                if previous is not None and math.log2(previous[0] / error) < order + 1 - 0.3:
                    failures.append(f"p = {order} {mesh}: rate {rate}")
                worst_ratio = max(worst_ratio, error / paper)
                lines.append(f"| {order} | {mesh} | {error:.2e} | {rate} | {paper:.2e} | {paper_rate} | {error / paper:.2f} | {steps} | {wall:.1f} |")
                print(lines[-1], flush=True)
                previous = (error, paper)
    print("\n".join(lines))
    print(f"largest error / paper's: {worst_ratio:.2f} (target <= 3)")
    if failures:
        print("rates below p + 1 - 0.3: " + "; ".join(failures))
    return 0 if not failures and worst_ratio <= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
