#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 64".)
# Session 64: the boundary face groups of the variable face kernel in one launch (boundary_batch, the default;
# `bb0` = FLOWDG_BOUNDARY_BATCH=0, a launch a group) — `flowdg run` of the 3D vortex with the exact state
# prescribed on its x and y faces (four boundary groups), RK4, Rusanov, 998,250 tetrahedra at p = 1, 2 and
# 384,000 at p = 3, 4, ROUNDS rounds, final states compared; (DIST=1) the MPI case euler3d (prescribed and
# slip-wall faces) at p = 3 and p = 1 on 1 and 2 ranks under both, every final state against the first; ncu's
# per-launch times of one step at KERNEL_ORDER (3) for both. Entries skipped where *_BINS is set empty.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper bb0 "FLOWDG_BOUNDARY_BATCH=0"
wrapper again ""
wrapper bb0again "FLOWDG_BOUNDARY_BATCH=0"
if [ "${DIST:-1}" = 1 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
  for p in 3 1; do
    first=""
    for b in ${DIST_BINS:-flowdg again bb0 bb0again}; do
      for ranks in ${DIST_RANKS:-1 2}; do
        name=euler3d_p${p}_${b}_r$ranks
        [ -z "$first" ] && first=$name
        launcher=""; [ $ranks -gt 1 ] && launcher="mpirun -np $ranks --oversubscribe --bind-to none"
        timeout 120 $launcher .bundle/run $b run tests/mpi/cases/euler3d.toml --backend cuda --set solver.order=$p \
          --output /tmp/dist_$name > "$out/dist_$name.log" 2>&1
        echo "$name: exit $? $(grep -o 'its [0-9]* boundary groups in [0-9]* launch[es]*' "$out/dist_$name.log" | head -1)"
        echo "   $name against $first: $(.bundle/run flowdg_checkpoint_diff /tmp/dist_$name/checkpoint.h5 /tmp/dist_$first/checkpoint.h5 0 2>&1 | tail -1)"
      done
    done
  done 2>&1 | tee "$out/dist.txt"
fi
for spec in ${DOUBLE_SPECS-"1 55" "2 55" "3 40" "4 40"}; do
  read -r p n <<< "$spec"
  BINS="${BINS:-flowdg bb0}" TET_ORDERS=$p TET_N=$n TET_FLUX=rusanov PRECISION=double ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_p${p}_double.txt"
  diffs $p flowdg bb0 | tee -a "$out/ab_p${p}_double.txt"
done
for spec in ${SINGLE_SPECS-"3 40"}; do
  read -r p n <<< "$spec"
  BINS="${BINS:-flowdg bb0}" TET_ORDERS=$p TET_N=$n TET_FLUX=rusanov PRECISION=single ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_p${p}_single.txt"
  diffs $p flowdg bb0 | tee -a "$out/ab_p${p}_single.txt"
done
kernel_times ${KERNEL_BINS-flowdg bb0}
[ -f "$out/dist.txt" ] && cat "$out/dist.txt"
summarize flowdg
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^dist.txt$\|^kernel_times.txt$\|^logs.tgz$'))
