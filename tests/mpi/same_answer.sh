#!/bin/bash
# same_answer.sh FLOWDG DIFF MPIEXEC CASE TOLERANCE RANKS...: runs CASE on one rank (flowdg run, no
# mpirun) and on each rank count under mpirun, and checks that every run's final checkpoint holds the
# one-rank run's state (flowdg_checkpoint_diff: within TOLERANCE relative, 0 for equal bits).
# BACKEND=cuda runs them on the GPUs (one per rank; scripts/gpu-mpi-scaling.sh). SET=section.key=value
# overrides a case value in the distributed runs (flowdg run --set; e.g. solver.halo_overlap=false).
# EXPECT_HALO=overlapped|after: each distributed run's halo report must say that its exchanges overlapped
# the elements' update, or followed it.
set -u  # FLOWDG, DIFF and MPIEXEC may hold arguments ("bundle/run flowdg"): used unquoted
source "$(dirname "$0")/common.sh"  # $work, run
flowdg=$1 diff=$2 mpiexec=$3 case=$4 tolerance=$5
shift 5
set_args=()
[ -n "${SET:-}" ] && set_args=(--set "$SET")
run "$work/serial.log" $flowdg run "$case" --backend "${BACKEND:-cpu}" --output "$work/serial"
status=0
for ranks in "$@"; do
  run "$work/ranks$ranks.log" $mpiexec -np "$ranks" --oversubscribe $flowdg run "$case" --backend "${BACKEND:-cpu}" --output "$work/ranks$ranks" "${set_args[@]}"
  grep -m1 "distributed over" "$work/ranks$ranks.log"
  grep -m1 "flowdg: halo:" "$work/ranks$ranks.log"
  case "${EXPECT_HALO:-}" in
    overlapped) pattern="exchanges of .* overlapped with the update" ;;
    after) pattern="exchanges of .* MB: pack" ;;
    *) pattern="" ;;
  esac
  if [ -n "$pattern" ] && ! grep -q "flowdg: halo: .*$pattern" "$work/ranks$ranks.log"; then
    echo "FAILED: $ranks ranks: the halo report does not say '$pattern'"
    status=1
  fi
  echo -n "$ranks ranks vs 1: "
  $diff "$work/ranks$ranks/checkpoint.h5" "$work/serial/checkpoint.h5" "$tolerance" || status=1
  # A [forces] wake line: the recirculation length from the points' values, gathered from the ranks
  # that hold them, is the one rank's (each point is evaluated in the same element).
  if head -1 "$work/serial/forces.csv" 2>/dev/null | grep -q recirculation_length; then
    one=$(tail -1 "$work/serial/forces.csv" | awk -F, '{print $NF}')
    many=$(tail -1 "$work/ranks$ranks/forces.csv" | awk -F, '{print $NF}')
    echo "recirculation length: $many on $ranks ranks, $one on 1"
    [ "$one" = "$many" ] || { echo "FAILED: the recirculation lengths differ"; status=1; }
  fi
done
exit $status
