#!/usr/bin/env bash
# The GPU machine's bundle: the CUDA build's flowdg, flowdg_gpu_tests and flowdg_bench_suite with
# their shared libraries (../shared/tools/bundle-libs), packed as .bundle/all.tar.xz so that it
# stays under the device tool's 64 MiB carry limit; scripts/gpu-session.sh and gpu-ab.sh unpack it.
# Usage: scripts/make-bundle.sh [build-dir] [extra executables...]   (SPLIT=1: libraries apart, below)
# A/B bundles: FLOWDG_A=path/to/old/flowdg adds it as bin/flowdg_A (scripts/gpu-ab-bins.sh) and
# leaves the gpu tests out (three binaries exceed the carry limit).
set -euo pipefail
build=${1:-build}; shift || true
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# BENCH=1 adds flowdg_bench_suite (off by default: with the Navier-Stokes kernels the three binaries pack to
# 69 MB, above the carry limit; two of them fit, 49 MB; for the suite, pass its binary without the tests).
bench=()
[ "${BENCH:-0}" = 1 ] && bench=("$build/bin/flowdg_bench_suite")
tests=("$build/bin/flowdg_gpu_tests")
[ -n "${FLOWDG_A:-}" ] && tests=()
[ "${NO_TESTS:-0}" = 1 ] && tests=()  # flowdg alone (about 32 MB): room for meshes and checkpoints in the carry
main=("$build/bin/flowdg")
# ONLY_TESTS=1: flowdg_gpu_tests alone (flowdg and the tests, about 41 MB each packed, no longer fit one
# carry together: a test call and a run call each carry their own bundle).
[ "${ONLY_TESTS:-0}" = 1 ] && main=()
# SPLIT=1: the libraries of flowdg and of the tests both (one .bundle-lib serves either bundle: a
# library bundle made with the tests' bundle lacked muparser for flowdg, session 33); the binaries
# not asked for are dropped again below.
libs_of=("${main[@]}" "${tests[@]}")
if [ "${SPLIT:-0}" = 1 ]; then
  libs_of=()
  for b in "$build/bin/flowdg" "$build/bin/flowdg_gpu_tests"; do [ -x "$b" ] && libs_of+=("$b"); done
fi
"$(dirname "$0")/../../shared/tools/bundle-libs" "$staging" "${libs_of[@]}" "${bench[@]}" "$@" > /dev/null
if [ "${SPLIT:-0}" = 1 ]; then
  wanted=" "
  for b in "${main[@]}" "${tests[@]}" "${bench[@]}" "$@"; do wanted+="$(basename "$b") "; done
  for b in "$staging"/bin/*; do [[ "$wanted" == *" $(basename "$b") "* ]] || rm -f "$b"; done
fi
[ -n "${FLOWDG_A:-}" ] && cp -L "$FLOWDG_A" "$staging/bin/flowdg_A"
# Open MPI: a distributed run must use the GPU machine's own libmpi (its mpirun, 4.1.6, starts the
# ranks); Debian's copies move to lib-mpi/, which the run wrapper uses only where the machine has
# no Open MPI of its own.
mkdir -p "$staging/lib-mpi"
for lib in libmpi.so libopen-rte.so libopen-pal.so; do
  mv "$staging"/lib/$lib* "$staging/lib-mpi/" 2>/dev/null || true
done
cat > "$staging/run" <<'RUN'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
exe=$1; shift
# The machine's own Open MPI where its loader finds one (ldconfig, or its LD_LIBRARY_PATH, which
# comes first), else the bundled copy, last.
path="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ldconfig -p 2> /dev/null | grep -q 'libmpi\.so\.40 ' || path="$path:$here/lib-mpi"
LD_LIBRARY_PATH="$path" exec "$here/bin/$exe" "$@"
RUN
chmod +x "$staging/run"
# Symbol tables are not needed to run (3 of 53 MB per binary; compute-sanitizer and ncu still name
# the kernels from the device code): stripped, two binaries and the tree fit one call's carry.
strip "$staging"/bin/*
rm -rf .bundle && mkdir .bundle
if [ "${SPLIT:-0}" = 1 ]; then
  # SPLIT=1: the binaries alone in .bundle/all.tar.xz, their libraries and the run wrapper in
  # .bundle-lib/lib.tar.xz; carry .bundle-lib in one call, then .bundle in the next while the machine
  # is warm (scripts/unpack-bundle.sh joins them). For a binary that with its libraries and the
  # working tree exceeds one call's 64 MiB.
  rm -rf .bundle-lib && mkdir .bundle-lib
  XZ_OPT=-T2 tar cJf .bundle-lib/lib.tar.xz -C "$staging" lib lib-mpi run
  XZ_OPT=-T2 tar cJf .bundle/all.tar.xz -C "$staging" bin
  # The binaries' archive beyond 30 MB (one flowdg or flowdg_gpu_tests packs to about 48-58 MB, which
  # with the working tree, about 26 MB, exceeds a carry): split so that the two calls carry the same
  # bytes — its first part with the libraries (.bundle-lib/part.aa, the first call), the rest in
  # .bundle (part.ab, the second call); unpack-bundle.sh keeps the first part in .variants/ and joins them.
  rm -f .bundle-lib/part.*
  all_bytes=$(stat -c %s .bundle/all.tar.xz) lib_bytes=$(stat -c %s .bundle-lib/lib.tar.xz)
  if [ "$all_bytes" -gt 30000000 ]; then
    first=$(( (all_bytes + lib_bytes + 1) / 2 - lib_bytes ))
    head -c $first .bundle/all.tar.xz > .bundle/part.aa
    tail -c +$((first + 1)) .bundle/all.tar.xz > .bundle/part.ab
    mv .bundle/part.aa .bundle-lib/part.aa
    [ "$(stat -c %s .bundle/part.ab)" -gt 36000000 ] && { echo "make-bundle: the binaries pack to more than 72 MB: bundle them apart" >&2; exit 1; }
    rm .bundle/all.tar.xz
  fi
  ls -la .bundle-lib/
else
  XZ_OPT=-T2 tar cJf .bundle/all.tar.xz -C "$staging" .
fi
ls -la .bundle/
