#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 63".)
# Session 63: the element-major state at p = 3 (`tb4`: FLOWDG_TRACE_BUFFER=4 — the tensor-core element kernel's
# groups hold u, u0, q as [(e 5 + v) Np + j] and the face tensor kernel reads u itself: no copy pass) against
# the copy (`tb3`: FLOWDG_TRACE_BUFFER=3, the coefficients copied element-major at each stage's start) and
# the face sums (`s0`: FLOWDG_TRACE_BUFFER=0); from the second build `st0` an element-major group's
# coefficients staged in the element kernel's rows instead of element-major in shared memory too
# (FLOWDG_TENSOR_STAGING=0), `flowdg_A` the first build's binary (27ccc30). Then (DIST=1) the distributed runs on the one GPU: the MPI
# cases euler3d (p = 3 by --set, RK4, prescribed and slip-wall boundaries) and euler3d_multigrid (p = 3, 2, 0
# levels, local time steps) with the tensor-core element kernel and the variable face kernel, on 1 and 2
# ranks, under tb3 and tb4: every final state against the one-rank tb3 run's (flowdg_checkpoint_diff, 0:
# the same bits). Then ncu's per-launch times of one step for KERNEL_BINS at KERNEL_ORDER; entries skipped
# where *_BINS is set empty; the A/B final states compared with the first entry's.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
# (call 12: the previous build's flowdg, kept in .variants/old by an earlier call on this machine, as flowdg_A)
[ -f .variants/old/flowdg_A ] && cp .variants/old/flowdg_A .bundle/bin/flowdg_A
source scripts/ab-env-lib.sh
wrapper st0 "FLOWDG_TENSOR_STAGING=0"
wrapper s0 "FLOWDG_TRACE_BUFFER=0"
wrapper tb3 "FLOWDG_TRACE_BUFFER=3"
wrapper tb4 "FLOWDG_TRACE_BUFFER=4"
registers
if [ "${DIST:-1}" = 1 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
  # (euler3d under tb3, tb4 and the default; euler3d_multigrid under the default alone: FLOWDG_TRACE_BUFFER
  # applies at every order, and 3 and 4 are refused at its p = 2 level)
  for c in euler3d euler3d_multigrid; do
    modes="3 4 default"; [ $c = euler3d_multigrid ] && modes=default
    first=""
    for mode in $modes; do
      for ranks in 1 2; do
        name=${c}_tb${mode}_r$ranks
        [ -z "$first" ] && first=$name
        launcher=""; [ $ranks -gt 1 ] && launcher="mpirun -np $ranks --oversubscribe --bind-to none -x FLOWDG_TRACE_BUFFER"
        ( [ $mode != default ] && export FLOWDG_TRACE_BUFFER=$mode; [ $mode = default ] && export FLOWDG_TRACE_BUFFER=;
          timeout 120 $launcher .bundle/run flowdg run tests/mpi/cases/$c.toml --backend cuda --set solver.order=3 \
          --set 'solver.element_kernel="tensor"' --set 'solver.face_kernel="variable"' --output /tmp/dist_$name > "$out/dist_$name.log" 2>&1 )
        echo "$name: exit $? $(grep -o 'interior faces on the FP64 tensor cores from the [a-z -]*' "$out/dist_$name.log" | head -1)"
        echo "   $name against $first: $(.bundle/run flowdg_checkpoint_diff /tmp/dist_$name/checkpoint.h5 /tmp/dist_$first/checkpoint.h5 0 2>&1 | tail -1)"
      done
    done
  done 2>&1 | tee "$out/dist.txt"
fi
[ -n "${DOUBLE3_BINS-x}" ] && ab p3_double 3 double ${DOUBLE3_BINS:-flowdg tb4}
[ -n "${SINGLE3_BINS-x}" ] && ab p3_single 3 single ${SINGLE3_BINS:-flowdg tb3 tb4}
[ -n "${DOUBLE4_BINS-x}" ] && ab p4_double 4 double ${DOUBLE4_BINS:-flowdg}
[ -n "${SINGLE4_BINS-x}" ] && ab p4_single 4 single ${SINGLE4_BINS:-flowdg}
kernel_times ${KERNEL_BINS-flowdg tb4}
[ -f "$out/dist.txt" ] && cat "$out/dist.txt"
summarize flowdg
# (the device returns a few files: the logs in one archive)
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^dist.txt$\|^kernel_times.txt$\|^registers.txt$\|^logs.tgz$'))
