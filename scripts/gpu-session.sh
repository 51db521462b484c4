#!/usr/bin/env bash
# One GPU-machine session: the gpu-labelled tests, compute-sanitizer over them, the supersonic
# vortex convergence table on the GPU, and throughput runs. Expects a bundle made here with
#   ONLY_TESTS=1 scripts/make-bundle.sh build   (the TESTS and SANITIZE parts), or
#   NO_TESTS=1 scripts/make-bundle.sh build     (the flowdg runs: the two binaries no longer fit one carry)
# and, where one binary with its libraries and the tree exceeds a call's 64 MiB (session 26: 50 MB + 17 MB),
# SPLIT=1 in front of either: carry .bundle-lib in a first call, .bundle in the next (unpack-bundle.sh).
# and writes logs under $OUT (the device tool's output folder), a short summary last.
# Parts can be skipped: TESTS=0, SANITIZE=0, CONVERGENCE=0, DOUBLE_MACH=0; SUITE, KERNEL_AB, CPU, COUETTE,
# NS_THROUGHPUT, NS_VALIDATION add parts. CORE_BENCH=1 keeps the gpu tests' throughput runs on 1M elements
# (GpuDgCore.PortableThroughputOnAMillionElements: several minutes; off by default so the tests fit 300 s).
set -uo pipefail
# A bundle carried compressed (scripts/make-bundle.sh) is unpacked first.
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/flowdg-gpu}
mkdir -p "$out/logs" "$out/bench"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/logs/device.txt" 2>&1
note "device: $(cat "$out/logs/device.txt")"

# 1. gpu-labelled tests
[ "${TESTS:-1}" = 1 ] && FLOWDG_CORE_BENCH=${CORE_BENCH:-0} timeout 300 .bundle/run flowdg_gpu_tests > "$out/logs/gpu_tests.log" 2>&1
[ "${TESTS:-1}" = 1 ] && note "gpu tests: exit $? | $(grep -E '^\[  (PASSED|FAILED) ' "$out/logs/gpu_tests.log" | tr '\n' ' ')"
[ "${TESTS:-1}" = 1 ] && grep -E "cpu - cuda|cuda - reference|FAILED|Failure|Expected|actual" "$out/logs/gpu_tests.log" | head -30 | tee -a "$summary"
# the face tensor kernel gathering the coefficients itself (p = 3, A/B: FLOWDG_FACE_TENSOR=1, where the
# tests' cases keep the trace buffer off) with the window face order, against the CPU (reading the trace
# buffer's copy, p = 3's default in double, runs in the tests' own "tensor moments copy" case)
if [ "${TESTS:-1}" = 1 ]; then
  FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window timeout 120 .bundle/run flowdg_gpu_tests \
    --gtest_filter='GpuDgCore.CudaAgrees*:GpuDgCore.EachRiemann*' > "$out/logs/gpu_tests_face_tensor.log" 2>&1
  note "gpu tests, face tensor kernel gathering: exit $? | $(grep -E '^\[  (PASSED|FAILED) ' "$out/logs/gpu_tests_face_tensor.log" | tr '\n' ' ')"
fi

# 2. compute-sanitizer: memcheck over the gpu tests but the long Euler comparison and the
#    deliberate out-of-memory and legacy-stream-capture tests (API errors memcheck would count); racecheck on
#    the kernels that use shared memory (reductions). MEMCHECK_LIMIT (default 300 s): session 70's whole memcheck
#    needed about 400 s (SipgGpu.SpaceTimeSlabs* alone 99 s), beyond what fits one call with the tests and racecheck;
#    MEMCHECK_FILTER narrows it (default every gpu test but the three below).
if [ "${SANITIZE:-1}" = 1 ] && [ "${TESTS:-1}" = 1 ]; then
  export LD_LIBRARY_PATH=$PWD/.bundle/lib
  FLOWDG_CORE_BENCH=0 FLOWDG_REFERENCE_CASES=${MEMCHECK_CASES:-sv_p2_hllc,dmr_p2_bj_characteristic} \
    timeout ${MEMCHECK_LIMIT:-300} compute-sanitizer --tool memcheck --error-exitcode 9 .bundle/bin/flowdg_gpu_tests \
    --gtest_filter="${MEMCHECK_FILTER:--GpuEuler2d.CudaAgrees*:*OutOfMemory*:*OperatorsStreamOnly*}" > "$out/logs/memcheck.log" 2>&1
  note "memcheck: exit $? | $(grep -E 'ERROR SUMMARY' "$out/logs/memcheck.log" | tail -1)"
  FLOWDG_REFERENCE_CASES=sv_p2_hllc,sv_p5_hllc timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 \
    .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuBackend.Reductions*:GpuEuler2d.TimeStep*:GpuEuler2d.CudaReproduces*:GpuEuler2d.EveryCuda*-*ThroughTheCore*' \
    > "$out/logs/racecheck.log" 2>&1
  note "racecheck: exit $? | $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/logs/racecheck.log" | tail -1)"
  unset LD_LIBRARY_PATH
