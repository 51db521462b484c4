#!/bin/bash
# sipg_run.sh FLOWDG MPIEXEC CASE_DIR: `mpirun -np N flowdg run` of steady SIPG cases (issue 19 item
# 4) gives the one-rank run's answer: the same errors (the whole mesh's, summed over the ranks) to
# 1e-7 relative and about the same Krylov iterations (the sums' order differs), the same unknowns
# and nonzeros; each rank writes its piece of the solution (together every fine cell once) and rank 0
# solution.pvtu; bad input (the direct solve, a space-time case, more ranks than elements) stops
# every rank with a message.
set -u
flowdg=$1 mpiexec=$2 cases=$3
source "$(dirname "$0")/common.sh"  # $work, run
status=0
value() {  # value FILE KEY: the first number after "KEY": in a summary.json
  python3 -c "import json,sys; d=json.load(open('$1')); print(eval('d$2'))"
}
for case_name in poisson2d adr3d; do
  run "$work/$case_name-1.log" $flowdg run "$cases/$case_name.toml" --backend ${BACKEND:-cpu} --output "$work/$case_name-1"
  for ranks in 2 3; do
    out="$work/$case_name-$ranks"
    run "$out.log" $mpiexec -np $ranks --oversubscribe $flowdg run "$cases/$case_name.toml" --backend ${BACKEND:-cpu} --output "$out"
    python3 - "$work/$case_name-1/summary.json" "$out/summary.json" "$out" $ranks <<'PY' || status=1
import json, re, sys, os
one, many, directory, ranks = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
name = f"{one['name']} on {ranks} ranks"
problems = []
for key in ("l2", "dg", "h1"):
    a, b = one["errors"][key], many["errors"][key]
    if abs(a - b) > 1e-7 * abs(a):
        problems.append(f"{key} error {b!r} against one rank's {a!r}")
if int(many["dofs"]) != one["dofs"]:
    problems.append(f"{many['dofs']} unknowns against {one['dofs']}")
if int(many["nonzeros"]) != one["assembly_seconds"]["nonzeros"]:
    problems.append(f"{many['nonzeros']} nonzeros against {one['assembly_seconds']['nonzeros']}")
i1, i2 = one["solver"]["iterations"], many["solver"]["iterations"]
if not many["solver"]["converged"] or abs(i2 - i1) > 0.1 * i1 + 2:
    problems.append(f"{i2} iterations against {i1} (converged: {many['solver']['converged']})")
if many["ranks"] != ranks or len(many["assembly_seconds_per_rank"]) != ranks:
    problems.append("the ranks in summary.json")
# the pieces: every fine cell once
pvtu = open(os.path.join(directory, "solution.pvtu")).read()
pieces = re.findall(r'Source="([^"]+)"', pvtu)
cells = 0
for piece in pieces:
    text = open(os.path.join(directory, piece), "rb").read(4000).decode("latin-1")
    cells += int(re.search(r'NumberOfCells="(\d+)"', text).group(1))
if len(pieces) != ranks or cells != one["mesh"]["fine_elements"]:
    problems.append(f"{len(pieces)} pieces with {cells} cells for {one['mesh']['fine_elements']} fine elements")
if not os.path.exists(os.path.join(directory, "solution_outline.pvtu")):
    problems.append("no solution_outline.pvtu")
print(("FAILED " if problems else "ok ") + name + ": L2 %.9e (one rank %.9e), %d iterations (%d)" % (many["errors"]["l2"], one["errors"]["l2"], i2, i1))
for p in problems: print("  " + p)
sys.exit(1 if problems else 0)
PY
  done
done
expect() {  # expect NAME CODE FRAGMENT COMMAND...: exit code CODE and FRAGMENT in the output
  local name=$1 code=$2 fragment=$3
  shift 3
  timeout 120 "$@" > "$work/out.log" 2>&1
  local got=$?
  if [ "$got" -ne "$code" ] || ! grep -q -- "$fragment" "$work/out.log"; then
    echo "FAILED $name: exit $got (expected $code), output:"
    cat "$work/out.log"
    status=1
  else
    echo "ok $name: exit $got, $(grep -m1 -- "$fragment" "$work/out.log")"
  fi
}
expect "the direct solve under mpirun" 2 "runs on one rank" \
  $mpiexec -np 2 --oversubscribe $flowdg run "$cases/poisson2d.toml" --backend cpu --set 'solver.linear_solver="direct"' --output "$work/e"
expect "more ranks than elements" 2 "each rank needs at least one" \
  $mpiexec -np 3 --oversubscribe $flowdg run "$cases/poisson2d.toml" --backend cpu --set mesh.agglomerate=2 --output "$work/f"
expect "a space-time case under mpirun" 2 "runs on one rank" \
  $mpiexec -np 2 --oversubscribe $flowdg run "$(dirname "$0")/../../examples/poly/heat.toml" --backend cpu --output "$work/g"
exit $status
