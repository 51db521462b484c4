#!/usr/bin/env bash
# Space-time polytopic DG on the GPU machine (issue 19; docs/validation.md, docs/performance.md):
#   tests     the SIPG gpu tests (space-time slabs on the device = the host's) and memcheck on them
#   verify    item 3: the oscillating-boundary domain (examples/poly/oscillating_small.msh, refined 0,
#             1, 2 times: 20,110 / 80,440 / 321,760 triangles) agglomerated by METIS into 200 / 800 /
#             3,200 polygons (~100 triangles each), 4 / 8 / 16 slabs on [0, 0.5] (h and dt halve
#             together), p = 1..4, the reduced and the full space, GMRES with block Jacobi on the
#             device (the advection-diffusion-reaction problem with the diffusion scaled by
#             VERIFY_DIFFUSION_SCALE, default 0.01, so that block Jacobi keeps GMRES short)
#   timing    item 2: assembly against solve per slab when the coefficients change every slab
#             (problem.oscillation = 0.5; the diffusion scaled by 0.01 as in verify), the finest
#             verify mesh (3,200 polygons of 321,760 triangles), 8 slabs, the H100 against the CPU
#             backend (all cores), p = 1..3
#   parts     item 4 on one device: the 3D advection-diffusion-reaction assembly (variable
#             coefficients) on METIS agglomerates of 32 tetrahedra (builtin:box?n=PARTS_N, default 40:
#             384,000 tetrahedra, 12,000 polyhedra), p = 1..3, whole and split into 2 and 4 METIS parts
#             assembled one after the other (flowdg bench-sipg --parts): the largest part is what 2 or
#             4 devices would take
#   mpi       item 4 on several GPUs: mpirun -np 1, 2, 4 (MPI_RANKS) flowdg run examples/poly/adr3d_parts.toml,
#             one rank per GPU (more ranks than GPUs skipped unless SHARE_GPUS=1), a table of the
#             slowest rank's index / quadrature / assembly times, GMRES and the error; and
#             tests/mpi/sipg_run.sh with the cuda backend
#   reduce-ab the deterministic assembly's block reduction, a thread per entry against one per block
#             (bench-sipg --reduction, the parts benchmark's mesh, whole and 4 parts)
#   gmres-ab  GMRES's orthogonalisation, classical twice (fused) against modified, on the mpi case
#             (AB_RANKS, default 1 2) and the space-time timing case at p = 2
# Expects NO_TESTS=1 scripts/make-bundle.sh build (PARTS without tests) or ONLY_TESTS=1 (tests).
# PARTS=tests,verify,timing,parts picks (default verify,timing). Logs and tables under $OUT, a summary last.
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/flowdg-space-time}
mkdir -p "$out/logs"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
parts=${PARTS:-verify,timing}
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); commit $(cat .bundle/COMMIT 2>/dev/null || echo '?')"

if [[ $parts == *tests* ]]; then
  timeout 300 .bundle/run flowdg_gpu_tests --gtest_filter='SipgGpu.*:GpuLinalg*' > "$out/logs/gpu_tests.log" 2>&1
  note "sipg gpu tests: exit $? | $(grep -E '^\[  (PASSED|FAILED) ' "$out/logs/gpu_tests.log" | tr '\n' ' ')"
  grep -E "Failure|Expected|actual|largest difference" "$out/logs/gpu_tests.log" | head -20 | tee -a "$summary"
  LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 .bundle/bin/flowdg_gpu_tests \
    --gtest_filter='SipgGpu.SpaceTime*:SipgGpu.Gmres*' > "$out/logs/memcheck.log" 2>&1
  note "memcheck (space-time): exit $? | $(grep -E 'ERROR SUMMARY' "$out/logs/memcheck.log" | tail -1)"
fi