fi

# 3. supersonic vortex convergence, p = 1..4 on meshes A..D, steady state to 1e-14 (the paper's)
if [ "${CONVERGENCE:-0}" = 1 ]; then
  timeout 300 .bundle/run flowdg convergence examples/supersonic_vortex.toml --backend cuda \
    --orders 1,2,3,4 --levels 0..3 --set time.steady_tolerance=1e-14 --set time.max_steps=400000 \
    --output "$out/convergence" > "$out/logs/convergence.log" 2>&1
  note "convergence: exit $?"
  grep -E "steady state|^\|" "$out/logs/convergence.log" | tail -24 | tee -a "$summary"
fi

# 4. the benchmark suite (bench/euler2d_suite.cpp): SUITE=paper,sizes,dmr,large; results JSON/md under
#    $out/bench (kept out of the tarball: they are the committed tables). KERNEL_AB=1 also runs
#    the one-thread-per-element element kernel on 4M triangles for the optimisation log; CPU=1 the
#    CPU backend with 1 and 16 threads (meshes D, E).
if [ -n "${SUITE:-}" ]; then
  timeout 580 .bundle/run flowdg_bench_suite --backend cuda --sections "$SUITE" --output "$out/bench" \
    > "$out/logs/suite.log" 2> "$out/logs/suite.err"
  note "bench suite ($SUITE): exit $?"
  tail -3 "$out/logs/suite.err" | tee -a "$summary"
fi
if [ "${KERNEL_AB:-0}" = 1 ]; then
  timeout 300 .bundle/run flowdg bench --backend cuda --meshes 4M --orders 2,3,4,5 --steps 0 --kernels thread \
    --output "$out/bench/thread_kernel_4M.json" > "$out/logs/thread_kernel.log" 2>&1
  note "thread-per-element kernel, 4M: exit $?"
fi
if [ "${NCU:-0}" = 1 ]; then
  # Nsight Compute on the two kernels of a step at NCU_ORDERS (default p = 1 and 4; 1M triangles):
  # speed of light, occupancy, registers; a text report under $out/bench. NCU_LIMITER=0 skips the
  # limiter's.
  for p in ${NCU_ORDERS:-1 4}; do
    LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 240 ncu --kernel-name regex:'element_(block|tensor)_kernel|face_block_kernel|for_each_prefetching' --launch-skip 12 \
      --launch-count 3 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      .bundle/bin/flowdg bench --backend cuda --meshes 1M --orders $p --steps 2 --warmup 1 > "$out/bench/ncu_p$p.txt" 2>&1
    note "ncu p=$p: exit $?"
  done
  if [ "${NCU_LIMITER:-1}" = 1 ]; then
    LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 240 ncu --kernel-name regex:'LimiterKernel' --launch-skip 4 --launch-count 2 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      .bundle/bin/flowdg bench --backend cuda --problem double-mach --meshes C --orders 1 --steps 2 --warmup 1 > "$out/bench/ncu_limiter.txt" 2>&1
    note "ncu limiter: exit $?"
  fi
fi
if [ "${CPU:-0}" = 1 ]; then
  for threads in 1 16; do
    timeout 400 .bundle/run flowdg_bench_suite --backend cpu --sections cpu --threads $threads --output "$out/bench/cpu_$threads" \
      > "$out/logs/cpu_$threads.log" 2>&1
    note "cpu suite, $threads threads: exit $?"
  done
fi

# 5. double Mach reflection on mesh C (1,036,800 triangles), p = 1, Barth-Jespersen, SSP-RK2, to
#    t = 0.2 (the 2015 paper's Table 4 run).
#    Needs meshio for the picture: a wheel carried in .whl.
if [ "${DOUBLE_MACH:-0}" = 1 ]; then
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
  # (200 steps with the limiter and positivity off are not run: the double Mach state goes
  # non-physical at step 1 without limiting, on the CPU as on the GPU; the limiter's cost is the
  # bench's limiter / unlimited-stage ratio, SUITE=dmr.)
fi

