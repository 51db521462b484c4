#!/usr/bin/env bash
# Multi-GPU scaling of flowdg run (issue 17) on a machine of several GPUs (device kinds
# nvidia-h200-x2, -x4): weak scaling of 2D Euler at p = 3 (WEAK_PER_GPU triangles per GPU, default
# 4M) and strong scaling of a STRONG-triangle mesh (default 16M) over 1..GPUS ranks, one per GPU;
# the halo's cost per exchange from each run's last lines. Expects NO_TESTS=1 scripts/make-bundle.sh
# build (flowdg without the image's MPI libraries, which it uses). Logs under $OUT, a summary last.
# WEAK=0 / STRONG=0 skip a part; STEPS (default 200) steps per run. AB=1: every run on several GPUs
# also runs with the halo exchange after the whole update ([solver] halo_overlap = false, "<name>_after"),
# the A/B of the overlap in one call.
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/flowdg-mpi}
mkdir -p "$out/logs"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
# The image's Open MPI (the bundle's run wrapper puts its libraries on the loader path).
mpirun=$(command -v mpirun)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
steps=${STEPS:-200}
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ' | tr '\n' ' '); mpirun $mpirun ($("$mpirun" --version | head -1))"
# rectangle with n x n cells of 2 triangles: n = sqrt(triangles / 2)
mesh() { python3 -c "import math; n = round(math.sqrt($1 / 2)); print(f'builtin:rectangle?nx={n}&ny={n}&x0=-10&x1=10&y0=-10&y1=10')"; }
# box of n^3 cubes of 6 tetrahedra
box() { python3 -c "import math; n = round(($1 / 6) ** (1 / 3)); print(f'builtin:box?lx=10&ly=10&lz=2.5&nx={n}&ny={n}&nz={n}')"; }
run_one() {  # run_one NAME RANKS SPEC CASE [flowdg run options...]
  local name=$1 ranks=$2 spec=$3 case=$4
  shift 4
  timeout ${RUN_LIMIT:-280} "$mpirun" -np "$ranks" --bind-to none .bundle/run flowdg run "$case" --backend cuda \
    --set "mesh.file=\"$spec\"" --set time.max_steps="$steps" --output "$out/$name" "$@" > "$out/logs/$name.log" 2>&1
  local code=$?
  note "$name: $ranks rank(s), $spec: exit $code"
  grep -E "distributed over|steps to t|halo:|error" "$out/logs/$name.log" | sed 's/^/  /' | tee -a "$summary"
  grep -o '"setup_seconds":[^,]*' "$out/$name/summary.json" 2>/dev/null | sed 's/^/  /' | tee -a "$summary"
}
run() {  # run NAME RANKS ELEMENTS [CASE]: 2D (triangles) or, with the 3D case, tetrahedra
  local name=$1 ranks=$2 triangles=$3 case=${4:-bench/mpi/vortex_p3.toml}
  local spec
  if [[ $case == *3d* ]]; then spec=$(box "$triangles"); else spec=$(mesh "$triangles"); fi
  run_one "$name" "$ranks" "$spec" "$case"
  if [ "${AB:-0}" = 1 ] && [ "$ranks" -gt 1 ]; then
    run_one "${name}_after" "$ranks" "$spec" "$case" --set solver.halo_overlap=false
  fi
}
# The distributed runs' tests on the GPUs: every case of tests/mpi/cases on 1 GPU and on GPUS
# and GPUS + 1 ranks (two ranks share a GPU), bit for bit (checkpoints compared by
# flowdg_checkpoint_diff, carried in the bundle: NO_TESTS=1 scripts/make-bundle.sh build
# build/bin/flowdg_checkpoint_diff), and restarts on other rank counts. SAME=0 skips them.
if [ "${SAME:-1}" = 1 ]; then
  for case in tests/mpi/cases/*.toml; do
    name=$(basename "$case" .toml)
    BACKEND=cuda timeout 120 bash tests/mpi/same_answer.sh "$PWD/.bundle/run flowdg" "$PWD/.bundle/run flowdg_checkpoint_diff" "$mpirun --bind-to none" \
      "$PWD/$case" 0 $(seq 2 $((gpus + 1))) > "$out/logs/same_$name.log" 2>&1
    note "same answer on the GPUs, $name: exit $? | $(grep -E 'ranks vs' "$out/logs/same_$name.log" | sed 's/coefficients differ, largest difference/differ,/' | tr '\n' ' ')"
  done
fi
if [ "${SAME:-1}" = 1 ]; then
  for name in euler2d_curved euler3d; do
    BACKEND=cuda timeout 120 bash tests/mpi/restart_on_other_ranks.sh "$PWD/.bundle/run flowdg" "$PWD/.bundle/run flowdg_checkpoint_diff" \
      "$mpirun --bind-to none" "$PWD/tests/mpi/cases/$name.toml" 20 > "$out/logs/restart_$name.log" 2>&1
    note "restart on other rank counts on the GPUs, $name: exit $? | $(grep -E 'vs 1 rank' "$out/logs/restart_$name.log" | tr '\n' ' ')"
  done
fi
# MEMCHECK=1: compute-sanitizer's memcheck on every rank of 2-rank runs (the halo's pack, staging
# copies on their own stream and unpack included) of the tuned 2D and the portable 3D case.
if [ "${MEMCHECK:-0}" = 1 ]; then
  for name in ${MEMCHECK_CASES:-euler2d_tuned euler3d navier_stokes2d}; do
    LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 300 "$mpirun" -np 2 --bind-to none compute-sanitizer --tool memcheck --error-exitcode 9 \
      .bundle/bin/flowdg run "tests/mpi/cases/$name.toml" --backend cuda --output "$out/memcheck_$name" > "$out/logs/memcheck_$name.log" 2>&1
    note "memcheck, 2 ranks, $name: exit $? | $(grep -E 'ERROR SUMMARY' "$out/logs/memcheck_$name.log" | tr '\n' ' ')"
  done
fi
if [ "${WEAK:-1}" = 1 ]; then
  per=${WEAK_PER_GPU:-4000000}
  for ((r = 1; r <= gpus; r *= 2)); do run "weak_${r}" "$r" $((per * r)); done
fi
if [ "${STRONG:-1}" = 1 ]; then
  for ((r = 1; r <= gpus; r *= 2)); do run "strong_${r}" "$r" "${STRONG_TRIANGLES:-16000000}"; done
fi
# 3D Euler on tetrahedra at p = 3: weak (THREE_D_PER_GPU tetrahedra per GPU, default 1.5M) over
# 1..GPUS ranks and the largest of those meshes on one GPU (strong), STEPS_3D steps (default 100).
# THREE_D=0 skips.
if [ "${THREE_D:-1}" = 1 ]; then
  steps=${STEPS_3D:-100}
  per=${THREE_D_PER_GPU:-1500000}
  for ((r = 1; r <= gpus; r *= 2)); do run "weak3d_${r}" "$r" $((per * r)) bench/mpi/vortex3d_p3.toml; done
  # strong: the largest weak mesh on one GPU (the weak runs give it on 2, 4, ...)
  run "strong3d_1" 1 $((per * gpus)) bench/mpi/vortex3d_p3.toml
fi
