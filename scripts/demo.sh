#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the main job on its built-in case.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh default
exec build/bin/flowdg run "$@"
