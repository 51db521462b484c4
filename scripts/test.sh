#!/usr/bin/env bash
# Quick start 2: install what is missing, build with warnings as errors, and run the whole test
# suite (tests labelled gpu skip, visibly, where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh ci
# One OpenMP thread per test process: ctest runs nproc processes at once, and oversubscribed
# OpenMP barriers spin (tenfold slower on 2 cores).
cd build && OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} ctest --output-on-failure -j "$(nproc)" "$@"
