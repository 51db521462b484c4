#!/usr/bin/env python3
"""Convergence tables of polytopic SIPG cases (issue 18 item 6) from `flowdg run`.

For every degree and agglomerate count it runs the case with `--set mesh.agglomerate=N --set
solver.degree=p`, reads each run's summary.json and prints (and writes, with --output) a Markdown
table of the L2 and DG-norm errors with their rates. h is taken as (elements)^(-1/d): the rate
between two runs is log(e1 / e2) / log((N2 / N1)^(1/d)).

  tools/sipg_convergence.py --flowdg build/bin/flowdg --case examples/poly/poisson.toml \\
      --mesh 'builtin:rectangle?nx=256&ny=256&perturbation=0.2' --agglomerates 500,2000,8000 \\
      --degrees 1,2,3,4 --output out/sipg/poisson.md [--set problem.type=hyperbolic ...]
  (--mesh-per-count '500=builtin:rectangle?nx=128&ny=128,2000=...' refines the fine mesh with the count)
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys


def parse_list(text):
    if ".." in text:
        first, last = text.split("..")
        return list(range(int(first), int(last) + 1))
    return [int(v) for v in text.split(",") if v]


def run_one(args, n, p, directory):
    command = shlex.split(args.flowdg) + ["run", args.case, "--backend", args.backend, "--output", directory,
               "--set", f"mesh.agglomerate={n}", "--set", f"solver.degree={p}", "--set", "output.vtu=false"]
    mesh = args.mesh
    if args.mesh_per_count:
        for item in args.mesh_per_count.split(","):
            count, spec = item.split("=", 1)
            if int(count) == n:
                mesh = spec
    if mesh:
        command += ["--set", f'mesh.file="{mesh}"']
    for assignment in args.set or []:
        command += ["--set", assignment]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"sipg_convergence: {' '.join(command)} exited with {result.returncode}")
    with open(os.path.join(directory, "summary.json")) as f:
        return json.load(f)


def rate(e0, e1, n0, n1, d):
    if e0 <= 0 or e1 <= 0 or n0 == n1:
        return float("nan")
    return math.log(e0 / e1) / math.log((n1 / n0) ** (1.0 / d))


def table(runs, degrees, counts):
    """Markdown: one row per agglomerate count, per degree the L2 error and rate, the DG error and rate."""
    lines = []
    header = "| elements |"
    rule = "|---|"
    for p in degrees:
        header += f" p = {p} dofs | L2 | rate | DG | rate |"
        rule += "---|---|---|---|---|"
    lines += [header, rule]
    for i, n in enumerate(counts):
        first = runs[(degrees[0], n)]
        row = f"| {first['mesh']['elements']} |"
        for p in degrees:
            s = runs[(p, n)]
            l2, dg = s["errors"]["l2"], s["errors"]["dg"]
            if i == 0:
                row += f" {s['dofs']} | {l2:.3e} | - | {dg:.3e} | - |"
            else:
                prev = runs[(p, counts[i - 1])]
                d = s["mesh"]["dimension"]
                n0, n1 = prev["mesh"]["elements"], s["mesh"]["elements"]
                row += (f" {s['dofs']} | {l2:.3e} | {rate(prev['errors']['l2'], l2, n0, n1, d):.2f} |"
                        f" {dg:.3e} | {rate(prev['errors']['dg'], dg, n0, n1, d):.2f} |")
        lines.append(row)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowdg", default="build/bin/flowdg", help="the program (a command with arguments is split, e.g. '.bundle/run flowdg')")
    parser.add_argument("--case", required=True, help="a case file with [solver] method = \"sipg\"")
    parser.add_argument("--mesh", help="the fine mesh (overrides the case's [mesh] file)")
    parser.add_argument("--mesh-per-count", help="a fine mesh per agglomerate count, N=SPEC,N=SPEC,... (the fine "
                        "mesh refined with the agglomerates keeps their shape statistics fixed)")
    parser.add_argument("--agglomerates", required=True, help="e.g. 500,2000,8000")
    parser.add_argument("--degrees", default="1,2,3,4", help="e.g. 1,2,3,4 or 1..4")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--set", action="append", help="more case overrides (section.key=value)")
    parser.add_argument("--work", default="out/sipg_convergence", help="where the runs go")
    parser.add_argument("--output", help="write the Markdown table (and a .json of the runs beside it)")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    counts = parse_list(args.agglomerates)
    degrees = parse_list(args.degrees)
    runs = {}
    for p in degrees:
        for n in counts:
            directory = os.path.join(args.work, f"p{p}_n{n}")
            s = run_one(args, n, p, directory)
            if "errors" not in s:
                raise SystemExit("sipg_convergence: the case has no exact solution (no errors in summary.json)")
            runs[(p, n)] = s
            print(f"p = {p}, {s['mesh']['elements']} elements, {s['dofs']} unknowns: L2 {s['errors']['l2']:.3e}, "
                  f"DG {s['errors']['dg']:.3e}, {s['solver']['method']} ({s['solver']['seconds']:.2f} s), "
                  f"assembly {s['assembly_seconds']['total']:.3f} s", flush=True)
    text = (f"{args.title}\n\n" if args.title else "") + table(runs, degrees, counts)
    print(text)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            f.write(text)
        with open(os.path.splitext(args.output)[0] + ".json", "w") as f:
            json.dump([{"degree": p, "agglomerates": n, "summary": s} for (p, n), s in runs.items()], f, indent=1)


if __name__ == "__main__":
    main()
