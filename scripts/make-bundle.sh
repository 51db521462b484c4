#!/usr/bin/env bash
# The GPU machine's bundle: the CUDA build's flowdg, flowdg_gpu_tests and flowdg_bench_suite with
# their shared libraries (../shared/tools/bundle-libs), packed as .bundle/all.tar.xz so that it
# stays under the device tool's 64 MiB carry limit; scripts/gpu-session.sh and gpu-ab.sh unpack it.
# Usage: scripts/make-bundle.sh [build-dir] [extra executables...]
set -euo pipefail
build=${1:-build}; shift || true
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# BENCH=1 adds flowdg_bench_suite (off by default: with the Navier-Stokes kernels the three binaries pack to
# 69 MB, above the carry limit; two of them fit, 49 MB; for the suite, pass its binary without the tests).
bench=()
[ "${BENCH:-0}" = 1 ] && bench=("$build/bin/flowdg_bench_suite")
"$(dirname "$0")/../../shared/tools/bundle-libs" "$staging" "$build/bin/flowdg" "$build/bin/flowdg_gpu_tests" \
  "${bench[@]}" "$@" > /dev/null
rm -rf .bundle && mkdir .bundle
tar cJf .bundle/all.tar.xz -C "$staging" .
ls -la .bundle/all.tar.xz