if [[ $parts == *verify* ]]; then
  scale=${VERIFY_DIFFUSION_SCALE:-0.01}
  diffusion=$(python3 -c "s=$scale; print(f'[{s}, {0.25*s}, {0.25*s}, {0.5*s}]')")
  timeout "${VERIFY_LIMIT:-420}" python3 tools/sipg_convergence.py --flowdg '.bundle/run flowdg' --backend cuda \
    --case examples/poly/heat.toml --agglomerates 200,800,3200 --slabs 4,8,16 --refine-per-count 200=0,800=1,3200=2 \
    --degrees "${DEGREES:-1,2,3,4}" --spaces "${SPACES:-reduced,full}" --set problem.oscillation=0 --set time.end=0.5 \
    --set "problem.diffusion=$diffusion" --set solver.linear_solver=gmres --set solver.tolerance=1e-13 \
    --set solver.max_iterations=200000 --set solver.restart=100 \
    --work "$out/verify" --output "$out/verify_space_time.md" \
    --title "Space-time, oscillating-boundary domain, advection-diffusion-reaction with a scaled by $scale" \
    > "$out/logs/verify.log" 2>&1
  note "verify: exit $?"
  grep -E "^\||space:" "$out/logs/verify.log" | tee -a "$summary"
  rm -rf "$out/verify"/*/solution*.vtu
fi

if [[ $parts == *timing* ]]; then
  for p in ${TIMING_DEGREES:-1 2 3}; do
    for backend in cuda cpu; do
      name=timing_p${p}_$backend
      timeout "${TIMING_LIMIT:-150}" .bundle/run flowdg run examples/poly/heat.toml --backend $backend --output "$out/$name" \
        --set mesh.refine=2 --set mesh.agglomerate=3200 --set solver.degree=$p --set time.slabs=${TIMING_SLABS:-8} \
        --set time.end=0.5 --set problem.oscillation=0.5 --set "problem.diffusion=[0.01, 0.0025, 0.0025, 0.005]" \
        --set solver.linear_solver=gmres --set solver.tolerance=1e-10 \
        --set solver.max_iterations=200000 --set output.vtu=false > "$out/logs/$name.log" 2>&1
      note "$name: exit $? | $(grep -E 'slabs in' "$out/logs/$name.log")"
    done
  done
fi
if [[ $parts == *parts* ]]; then
  n=${PARTS_N:-40}
  for k in 2 4; do
    timeout "${PARTS_LIMIT:-200}" .bundle/run flowdg bench-sipg "builtin:box?n=$n" --agglomerate $((n * n * n * 6 / 32)) --degrees 1,2,3 \
      --precision double --methods deterministic --repeat 3 --parts $k --backend cuda --output "$out/parts_$k.json" > "$out/logs/parts_$k.log" 2>&1
    note "parts $k: exit $?"
    sed -n '/^SIPG assembly/,$p' "$out/logs/parts_$k.log" | tee -a "$summary"
  done
fi
if [[ $parts == *mpi* ]]; then
  # item 4 on several GPUs: mpirun -np N flowdg run of examples/poly/adr3d_parts.toml (one rank per GPU;
  # SHARE_GPUS=1 lets ranks share the GPUs, which checks the device path but times nothing useful),
  # then the same answer on 2 and 3 ranks against one (tests/mpi/sipg_run.sh on the device)
  mpirun=$(command -v mpirun)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
  gpus=$(nvidia-smi -L | wc -l)
  for ranks in ${MPI_RANKS:-1 2 4}; do
    if [ "$ranks" -gt "$gpus" ] && [ -z "${SHARE_GPUS:-}" ]; then note "mpi $ranks ranks: skipped ($gpus GPUs)"; continue; fi
    name=mpi_$ranks
    timeout "${MPI_LIMIT:-200}" "$mpirun" -np "$ranks" --bind-to none .bundle/run flowdg run examples/poly/adr3d_parts.toml --backend cuda \
      --output "$out/$name" ${MPI_SET:-} > "$out/logs/$name.log" 2>&1
    note "$name: exit $? on $gpus GPU(s) | $(grep -E 'GMRES|errors:' "$out/logs/$name.log" | tr '\n' ' ')"
  done
  python3 - "$out" <<'PY' | tee -a "$summary"
import json, os, sys
out = sys.argv[1]
print("| ranks | index s (max) | quadrature s (max) | assembly s (max) | set-up s (max) | GMRES s | iterations | L2 error |")
print("|---|---|---|---|---|---|---|---|")
for ranks in (1, 2, 4, 8):
    path = os.path.join(out, f"mpi_{ranks}", "summary.json")
    if not os.path.exists(path): continue
    s = json.load(open(path))
    if "assembly_seconds_per_rank" in s:
        t = s["assembly_seconds_per_rank"]
        index, quad, total, setup = (max(r[k] for r in t) for k in ("index", "quadrature", "total", "setup"))
    else:
        a = s["assembly_seconds"]
        index, quad, total, setup = a["pattern"] + a["indices"], a["element"] + a["interior"] + a["boundary"] + a["rhs"], a["total"], a["setup"]
    print(f"| {ranks} | {index:.4f} | {quad:.4f} | {total:.4f} | {setup:.3f} | {s['solver']['seconds']:.2f} | {s['solver'].get('iterations', '-')} | {s['errors']['l2']:.6e} |")
PY
  BACKEND=cuda timeout 300 bash tests/mpi/sipg_run.sh "$PWD/.bundle/run flowdg" "$mpirun --bind-to none" "$PWD/tests/mpi/sipg" \
    > "$out/logs/sipg_run.log" 2>&1
  note "sipg_run.sh on the device (ranks sharing the GPUs): exit $?"
  grep -E "^(ok|FAILED)" "$out/logs/sipg_run.log" | cut -c1-160 | tee -a "$summary"
fi
if [[ $parts == *reduce-ab* ]]; then
  # A/B of the deterministic assembly's block reduction (flowdg bench-sipg --reduction): one thread
  # per block entry against one per block, on the parts benchmark's mesh, whole and in 4 parts
  n=${PARTS_N:-40}
  for reduction in entry block; do
    timeout "${PARTS_LIMIT:-200}" .bundle/run flowdg bench-sipg "builtin:box?n=$n" --agglomerate $((n * n * n * 6 / 32)) --degrees 1,2,3 \
      --precision double --methods deterministic --repeat 3 --parts 4 --reduction $reduction --backend cuda \
      --output "$out/reduce_$reduction.json" > "$out/logs/reduce_$reduction.log" 2>&1
    note "reduction $reduction: exit $?"
    sed -n '/^SIPG assembly/,$p' "$out/logs/reduce_$reduction.log" | tee -a "$summary"
  done
fi
if [[ $parts == *gmres-ab* ]]; then
  # A/B of GMRES's orthogonalisation on the device ([solver] orthogonalization): classical
  # Gram-Schmidt twice (fused reductions) against modified, on examples/poly/adr3d_parts.toml on 1
  # rank and 2 ranks (sharing the GPUs when fewer), and on the space-time timing case at p = 2
  mpirun=$(command -v mpirun)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
  for ranks in ${AB_RANKS:-1 2}; do
    for way in classical modified; do
      name=ab_${way}_$ranks
      timeout "${MPI_LIMIT:-200}" "$mpirun" -np "$ranks" --bind-to none .bundle/run flowdg run examples/poly/adr3d_parts.toml --backend cuda \
        --output "$out/$name" --set "solver.orthogonalization=\"$way\"" > "$out/logs/$name.log" 2>&1
      note "$name: exit $? | $(grep -E 'GMRES|errors:' "$out/logs/$name.log" | tr '\n' ' ')"
    done
  done
  for way in classical modified; do
    name=ab_space_time_$way
    timeout "${TIMING_LIMIT:-150}" .bundle/run flowdg run examples/poly/heat.toml --backend cuda --output "$out/$name" \
      --set mesh.refine=2 --set mesh.agglomerate=3200 --set solver.degree=2 --set time.slabs=8 \
      --set time.end=0.5 --set problem.oscillation=0.5 --set "problem.diffusion=[0.01, 0.0025, 0.0025, 0.005]" \
      --set solver.linear_solver=gmres --set solver.tolerance=1e-10 --set "solver.orthogonalization=\"$way\"" \
      --set solver.max_iterations=200000 --set output.vtu=false > "$out/logs/$name.log" 2>&1
    note "$name: exit $? | $(grep -E 'slabs in' "$out/logs/$name.log")"
    python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$out/$name/slabs.csv')))
keys = [k for k in rows[0] if 'solve' in k or 'iterations' in k]
print('  ' + ', '.join(f'{k} {sum(float(r[k]) for r in rows):.4g}' for k in keys))" 2>&1 | tee -a "$summary"
  done
fi
tar czf "$out/space_time_results.tgz" -C "$out" --exclude='*.vtu' --exclude='*.h5' --exclude='*.tgz' . 2>/dev/null
note "done"
