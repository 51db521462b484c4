#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 68".)
# Session 68's final build: issue 16's case (periodic, perturbed, RK4, Rusanov; 998,250 tetrahedra at p = 1, 2,
# 384,000 at p = 3, 4) in both precisions, two rounds (docs/results/session64/cases64.sh).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
OUT="$out/cases" CASES=periodic ROUNDS=2 bash docs/results/session64/cases64.sh > /dev/null 2>&1
cp "$out/cases/cases.txt" "$out/"; rm -rf "$out/cases"
grep "round" "$out/cases.txt"
