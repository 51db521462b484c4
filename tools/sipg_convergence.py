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

Space-time cases (a [time] table, issue 19): --slabs gives the slab count per agglomerate count (time
refined with space), --refine-per-count N=R,... refines the fine mesh R times for count N, and
--spaces reduced,full runs both spaces side by side; the table then has the L2(L2) and energy errors
and the unknowns per slab:
  tools/sipg_convergence.py --case examples/poly/heat.toml --agglomerates 200,800,3200 --slabs 4,8,16 \
      --refine-per-count 200=0,800=1,3200=2 --degrees 1..4 --spaces reduced,full --output out/st.md
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


def per_count(text, n):
    """The value for count n in 'N=V,N=V,...' (None when absent)."""
    for item in (text or "").split(","):
        if "=" in item:
            count, value = item.split("=", 1)
            if int(count) == n:
                return value
    return None


def run_one(args, n, p, directory, space=None, slabs=None):
    command = shlex.split(args.flowdg) + ["run", args.case, "--backend", args.backend, "--output", directory,
               "--set", f"mesh.agglomerate={n}", "--set", f"solver.degree={p}", "--set", "output.vtu=false"]
    if space:
        command += ["--set", f'solver.space="{space}"']
    if slabs:
        command += ["--set", f"time.slabs={slabs}", "--set", "output.checkpoint_every=1000000000"]
    refine = per_count(args.refine_per_count, n)
    if refine is not None:
        command += ["--set", f"mesh.refine={refine}"]
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


def errors_of(s):
    """(first error, second error, unknowns) of a run: L2 and DG (steady) or L2(L2) and energy (space-time)."""
    e = s["errors"]
    if "l2l2" in e:
        return e["l2l2"], e["energy"], s["dofs_per_slab"]
    return e["l2"], e["dg"], s["dofs"]


def table(runs, degrees, counts, space_time=False):
    """Markdown: one row per agglomerate count, per degree the L2 error and rate, the DG error and rate."""
    lines = []
    header = "| elements |"
    rule = "|---|"
    for p in degrees:
        if space_time:
            header += f" p = {p} dofs/slab | L2(L2) | rate | energy | rate |"
        else:
            header += f" p = {p} dofs | L2 | rate | DG | rate |"
        rule += "---|---|---|---|---|"
    lines += [header, rule]
    for i, n in enumerate(counts):
        first = runs[(degrees[0], n)]
        row = f"| {first['mesh']['elements']} |"
        if space_time:
            row = f"| {first['mesh']['elements']} x {first['time']['slabs']} |"
        for p in degrees:
            s = runs[(p, n)]
            l2, dg, dofs = errors_of(s)
            if i == 0:
                row += f" {dofs} | {l2:.3e} | - | {dg:.3e} | - |"
            else:
                prev = runs[(p, counts[i - 1])]
                l2_0, dg_0, _ = errors_of(prev)
                d = s["mesh"]["dimension"]
                n0, n1 = prev["mesh"]["elements"], s["mesh"]["elements"]
                row += (f" {dofs} | {l2:.3e} | {rate(l2_0, l2, n0, n1, d):.2f} |"
                        f" {dg:.3e} | {rate(dg_0, dg, n0, n1, d):.2f} |")
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
    parser.add_argument("--slabs", help="space-time: slabs per agglomerate count, e.g. 4,8,16")
    parser.add_argument("--refine-per-count", help="uniform refinements of the fine mesh per count, N=R,N=R,...")
    parser.add_argument("--spaces", help="space-time: reduced,full (a table each)")
    parser.add_argument("--degrees", default="1,2,3,4", help="e.g. 1,2,3,4 or 1..4")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--set", action="append", help="more case overrides (section.key=value)")
    parser.add_argument("--work", default="out/sipg_convergence", help="where the runs go")
    parser.add_argument("--output", help="write the Markdown table (and a .json of the runs beside it)")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    counts = parse_list(args.agglomerates)
    degrees = parse_list(args.degrees)
    slabs = parse_list(args.slabs) if args.slabs else [None] * len(counts)
    if len(slabs) != len(counts):
        raise SystemExit("sipg_convergence: --slabs needs one count per agglomerate count")
    spaces = args.spaces.split(",") if args.spaces else [None]
    text = (f"{args.title}\n\n" if args.title else "")
    all_runs = {}
    for space in spaces:
        runs = {}
        for p in degrees:
            for n, m in zip(counts, slabs):
                directory = os.path.join(args.work, f"{space + '_' if space else ''}p{p}_n{n}")
                s = run_one(args, n, p, directory, space, m)
                if "errors" not in s:
                    raise SystemExit("sipg_convergence: the case has no exact solution (no errors in summary.json)")
                runs[(p, n)] = s
                all_runs[(space, p, n)] = s
                e1, e2, dofs = errors_of(s)
                if m:
                    t = s["seconds"]
                    print(f"{space} p = {p}, {s['mesh']['elements']} elements x {m} slabs, {dofs} unknowns per slab: L2(L2) {e1:.3e}, "
                          f"energy {e2:.3e}, assembly {t['assembly_total']:.3f} s, solve {t['solve_total'] + t['factor_total']:.3f} s "
                          f"({s['linear_solver']})", flush=True)
                else:
                    print(f"p = {p}, {s['mesh']['elements']} elements, {dofs} unknowns: L2 {e1:.3e}, "
                          f"DG {e2:.3e}, {s['solver']['method']} ({s['solver']['seconds']:.2f} s), "
                          f"assembly {s['assembly_seconds']['total']:.3f} s", flush=True)
        if space:
            text += f"{space} space:\n\n"
        text += table(runs, degrees, counts, space_time=slabs[0] is not None) + "\n"
    print(text)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            f.write(text)
        with open(os.path.splitext(args.output)[0] + ".json", "w") as f:
            json.dump([{"space": sp, "degree": p, "agglomerates": n, "summary": s} for (sp, p, n), s in all_runs.items()], f, indent=1)


if __name__ == "__main__":
    main()