# 6. Navier-Stokes (issue 15): COUETTE=1 runs the Couette table (tools/couette_table.py; COUETTE_ARGS
#    passes e.g. "--reynolds 10 --end-time 10 --orders 1,2"); NS_THROUGHPUT=1 runs the viscous vortex
#    on ~800k perturbed triangles and ~640k perturbed quadrilaterals at NS_ORDERS (default 1..4);
#    NS_SIZE=1M: on 1,002,528 triangles and 1,000,000 quadrilaterals (issue 15's >= 1M table), "both": each.
if [ "${COUETTE:-0}" = 1 ]; then
  timeout ${COUETTE_LIMIT:-300} python3 tools/couette_table.py --flowdg ".bundle/run flowdg" --backend cuda --out /tmp/flowdg-couette \
    ${COUETTE_ARGS:-} > "$out/logs/couette.log" 2>&1
  note "couette table: exit $?"
  grep -E "^\||largest|rates below" "$out/logs/couette.log" | tail -24 | tee -a "$summary"
fi
if [ "${NS_THROUGHPUT:-0}" = 1 ]; then
  meshes=()
  for n in $(case "${NS_SIZE:-target}" in 1M) echo "708:1000";; both) echo "632:800 708:1000";; *) echo "632:800";; esac); do
    meshes+=("builtin:rectangle?nx=${n%%:*}&ny=${n%%:*}&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2")
    meshes+=("builtin:rectangle?nx=${n##*:}&ny=${n##*:}&x0=-10&x1=10&y0=-10&y1=10&cells=quadrilaterals&perturbation=0.2")
  done
  for mesh in "${meshes[@]}"; do
    for p in ${NS_ORDERS:-1 2 3 4}; do
      # NS_KERNELS: the element (and lifting) kernel variants side by side, e.g. "thread automatic" (A/B).
      for kernel in ${NS_KERNELS:-automatic}; do
        rm -f /tmp/flowdg-nsv/summary.json
        timeout 200 .bundle/run flowdg run examples/vortex_navier_stokes.toml --backend cuda --set "mesh.file=\"$mesh\"" \
          --set solver.order=$p --set solver.element_kernel="\"$kernel\"" --set time.max_steps=${NS_STEPS:-20} --set time.end_time=100.0 \
          --set output.directory='"/tmp/flowdg-nsv"' > "$out/logs/ns_throughput_${p}_${kernel}.log" 2>&1
        note "navier-stokes vortex $(echo "$mesh" | grep -q quadrilaterals && echo quads || echo triangles) p=$p $kernel: exit $? | $(grep -E '"(elements|throughput_dof_stage_per_second|model_bytes_per_second)"' /tmp/flowdg-nsv/summary.json | tr -d '\n ')"
      done
    done
  done
fi

