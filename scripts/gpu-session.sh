#!/usr/bin/env bash
# One GPU-machine session: the gpu-labelled tests, compute-sanitizer over them, the supersonic
# vortex convergence table on the GPU, and throughput runs. Expects a bundle made here with
#   ../shared/tools/bundle-libs .bundle build/bin/flowdg build/bin/flowdg_gpu_tests
# and writes logs under $OUT (the device tool's output folder), a short summary last.
# Parts can be skipped: SANITIZE=0, CONVERGENCE=0, THROUGHPUT=0.
set -uo pipefail
out=${OUT:-/tmp/flowdg-gpu}
mkdir -p "$out/logs"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/logs/device.txt" 2>&1
note "device: $(cat "$out/logs/device.txt")"

# 1. gpu-labelled tests
timeout 300 .bundle/run flowdg_gpu_tests > "$out/logs/gpu_tests.log" 2>&1
note "gpu tests: exit $? | $(grep -E '^\[  (PASSED|FAILED) ' "$out/logs/gpu_tests.log" | tr '\n' ' ')"
grep -E "cpu - cuda|FAILED|Failure|Expected|actual" "$out/logs/gpu_tests.log" | head -20 | tee -a "$summary"

# 2. compute-sanitizer: memcheck over the gpu tests but the long Euler comparison and the
#    deliberate out-of-memory test (an API error memcheck would count); racecheck on
#    the kernels that use shared memory (reductions)
if [ "${SANITIZE:-1}" = 1 ]; then
  export LD_LIBRARY_PATH=$PWD/.bundle/lib
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .bundle/bin/flowdg_gpu_tests \
    --gtest_filter='-GpuEuler2d.CudaAgrees*:*OutOfMemory*' > "$out/logs/memcheck.log" 2>&1
  note "memcheck: exit $? | $(grep -E 'ERROR SUMMARY' "$out/logs/memcheck.log" | tail -1)"
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 .bundle/bin/flowdg_gpu_tests \
    --gtest_filter='GpuBackend.Reductions*:GpuEuler2d.TimeStep*' > "$out/logs/racecheck.log" 2>&1
  note "racecheck: exit $? | $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/logs/racecheck.log" | tail -1)"
  unset LD_LIBRARY_PATH
fi

# 3. supersonic vortex convergence, p = 1..4 on meshes A..D, steady state to 1e-14 (the paper's)
if [ "${CONVERGENCE:-1}" = 1 ]; then
  timeout 300 .bundle/run flowdg convergence examples/supersonic_vortex.toml --backend cuda \
    --orders 1,2,3,4 --levels 0..3 --set time.steady_tolerance=1e-14 --set time.max_steps=400000 \
    --output "$out/convergence" > "$out/logs/convergence.log" 2>&1
  note "convergence: exit $?"
  grep -E "steady state|^\|" "$out/logs/convergence.log" | tail -24 | tee -a "$summary"
fi

# 4. throughput: mesh F (184,320 triangles) and two refinements more (2.9M), 200 steps, p = 1..4
if [ "${THROUGHPUT:-1}" = 1 ]; then
  for refine in 5 7; do
    for p in 1 2 3 4; do
      log="$out/logs/throughput_r${refine}_p$p.log"
      timeout 120 .bundle/run flowdg run examples/supersonic_vortex.toml --backend cuda --set mesh.refine=$refine \
        --set solver.order=$p --set time.steady_tolerance=0 --set time.max_steps=200 --set time.scheme='"lsrk54"' \
        --output "$out/throughput/r${refine}_p$p" > "$log" 2>&1
      note "throughput refine=$refine p=$p: exit $? | $(grep -E '^flowdg: [0-9]+ steps' "$log" | tail -1)"
    done
  done
fi

# 5. double Mach reflection on mesh C (1,036,800 triangles), p = 1, Barth-Jespersen, SSP-RK2, to
#    t = 0.2 (the 2015 paper's Table 4 run); then the limiter's cost over 200 steps, on and off.
#    Needs meshio for the picture: a wheel carried in .whl.
if [ "${DOUBLE_MACH:-1}" = 1 ]; then
  dmr=/tmp/flowdg-dmr
  timeout 300 .bundle/run flowdg run --backend cuda --set mesh.file='"builtin:double-mach?ny=360"' --set time.progress_every=1000 \
    --output $dmr > "$out/logs/double_mach.log" 2>&1
  note "double mach mesh C: exit $? | $(grep -E '^flowdg: [0-9]+ steps' "$out/logs/double_mach.log")"
  cp $dmr/summary.json "$out/logs/double_mach_summary.json" 2>/dev/null
  grep -E '"(elements|steps|wall_seconds|setup_seconds|peak_device_bytes|throughput_dof_stage_per_second)"' $dmr/summary.json | tee -a "$summary"
  if ls .whl/*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl > /dev/null 2>&1
    PYTHONPATH=/tmp/site timeout 240 python3 tools/plot_field.py $dmr/solution.vtu --field density --contours 30 \
      --xlim 0 3 --ylim 0 1 --output "$out/double_mach_density.png" > "$out/logs/plot.log" 2>&1
    note "picture: exit $?"
  fi
  for limiter in barth-jespersen none; do
    timeout 120 .bundle/run flowdg run --backend cuda --set mesh.file='"builtin:double-mach?ny=360"' --set solver.limiter="\"$limiter\"" \
      --set solver.positivity=false --set time.max_steps=200 --set output.vtu=false --output /tmp/flowdg-dmr-$limiter \
      > "$out/logs/limiter_$limiter.log" 2>&1
    note "200 steps mesh C, limiter $limiter: exit $? | $(grep -E '^flowdg: [0-9]+ steps' "$out/logs/limiter_$limiter.log")"
  done
fi

tar czf "$out/results.tar.gz" -C "$out" $(cd "$out" && ls -d logs convergence throughput 2>/dev/null)
rm -rf "$out/logs" "$out/convergence" "$out/throughput"
echo "==== summary"
cat "$summary"
