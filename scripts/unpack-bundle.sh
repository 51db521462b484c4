#!/usr/bin/env bash
# On the GPU machine, before a run: unpacks what scripts/make-bundle.sh made here.
#   .bundle/all.tar.xz          -> .bundle (the binaries, and with them their libraries and the run
#                                  wrapper unless the bundle was made with SPLIT=1);
#   .bundle-lib/part.aa + .bundle/part.ab -> .bundle/all.tar.xz (SPLIT=1 with binaries beyond 30 MB,
#                                  split so that both calls carry as much: the first part rides with
#                                  the libraries and waits in .variants/);
#   .bundle-lib/lib.tar.xz      -> .variants/lib (SPLIT=1: the libraries and the wrapper alone, carried
#                                  in a call of their own; .variants is git-ignored, so the machine keeps
#                                  them for the next call while it stays warm);
# a split bundle's binaries then get the libraries from .variants/lib. Why split: the flowdg binary
# and the gpu tests each pack to about 48 MB, their libraries to 8 MB, the working tree is 20 MB, and
# one call carries at most 64 MiB.
set -eu
if [ -f .bundle-lib/lib.tar.xz ]; then
  rm -rf .variants/lib .variants/part.aa
  mkdir -p .variants/lib
  tar xJf .bundle-lib/lib.tar.xz -C .variants/lib
  # A split archive's first part (make-bundle.sh: binaries beyond 30 MB), kept for the next call.
  [ -f .bundle-lib/part.aa ] && cp .bundle-lib/part.aa .variants/part.aa
fi
if [ -f .bundle/part.ab ]; then
  if [ ! -f .variants/part.aa ]; then
    echo "unpack-bundle: .bundle holds the second part of a split archive: carry .bundle-lib in an earlier call on this machine" >&2
    exit 1
  fi
  cat .variants/part.aa .bundle/part.ab > .bundle/all.tar.xz
  rm -f .bundle/part.ab .bundle/run
  rm -rf .bundle/bin
fi
if [ -f .bundle/all.tar.xz ] && [ ! -x .bundle/run ]; then
  tar xJf .bundle/all.tar.xz -C .bundle
fi
if [ -d .bundle/bin ] && [ ! -x .bundle/run ] && [ -x .variants/lib/run ]; then
  cp -r .variants/lib/. .bundle/
fi
if [ -d .bundle/bin ] && [ ! -x .bundle/run ]; then
  echo "unpack-bundle: .bundle holds binaries without their libraries (a SPLIT=1 bundle): carry .bundle-lib in" \
       "an earlier call on this machine (or make the bundle without SPLIT)" >&2
  exit 1
fi
exit 0
