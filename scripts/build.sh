#!/usr/bin/env bash
# Configures and builds flowdg into build/ with the given preset (default: "default").
# The CUDA backend is built when nvcc is found; set FLOWDG_CUDA=OFF to skip it.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
extra=()
[ -n "${FLOWDG_CUDA:-}" ] && extra+=("-DFLOWDG_CUDA=${FLOWDG_CUDA}")
cmake --preset "$preset" -G Ninja "${extra[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
