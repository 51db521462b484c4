#!/usr/bin/env bash
# Quick start 2: install what is missing, build with warnings as errors, and run the whole test
# suite (tests labelled gpu skip, visibly, where no GPU is present).
# Where no GPU is visible the CUDA kernels are only compiled, unoptimised, as a check (preset
# "check", into build-check/: the whole build about twice as fast, and no run needs their speed);
# with a GPU they are built optimised (preset "ci", into build/) and the gpu tests run them.
# FLOWDG_TEST_PRESET=ci|check forces one.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${FLOWDG_TEST_PRESET:-}
if [ -z "$preset" ]; then
  if nvidia-smi -L > /dev/null 2>&1; then preset=ci; else preset=check; fi
fi
case "$preset" in
  ci) dir=build ;;
  check) dir=build-check ;;
  *) echo "scripts/test.sh: FLOWDG_TEST_PRESET='$preset': expected ci or check" >&2; exit 2 ;;
esac
echo "flowdg: testing with preset '$preset' in $dir/"
bash scripts/install-deps.sh
bash scripts/build.sh "$preset"
# One OpenMP thread per test process: ctest runs nproc processes at once, and oversubscribed
# OpenMP barriers spin (tenfold slower on 2 cores).
cd "$dir" && OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} ctest --output-on-failure -j "$(nproc)" "$@"
