#!/usr/bin/env bash
# Quick start 2: install what is missing, build with warnings as errors, and run the whole test
# suite (tests labelled gpu skip, visibly, where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh ci
cd build && ctest --output-on-failure -j "$(nproc)" "$@"
