#!/usr/bin/env bash
# Multi-GPU scaling of flowdg run (issue 17) on a machine of several GPUs (device kinds
# nvidia-h200-x2, -x4): weak scaling of 2D Euler at p = 3 (WEAK_PER_GPU triangles per GPU, default
# 4M) and strong scaling of a STRONG-triangle mesh (default 16M) over 1..GPUS ranks, one per GPU;
# the halo's cost per exchange from each run's last lines. Expects NO_TESTS=1 scripts/make-bundle.sh
# build (flowdg without the image's MPI libraries, which it uses). Logs under $OUT, a summary last.
# WEAK=0 / STRONG=0 skip a part; STEPS (default 200) steps per run.
set -uo pipefail
[ -f .bundle/all.tar.xz ] && [ ! -x .bundle/run ] && tar xJf .bundle/all.tar.xz -C .bundle
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
run() {  # run NAME RANKS TRIANGLES
  local name=$1 ranks=$2 triangles=$3
  local spec
  spec=$(mesh "$triangles")
  timeout ${RUN_LIMIT:-280} "$mpirun" -np "$ranks" --bind-to none .bundle/run flowdg run bench/mpi/vortex_p3.toml --backend cuda \
    --set "mesh.file=\"$spec\"" --set time.max_steps="$steps" --output "$out/$name" > "$out/logs/$name.log" 2>&1
  local code=$?
  note "$name: $ranks rank(s), $spec: exit $code"
  grep -E "distributed over|steps to t|halo:|error" "$out/logs/$name.log" | sed 's/^/  /' | tee -a "$summary"
  grep -o '"setup_seconds":[^,]*' "$out/$name/summary.json" 2>/dev/null | sed 's/^/  /' | tee -a "$summary"
}
if [ "${WEAK:-1}" = 1 ]; then
  per=${WEAK_PER_GPU:-4000000}
  for ((r = 1; r <= gpus; r *= 2)); do run "weak_${r}" "$r" $((per * r)); done
fi
if [ "${STRONG:-1}" = 1 ]; then
  for ((r = 1; r <= gpus; r *= 2)); do run "strong_${r}" "$r" "${STRONG_TRIANGLES:-16000000}"; done
fi
