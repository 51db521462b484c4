#!/usr/bin/env bash
# The GPU machine's bundle: the CUDA build's flowdg, flowdg_gpu_tests and flowdg_bench_suite with
# their shared libraries (../shared/tools/bundle-libs), packed as .bundle/all.tar.xz so that it
# stays under the device tool's 64 MiB carry limit; scripts/gpu-session.sh and gpu-ab.sh unpack it.
# Usage: scripts/make-bundle.sh [build-dir] [extra executables...]
set -euo pipefail
build=${1:-build}; shift || true
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
"$(dirname "$0")/../../shared/tools/bundle-libs" "$staging" "$build/bin/flowdg" "$build/bin/flowdg_gpu_tests" \
  "$build/bin/flowdg_bench_suite" "$@" > /dev/null
rm -rf .bundle && mkdir .bundle
tar cJf .bundle/all.tar.xz -C "$staging" .
ls -la .bundle/all.tar.xz
