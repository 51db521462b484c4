#!/bin/bash
# restart_on_other_ranks.sh FLOWDG DIFF MPIEXEC CASE STEPS: 3 ranks run CASE to STEPS/2 and write
# their checkpoint (in the whole mesh's layout), 2 ranks continue it to STEPS (--restart), and the
# result must equal one rank's uninterrupted run to STEPS, bit for bit; a 1-rank restart of the
# 3-rank checkpoint too.
set -u  # FLOWDG, DIFF and MPIEXEC may hold arguments ("bundle/run flowdg"): used unquoted
source "$(dirname "$0")/common.sh"  # $work, run
flowdg=$1 diff=$2 mpiexec=$3 case=$4 steps=$5
half=$((steps / 2))
run "$work/serial.log" $flowdg run "$case" --backend "${BACKEND:-cpu}" --set time.max_steps=$steps --output "$work/serial"
run "$work/first.log" $mpiexec -np 3 --oversubscribe $flowdg run "$case" --backend "${BACKEND:-cpu}" --set time.max_steps=$half --output "$work/first"
run "$work/second.log" $mpiexec -np 2 --oversubscribe $flowdg run "$case" --backend "${BACKEND:-cpu}" --set time.max_steps=$steps \
  --restart "$work/first/checkpoint.h5" --output "$work/second"
grep -m1 "restarted from" "$work/second.log" || { cat "$work/second.log"; echo "FAILED: the 2-rank run did not restart"; exit 1; }
run "$work/alone.log" $flowdg run "$case" --backend "${BACKEND:-cpu}" --set time.max_steps=$steps --restart "$work/first/checkpoint.h5" \
  --output "$work/alone"
status=0
echo -n "3 ranks to step $half, then 2 ranks to $steps, vs 1 rank: "
$diff "$work/second/checkpoint.h5" "$work/serial/checkpoint.h5" 0 || status=1
echo -n "3 ranks to step $half, then 1 rank to $steps, vs 1 rank: "
$diff "$work/alone/checkpoint.h5" "$work/serial/checkpoint.h5" 0 || status=1
exit $status