# 6b. Whole-program speed-up over the CPU backend (issue 15 item 8, the paper's Table 7): NS_SPEEDUP=1 runs
#    examples/cylinder.toml and examples/naca0012.toml as a user runs them (local time steps, forces and
#    residual hooks) on SPEEDUP_MESHES (default the committed n1 meshes; .meshes/*.msh.xz, made here with
#    gmsh from the .geo files, are unpacked first) at SPEEDUP_ORDERS, on the GPU (GPU_STEPS steps), the
#    CPU backend with 16 OpenMP threads (CPU16_STEPS) and with 1 (CPU1_STEPS); a line per run with the
#    stepping throughput from summary.json (set-up excluded), the time per step and T_k.
if [ "${NS_SPEEDUP:-0}" = 1 ]; then
  for f in .meshes/*.msh.xz; do [ -f "$f" ] && xz -dkf "$f"; done
  for mesh in ${SPEEDUP_MESHES:-examples/meshes/cylinder_n1.msh examples/meshes/naca0012_n1.msh}; do
    example=examples/$(basename "$mesh" | grep -q cylinder && echo cylinder || echo naca0012).toml
    for p in ${SPEEDUP_ORDERS:-1 2 3}; do
      for run in cuda:${GPU_STEPS:-2000}:16 cpu:${CPU16_STEPS:-100}:16 cpu:${CPU1_STEPS:-10}:1; do
        IFS=: read -r backend steps threads <<< "$run"
        d=/tmp/flowdg-speedup; rm -rf $d
        OMP_NUM_THREADS=$threads timeout 300 .bundle/run flowdg run "$example" --backend $backend --set "mesh.file=\"$PWD/$mesh\"" \
          --set solver.order=$p --set 'time.p_continuation=[]' --set time.max_steps=$steps --set output.vtu=false --set output.checkpoint_every=0 \
          --set "output.directory=\"$d\"" > "$out/logs/speedup_$(basename $mesh .msh)_p${p}_${backend}${threads}.log" 2>&1
        status=$?
        python3 - "$d/summary.json" "$(basename $mesh .msh) p=$p $backend threads=$threads exit $status" <<'PY' | tee -a "$summary"
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    per_step = s["dof"] * s["stages"] / s["throughput_dof_stage_per_second"]
    print(f"speedup run {sys.argv[2]}: elements {s['elements']} dof {s['dof']} steps {s['steps']} "
          f"ms/step {1e3 * per_step:.4g} T_k {s['tk_microseconds']:.4g} DSU/s {s['throughput_dof_stage_per_second']:.4g}")
except Exception as error:
    print(f"speedup run {sys.argv[2]}: no summary ({error})")
PY
      done
    done
  done
fi

# 6c. The sphere at M = 0.38 (issue 16 item 6): SPHERE=1 runs examples/sphere.toml on SPHERE_MESHES (default
#    the committed n1; .meshes/*.msh.xz are unpacked) straight ([mesh.curve] order = 1) and curved
#    (SPHERE_GEOMETRY, default 4), each as one p-continuation chain 1 -> 2 -> ... -> SPHERE_ORDER (default 4)
#    of at most SPHERE_STEPS local-time steps per order (a stage ends earlier when the residual falls below
#    SPHERE_TOLERANCE), all runs side by side (small meshes: launch-bound, so they share the GPU well), each
#    stopped after SPHERE_LIMIT seconds; prints the entropy error at the end of each stage. Each run's
#    residuals, forces and wall Cp (walls.csv) and its last checkpoint (SPHERE_CHECKPOINTS=1) go to sphere/.
#    SPHERE_FLOAT=1 adds the curved chain in single precision (name suffix f); SPHERE_VARIANTS lists the
#    runs instead (geometric orders, 1 = straight, suffix f = single precision; e.g. "4").
if [ "${SPHERE:-0}" = 1 ]; then
  for f in .meshes/*.msh.xz; do [ -f "$f" ] && xz -dkf "$f"; done
  order=${SPHERE_ORDER:-4}
  chain=$(seq -s ', ' 1 $((order - 1)))
  runs=()
  for mesh in ${SPHERE_MESHES:-examples/meshes/sphere_n1.msh}; do
    for variant in ${SPHERE_VARIANTS:-1 ${SPHERE_GEOMETRY:-4} $([ "${SPHERE_FLOAT:-0}" = 1 ] && echo ${SPHERE_GEOMETRY:-4}f)}; do
      geometry=${variant%f}
      precision=double; [ "$variant" != "$geometry" ] && precision=single
      name="$(basename $mesh .msh)_g$variant"
      dir="$out/sphere/$name"
      mkdir -p "$dir"
      timeout -s TERM ${SPHERE_LIMIT:-300} .bundle/run flowdg run examples/sphere.toml --backend cuda --set "mesh.file=\"$PWD/$mesh\"" \
        --set mesh.curve.order=$geometry --set solver.order=$order --set "solver.precision=\"$precision\"" --set "time.p_continuation=[$chain]" \
        --set time.p_continuation_steps=${SPHERE_STEPS:-20000} --set time.p_continuation_tolerance=${SPHERE_TOLERANCE:-1e-9} \
        --set time.residual_tolerance=${SPHERE_TOLERANCE:-1e-9} --set time.max_steps=$((order * ${SPHERE_STEPS:-20000})) \
        --set time.cfl=${SPHERE_CFL:-0.2} --set time.dt_every=20 --set time.residual_every=500 --set time.progress_every=100000 \
        --set 'forces.walls=["sphere"]' --set forces.reference_area=0.7853981633974483 --set forces.every=500 \
        --set output.vtu=false --set output.directory="\"$dir\"" > "$dir/run.log" 2>&1 &
      runs+=("$name")
    done
  done
  wait
  for name in "${runs[@]}"; do
    dir="$out/sphere/$name"
    note "sphere $name: $(grep -E '^flowdg: [0-9]+ steps|error' "$dir/run.log" | tail -1 | cut -c1-160)"
    note "  entropy errors by stage: $(grep -o 'entropy error[^:]*: [0-9.e+-]*' "$dir/run.log" | awk '{print $NF}' | tr '\n' ' ')| steps by stage: $(grep -oE '^flowdg: [0-9]+ steps' "$dir/run.log" | awk '{print $2}' | tr '\n' ' ')| $(grep -o 'min det J / det J_straight [0-9.]*' "$dir/run.log" | head -1)"
    [ "${SPHERE_CHECKPOINTS:-0}" = 1 ] || rm -f "$dir/checkpoint.h5"
    rm -f "$dir"/*.vtu
  done
fi

# 6d. 3D Euler speed (issue 16 item 7, and item 4's float against double): TETS_SPEED=1 runs
#    examples/vortex3d_tetrahedra.toml through flowdg run (RK4, Rusanov, automatic kernels) on 998,250
#    tetrahedra (55^3 Kuhn-split cubes) at p = 1, 2 and 384,000 (40^3) at p = 3, 4, TETS_STEPS steps
#    (default 40) after the set-up, in TETS_PRECISIONS (default "double single"), TETS_ROUNDS rounds
#    (default 2) alternating the precisions; TETS_BOX adds keys to the box (default "&perturbation=0.2":
#    the interior nodes moved by up to 0.2 of a cell side, as the issue's perturbed Kuhn-split cubes).
if [ "${TETS_SPEED:-0}" = 1 ]; then
  for round in $(seq 1 ${TETS_ROUNDS:-2}); do
    for p in ${TETS_ORDERS:-1 2 3 4}; do
      n=55; [ $p -ge 3 ] && n=40
      for precision in ${TETS_PRECISIONS:-double single}; do
        log="$out/logs/tets_p${p}_${precision}_r$round.log"
        timeout 200 .bundle/run flowdg run examples/vortex3d_tetrahedra.toml --backend cuda \
          --set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=$n&ny=$n&nz=$n${TETS_BOX-&perturbation=0.2}\"" --set solver.order=$p --set 'boundary.zmin.translation=[0.0, 0.0, 6.0]' \
          --set 'solver.flux="rusanov"' --set "solver.precision=\"$precision\"" --set time.max_steps=${TETS_STEPS:-40} \
          --set time.end_time=1e9 --set time.dt_every=10 --set output.vtu=false --set 'output.directory="/tmp/flowdg-tets"' > "$log" 2>&1
        note "tets p=$p $precision round $round: exit $? | $(grep -oE '[0-9.e+]+ DOF-stages/s' "$log" | tail -1) | $(grep -oE '[0-9]+ elements' "$log" | head -1)"
      done
    done
  done
fi

# 6e. 3D transonic cases (issue 16 item 6): AERO3D=1 runs side by side, each stopped after AERO_LIMIT
#    seconds (default 450; SIGTERM: the run writes its checkpoint, forces.csv, residuals.csv, walls.csv):
#    naca08: examples/naca0012_3d.toml (M 0.8, alpha 1.25, artificial viscosity), naca04: the same at
#    M 0.4, alpha 0 without it, naca08f: naca08 in single precision, onera: examples/onera_m6.toml on the mesh
#    curved here (AERO_ONERA_MESH, default .variants/m6/onera_m6_n1_k2.msh.xz, unpacked: .variants is git-ignored,
#    so the machine keeps it between calls while warm; with a split bundle it does not fit a call beside either part,
#    so carry .variants/m6 in a call of its own, or in this one after the bundle was unpacked). The artificial
#    viscosity's A/B: naca08d / onerad with flowdg's defaults, naca08p / onerap with the paper's parameters (what the
#    case files set since session 70; kept explicit so that sessions 69-70's commands run the same).
#    AERO_RUNS picks some; AERO_SET adds --set keys to all.
if [ "${AERO3D:-0}" = 1 ]; then
  declare -A aero_case aero_extra
  aero_case[naca08]=examples/naca0012_3d.toml;  aero_extra[naca08]=""
  aero_case[naca04]=examples/naca0012_3d.toml;  aero_extra[naca04]="--set physics.mach=0.4 --set physics.angle_of_attack=0.0 --set artificial_viscosity.enabled=false"
  aero_case[naca08f]=examples/naca0012_3d.toml; aero_extra[naca08f]="--set solver.precision=\"single\""
  av_paper="--set artificial_viscosity.epsilon0=0.3 --set artificial_viscosity.kappa=4 --set artificial_viscosity.s0_offset=0.0"
  av_flowdg="--set artificial_viscosity.epsilon0=1.0 --set artificial_viscosity.kappa=1.0 --set artificial_viscosity.s0_offset=-2.0"
  aero_case[onera]=examples/onera_m6.toml;      aero_extra[onera]=""
  mesh_xz=${AERO_ONERA_MESH:-.variants/m6/onera_m6_n1_k2.msh.xz}
  if [ -f "$mesh_xz" ]; then
    xz -dkf "$mesh_xz"
    aero_extra[onera]="--set mesh.file=\"$PWD/${mesh_xz%.xz}\""
  fi
  for base in naca08 onera; do
    aero_case[${base}p]=${aero_case[$base]}; aero_extra[${base}p]="${aero_extra[$base]} $av_paper"
    aero_case[${base}d]=${aero_case[$base]}; aero_extra[${base}d]="${aero_extra[$base]} $av_flowdg"
  done
  for name in ${AERO_RUNS:-naca08 naca08f naca04 onera}; do
    dir="$out/aero/$name"
    mkdir -p "$dir"
    timeout -s TERM ${AERO_LIMIT:-450} .bundle/run flowdg run ${aero_case[$name]} --backend cuda ${aero_extra[$name]} ${AERO_SET:-} \
      --set output.vtu=false --set time.progress_every=100000 --set output.checkpoint_every=0 \
      --set output.directory="\"$dir\"" > "$dir/run.log" 2>&1 &
  done
  wait
  for name in ${AERO_RUNS:-naca08 naca08f naca04 onera}; do
    dir="$out/aero/$name"
    note "aero $name: $(grep -E '^flowdg: [0-9]+ steps|interrupted|error|failed' "$dir/run.log" | tail -2 | cut -c1-200 | tr '\n' ' ')"
    note "  forces (step,time,cd,cl,...): $(tail -n 1 "$dir/forces.csv" 2>/dev/null)"
    note "  residuals: $(tail -n 1 "$dir/residuals.csv" 2>/dev/null)"
    rm -f "$dir"/*.vtu "$dir"/*.pvd "$dir"/last_good.h5 "$dir"/checkpoint.h5
  done
fi

# 6f. p-continuation's saving (issue 16 item 7, the paper's Table 2): PCONT=1 runs examples/sphere.toml
#    (n1, curved to order 4) to p = 4 and a residual of PCONT_TOLERANCE (default 1e-9), one run after the
#    other (alone on the GPU, so the wall times compare): "chain", p = 1 -> 2 -> 3 each until the residual
#    falls below PCONT_STAGE (default 1e-5, or 20000 steps), then p = 4; "direct", p = 4 from the free
#    stream. Each stopped after PCONT_LIMIT seconds (default 280); wall time with the set-up (curving,
#    tables) from the shell's clock, and the run's own stepping seconds per stage.
#    The paper's own setting (its Table 2: global time steps, p = 2 -> 3 -> 4, fixed steps on the lower
#    orders): PCONT_GLOBAL=1 (local_time_step = false), PCONT_CHAIN='[2, 3]', PCONT_STEPS (steps per lower
#    order, default 20000), PCONT_STAGE=0 (no residual criterion: the steps alone).
#    PCONT_UPDATE=1 ends the p = 4 run as the paper's do: when the infinity norm of the Runge-Kutta
#    update, max |c^{n+1} - c^n| (time.steady_tolerance), is below PCONT_TOLERANCE, in place of the
#    residual monitor's L2 norm of du/dt (which still writes residuals.csv), checked every
#    PCONT_STEADY_EVERY steps (time.steady_every, default 1; the paper: every 1000); PCONT_ELEMENT names
#    solver.element_kernel (default automatic); PCONT_VARIANTS runs a subset of "chain direct".
if [ "${PCONT:-0}" = 1 ]; then
  local_steps=true; [ "${PCONT_GLOBAL:-0}" = 1 ] && local_steps=false
  stop="--set time.residual_tolerance=${PCONT_TOLERANCE:-1e-9}"
  [ "${PCONT_UPDATE:-0}" = 1 ] && stop="--set time.residual_tolerance=0 --set time.steady_tolerance=${PCONT_TOLERANCE:-1e-9} --set time.steady_every=${PCONT_STEADY_EVERY:-1}"
  for variant in ${PCONT_VARIANTS:-chain direct}; do
    dir="$out/pcont/$variant"
    mkdir -p "$dir"
    chain=${PCONT_CHAIN:-'[1, 2, 3]'}; [ $variant = direct ] && chain='[]'
    begin=$(date +%s.%N)
    timeout -s TERM ${PCONT_LIMIT:-280} .bundle/run flowdg run examples/sphere.toml --backend cuda --set solver.order=4 \
      --set time.local_time_step=$local_steps \
      --set "time.p_continuation=$chain" --set time.p_continuation_steps=${PCONT_STEPS:-20000} --set time.p_continuation_tolerance=${PCONT_STAGE:-1e-5} \
      $stop --set time.max_steps=400000 --set time.dt_every=20 --set "solver.element_kernel=\"${PCONT_ELEMENT:-automatic}\"" \
      --set time.residual_every=500 --set time.progress_every=100000 --set output.vtu=false \
      --set output.directory="\"$dir\"" > "$dir/run.log" 2>&1
    code=$?
    end=$(date +%s.%N)
    note "pcont $variant: exit $code, wall $(awk "BEGIN{printf \"%.1f\", $end - $begin}") s | stages: $(grep -oE '^flowdg: [0-9]+ steps to t = [0-9.e+]+ in [0-9.]+ s' "$dir/run.log" | awk '{print $2 " steps " $9 " s"}' | tr '\n' ';') | $(grep -o 'entropy error[^:]*: [0-9.e+-]*' "$dir/run.log" | tail -1)"
    rm -f "$dir/checkpoint.h5"
  done
fi

# 6f'. p-multigrid on the sphere (issue 16 item 7, the paper's Table 2 with cycles): PMG=1 runs
#    examples/sphere.toml (n1, curved to order 4) at p = 4, local time steps, to a residual of
#    PMG_TOLERANCE (default 1e-9), one run after the other, each stopped after PMG_LIMIT seconds
#    (default 150). PMG_RUNS lists the runs, ';' between them, each name|p_multigrid|p_multigrid_steps|
#    p_continuation|p_continuation_steps[|p_multigrid_cfl] ('[]' for none), e.g.
#      'direct|[]|[]|[]|0;v|[4,3,2,1,0,1,2,3,4]|[1,1,1,1,4,1,1,1,1]|[]|0'
#    PMG_RESIDUAL_EVERY (default 50) steps (cycles) between residual lines; PMG_DT_EVERY (default 20)
#    steps (cycles) between local time step evaluations; PMG_ORDER (default 4) the run's order.
if [ "${PMG:-0}" = 1 ]; then
  IFS=';' read -ra pmg_runs <<< "${PMG_RUNS:-direct|[]|[]|[]|0}"
  for spec in "${pmg_runs[@]}"; do
    IFS='|' read -r name cycle steps chain chain_steps cfl <<< "$spec"
    dir="$out/pmg/$name${PMG_ORDER:+_p$PMG_ORDER}"
    mkdir -p "$dir"
    steps_set=""; [ "$steps" != "[]" ] && steps_set="--set time.p_multigrid_steps=$steps"
    [ -n "${cfl:-}" ] && [ "$cfl" != "[]" ] && steps_set="$steps_set --set time.p_multigrid_cfl=$cfl"
    chain_set=""; [ "$chain" != "[]" ] && chain_set="--set time.p_continuation_steps=$chain_steps --set time.p_continuation_tolerance=0"
    begin=$(date +%s.%N)
    timeout -s TERM ${PMG_LIMIT:-150} .bundle/run flowdg run examples/sphere.toml --backend cuda --set solver.order=${PMG_ORDER:-4} \
      --set time.local_time_step=true --set "time.p_continuation=$chain" $chain_set \
      --set "time.p_multigrid=$cycle" $steps_set \
      --set time.residual_tolerance=${PMG_TOLERANCE:-1e-9} --set time.max_steps=400000 --set time.dt_every=${PMG_DT_EVERY:-20} \
      --set time.residual_every=${PMG_RESIDUAL_EVERY:-50} --set time.progress_every=100000 --set output.vtu=false \
      --set output.directory="\"$dir\"" > "$dir/run.log" 2>&1
    code=$?
    end=$(date +%s.%N)
    note "pmg $name p=${PMG_ORDER:-4}: exit $code, wall $(awk "BEGIN{printf \"%.1f\", $end - $begin}") s | stages: $(grep -oE '^flowdg: [0-9]+ (steps|cycles) to t = [0-9.e+]+ in [0-9.]+ s' "$dir/run.log" | awk '{print $2 " " $3 " " $9 " s"}' | tr '\n' ';') | $(grep -oE 'steps per order: .*' "$dir/run.log" | tr '\n' ';') | $(grep -o 'entropy error[^:]*: [0-9.e+-]*' "$dir/run.log" | tail -1) | last residual: $(tail -1 "$dir/residuals.csv" 2>/dev/null)"
    rm -f "$dir/checkpoint.h5"
  done
fi

# 6g. CPU against GPU on tetrahedra (issue 16 item 7, the paper's Table 1): TETS_CPU=1 runs
#    examples/vortex3d_tetrahedra.toml on 162,000 tetrahedra (30^3 Kuhn-split cubes, perturbed by 0.2)
#    at p = 1..4, RK4, double: the CPU backend with TETS_CPU_THREADS (default 16) OpenMP threads for
#    TETS_CPU_STEPS steps (default 4), then the GPU for 40 steps; DOF-stage updates per second of each.
if [ "${TETS_CPU:-0}" = 1 ]; then
  for p in ${TETS_ORDERS:-1 2 3 4}; do
    for backend in cpu cuda; do
      steps=40; [ $backend = cpu ] && steps=${TETS_CPU_STEPS:-4}
      log="$out/logs/tets_cpu_p${p}_$backend.log"
      OMP_NUM_THREADS=${TETS_CPU_THREADS:-16} timeout 200 .bundle/run flowdg run examples/vortex3d_tetrahedra.toml --backend $backend \
        --set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=30&ny=30&nz=30&perturbation=0.2\"" --set solver.order=$p \
        --set 'boundary.zmin.translation=[0.0, 0.0, 6.0]' --set 'solver.flux="rusanov"' --set time.max_steps=$steps \
        --set time.end_time=1e9 --set time.dt_every=10 --set output.vtu=false --set 'output.directory="/tmp/flowdg-tets-cpu"' > "$log" 2>&1
      note "tets cpu-vs-gpu p=$p $backend: exit $? | $(grep -oE '[0-9]+ steps to t = [0-9.e+-]+ in [0-9.]+ s \([0-9.e+]+ DOF-stages/s' "$log" | tail -1)"
    done
  done
fi

# 7. Navier-Stokes validation (issue 15, Tables 4 and 5): NS_VALIDATION=1 runs the cylinder (Re 40, M 0.2)
#    and the NACA 0012 (Re 5000, M 0.5) to a steady state with local time steps, VALIDATION_CASES of
#    cylinder_p2 cylinder_p3 naca_p3 naca_p4 (nacahalf_pN: the half C-mesh with its symmetry plane) one after the other (side by side they time-slice the GPU:
#    5x slower each, measured), each stopped by SIGTERM after VALIDATION_LIMIT seconds (its checkpoint then
#    written; VALIDATION_LIMITS gives one per case); a case whose checkpoint is in VALIDATION_FROM/<case>/ (carried from an earlier call) is
#    continued from it, else from the checkpoint of the case before it on the same mesh (p-continuation:
#    VALIDATION_CASES="cylinder_p1 cylinder_p2"). Results under $out/validation/<case>/ (no VTU: size).
if [ "${NS_VALIDATION:-0}" = 1 ]; then
  from=${VALIDATION_FROM:-.validation}
  declare -A chain  # p-continuation: a case without a carried checkpoint starts from the last one of its mesh
  limits=(${VALIDATION_LIMITS:-})  # optional: a limit per case, in VALIDATION_CASES' order
  n_case=0
  for c in ${VALIDATION_CASES:-cylinder_p2 cylinder_p3 naca_p3 naca_p4}; do
    case ${c%_p*} in cylinder) example=examples/cylinder.toml ;; nacahalf) example=examples/naca0012_half.toml ;; *) example=examples/naca0012.toml ;; esac
    limit=${limits[$n_case]:-${VALIDATION_LIMIT:-140}}; n_case=$((n_case + 1))
    dir="$out/validation/$c"
    mkdir -p "$dir"
    restart=""
    if [ -f "$from/$c/checkpoint.h5" ]; then
      cp "$from/$c/"*.csv "$dir/" 2>/dev/null
      restart="--restart $from/$c/checkpoint.h5"
    elif [ -n "${chain[${c%_p*}]:-}" ]; then
      restart="--restart ${chain[${c%_p*}]}"
    fi
    timeout -s TERM $limit .bundle/run flowdg run "$example" --backend cuda $restart --set solver.order=${c##*_p} --set 'time.p_continuation=[]' \
      --set "output.directory=\"$dir\"" --set output.checkpoint_every=50000 --set time.residual_tolerance=${VALIDATION_TOLERANCE:-1e-9} \
      --set time.dt_every=20 --set time.residual_every=1000 --set forces.every=1000 --set time.progress_every=20000 \
      --set time.max_steps=${VALIDATION_MAX_STEPS:-100000000} \
      --set output.vtu=false > "$dir/run.log" 2>&1
    [ -f "$dir/checkpoint.h5" ] && chain[${c%_p*}]="$dir/checkpoint.h5"
  done
  for c in ${VALIDATION_CASES:-cylinder_p2 cylinder_p3 naca_p3 naca_p4}; do
    dir="$out/validation/$c"
    note "$c: $(grep -E '^flowdg: [0-9]+ steps|interrupted|error' "$dir/run.log" | tail -1)"
    note "  forces: $(tail -n 1 "$dir/forces.csv" 2>/dev/null)"
    note "  residuals: $(tail -n 1 "$dir/residuals.csv" 2>/dev/null)"
  done
fi

# One archive: the device tool brings back only a few files per call.
tar czf "$out/results.tar.gz" -C "$out" $(cd "$out" && ls -d logs convergence bench validation sphere aero pcont 2>/dev/null)
rm -rf "$out/logs" "$out/convergence" "$out/bench" "$out/validation" "$out/sphere" "$out/aero" "$out/pcont"
echo "==== summary"
cat "$summary"
