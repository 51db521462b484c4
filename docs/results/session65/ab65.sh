#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 65".)
# Session 65: the warp-per-variable kernels' groups element-major at p = 1, 2 (variable_element_major, the default;
# `em0` = FLOWDG_VARIABLE_ELEMENT_MAJOR=0, the state [(v Np + j) Ks + e]) — `flowdg run` of issue 16's case
# (TET_CASE=periodic: periodic in x, y, z, perturbed Kuhn cubes), RK4, Rusanov, 998,250 tetrahedra, ROUNDS rounds,
# final states compared; (DIST=1) the MPI case euler3d (prescribed and slip-wall faces) at p = 1, 2 on 1 and 2 ranks
# under both, every final state against the first; ncu's per-launch times of one step at p = 1 in both precisions.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper em0 "FLOWDG_VARIABLE_ELEMENT_MAJOR=0"
if [ "${DIST:-1}" = 1 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
  for p in 1 2; do
    first=""
    for b in ${DIST_BINS:-flowdg em0}; do
      for ranks in ${DIST_RANKS:-1 2}; do
        name=euler3d_p${p}_${b}_r$ranks
        [ -z "$first" ] && first=$name
        launcher=""; [ $ranks -gt 1 ] && launcher="mpirun -np $ranks --oversubscribe --bind-to none"
        timeout 120 $launcher .bundle/run $b run tests/mpi/cases/euler3d.toml --backend cuda --set solver.order=$p \
          --output /tmp/dist_$name > "$out/dist_$name.log" 2>&1
        echo "$name: exit $? $(grep -o 'warp per variable[^,;]*' "$out/dist_$name.log" | head -1)"
        echo "   $name against $first: $(.bundle/run flowdg_checkpoint_diff /tmp/dist_$name/checkpoint.h5 /tmp/dist_$first/checkpoint.h5 0 2>&1 | tail -1)"
      done
    done
  done 2>&1 | tee "$out/dist.txt"
fi
for precision in ${PRECISIONS:-double single}; do
  for p in ${ORDERS:-1 2}; do
    TET_CASE=${TET_CASE:-periodic} BINS="${BINS:-flowdg em0}" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=$precision ROUNDS=${ROUNDS:-2} \
      bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_p${p}_$precision.txt"
    diffs $p ${BINS:-flowdg em0} | tee -a "$out/ab_p${p}_$precision.txt"
  done
done
KERNEL_ORDER=1 KERNEL_PRECISIONS="double single" kernel_times ${KERNEL_BINS-flowdg em0}
[ -f "$out/dist.txt" ] && cat "$out/dist.txt"
summarize flowdg
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^dist.txt$\|^kernel_times.txt$\|^logs.tgz$'))
