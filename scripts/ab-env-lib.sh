# Helpers for A/B runs of one flowdg binary under environment switches on the GPU machine (sourced by
# docs/results/session*/ab*.sh, from the repository root with the flowdg bundle unpacked; $out the
# output folder):
#   wrapper NAME "VAR=VALUE ..."   .bundle/bin/NAME runs flowdg with those variables set
#   ab LABEL P PRECISION BINS...   the 3D vortex on 384,000 tetrahedra at order P, Rusanov, ROUNDS
#                                  rounds (scripts/gpu-ab-bins.sh), then every entry's final state
#                                  against the first's (flowdg_checkpoint_diff): $out/ab_LABEL.txt
#   profile_element PRECISION BINS...  ncu's samples per SASS instruction of one launch of the p = 3
#                                  (PROFILE_ORDER) tensor-core element kernel (PROFILE_KERNEL, a regex; the 3D vortex,
#                                  384,000 tetrahedra: PROFILE_N = 40 cubes a side) for each
#                                  binary, summed between barriers (docs/results/session52/sass_phases.py):
#                                  $out/element_{details,phases}_BIN.txt; profile_summary BINS... their lines
#   agree NAME VAR=VALUE...        (the tests bundle) the CPU agreement test on the affine tetrahedra with
#                                  the automatic kernels under those variables: $out/gpu_tests_NAME.txt
#   registers                      (REGISTERS=1) the tensor-core element kernels' registers and stack
#                                  (cuobjdump, docs/results/session52/kernel_registers.py): $out/registers.txt
#   kernel_times BINS...           ncu's per-launch times of one step at KERNEL_ORDER (3) for each binary in
#                                  each of KERNEL_PRECISIONS (double), scripts/tets-kernel-times.sh:
#                                  $out/kernel_times.txt
#   gpu_checks                     (the tests bundle) every gpu test (ALL=0 skips them) and memcheck over the
#                                  CPU agreement test with the automatic kernels on the affine tetrahedra:
#                                  $out/gpu_tests.txt, $out/memcheck_default.txt
#   memcheck_tests NAME FILTER     (the tests bundle) memcheck over the gpu tests FILTER: $out/memcheck_NAME.txt
#   tests_summary                  the logs but gpu_tests.txt into $out/logs.tgz; the tests' and memcheck's verdicts
#   summarize BINS...              the rounds, the states' comparisons, the registers, the kernel times and
#                                  (PROFILE=1) profile_summary of BINS -> $out/summary.txt, printed
wrapper() { printf '#!/bin/sh\n%s exec "$(dirname "$0")/flowdg" "$@"\n' "$2" > .bundle/bin/$1; chmod +x .bundle/bin/$1; }
diffs() {  # $1 order, then the binaries: each against the first
  local p=$1 a=$2; shift 2
  for b in "$@"; do echo "   p=$p $a against $b: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_tet$p/checkpoint.h5 /tmp/ab_${b}_tet$p/checkpoint.h5 2>&1 | tail -1)"; done
}
ab() {  # label, order, precision, bins
  local label=$1 p=$2 precision=$3; shift 3
  BINS="$*" TET_ORDERS=$p TET_N=40 TET_FLUX=rusanov PRECISION=$precision ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_${label}.txt"
  diffs $p "$@" | tee -a "$out/ab_${label}.txt"
}
profile_element() {  # precision, then the binaries
  local precision=$1 b vars; shift
  for b in "$@"; do
    vars=""; [ "$(head -c 2 .bundle/bin/$b)" = "#!" ] && vars=$(sed -n 's/^\(.*\) exec .*/\1/p' .bundle/bin/$b)
    env $vars LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 240 ncu --kernel-name regex:${PROFILE_KERNEL:-core_element_tensor_kernel} --launch-skip 1 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SpeedOfLight \
      -o "$out/element_$b" -f .bundle/bin/flowdg run examples/vortex3d_tetrahedra.toml --backend cuda \
      --set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=${PROFILE_N:-40}&ny=${PROFILE_N:-40}&nz=${PROFILE_N:-40}\"" --set 'boundary.zmin.translation=[0.0,0.0,6.0]' \
      --set 'solver.flux="rusanov"' --set time.max_steps=1 --set time.end_time=100.0 --set output.vtu=false --set solver.order=${PROFILE_ORDER:-3} \
      --set "solver.precision=\"$precision\"" --output /tmp/flowdg-element-profile > "$out/profile_run_$b.log" 2>&1
    echo "ncu $b exit $?"
    ncu --import "$out/element_$b.ncu-rep" --page details > "$out/element_details_$b.txt" 2>&1
    ncu --import "$out/element_$b.ncu-rep" --page source --csv --print-source sass > "$out/element_sass_$b.csv" 2>&1
    python3 docs/results/session52/sass_phases.py "$out/element_sass_$b.csv" > "$out/element_phases_$b.txt" 2>&1
    gzip -f "$out/element_sass_$b.csv"; rm -f "$out/element_$b.ncu-rep"
  done
}
profile_summary() {  # the binaries profile_element ran
  local b
  for b in "$@"; do
    echo "profile $b:"; grep -E "Duration|Achieved Occupancy|Registers Per|Block Limit|Issue Slots Busy|Eligible Warps" "$out/element_details_$b.txt" | head -12
    grep "^seg\|total" "$out/element_phases_$b.txt"
  done
}
agree() {  # name, then variables
  local name=$1; shift
  env "$@" LD_LIBRARY_PATH=$PWD/.bundle/lib FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 200 \
    .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' > "$out/gpu_tests_$name.txt" 2>&1; echo "$name: exit $?"
}
registers() {
  [ "${REGISTERS:-0}" = 1 ] || return 0
  cuobjdump --dump-resource-usage .bundle/bin/flowdg > "$out/resource_usage.txt" 2>&1
  python3 docs/results/session52/kernel_registers.py "$out/resource_usage.txt" > "$out/registers.txt" 2>&1
}
kernel_times() {  # the binaries
  local b vars precision
  for b in "$@"; do
    vars=""; [ "$(head -c 2 .bundle/bin/$b)" = "#!" ] && vars=$(sed -n 's/^\(.*\) exec .*/\1/p' .bundle/bin/$b)
    for precision in ${KERNEL_PRECISIONS:-double}; do
      echo "kernels $b $precision:"
      env $vars OUT="$out/ncu_$b" bash scripts/tets-kernel-times.sh "${KERNEL_ORDER:-3} 40 $precision" 2>&1 | grep -v "^$" | tail -20
    done
  done > "$out/kernel_times.txt" 2>&1
}
summarize() {  # the binaries profile_element ran (PROFILE=1)
  grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt" 2>/dev/null
  [ -f "$out/registers.txt" ] && grep "p=3\|p=4" "$out/registers.txt" | grep -v "^$" | tail -30 >> "$out/summary.txt"
  [ -f "$out/kernel_times.txt" ] && cat "$out/kernel_times.txt" >> "$out/summary.txt"
  [ "${PROFILE:-0}" = 1 ] && profile_summary "$@" >> "$out/summary.txt"
  echo "=== summary"; cat "$out/summary.txt"
}
memcheck_tests() {  # name, gtest filter: memcheck over those gpu tests (the tests bundle) -> $out/memcheck_NAME.txt
  LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 \
    .bundle/bin/flowdg_gpu_tests --gtest_filter="$2" > "$out/memcheck_$1.txt" 2>&1
  echo "memcheck $1: exit $?"
}
tests_summary() {  # the logs but gpu_tests.txt in one archive (the device returns a few files); the verdicts
  (cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v "^gpu_tests.txt$\|^logs.tgz$"))
  grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
}
gpu_checks() {
  if [ "${ALL:-1}" = 1 ]; then
    LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 300 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
  fi
  LD_LIBRARY_PATH=$PWD/.bundle/lib FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 240 \
    compute-sanitizer --tool memcheck --error-exitcode 3 .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' \
    > "$out/memcheck_default.txt" 2>&1
  echo "memcheck: exit $?"
}
