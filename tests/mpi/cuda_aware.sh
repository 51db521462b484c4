#!/bin/bash
# cuda_aware.sh FLOWDG MPIEXEC: whether the MPI library takes device memory is found at run time
# (Open MPI's MPIX_Query_cuda_support or MPICH's MPIX_GPU_query_support, looked up in the library
# loaded) and FLOWDG_CUDA_AWARE_MPI=0/1 overrides it; flowdg info says which and how.
set -u
flowdg=$1 mpiexec=$2
status=0
check() {  # check NAME PATTERN [ENV=VALUE]
  local name=$1 pattern=$2
  shift 2
  local line
  line=$(env "$@" "$mpiexec" -np 2 --oversubscribe "$flowdg" info 2>&1 | grep -m1 "distributed runs")
  if echo "$line" | grep -Eq -- "$pattern"; then
    echo "ok $name: $line"
  else
    echo "FAILED $name: expected /$pattern/ in: $line"
    status=1
  fi
}
check "detected" "MPI, 2 ranks .*CUDA-aware: (yes|no), by MPIX_(Query_cuda_support|GPU_query_support)" FLOWDG_CUDA_AWARE_MPI=
check "forced on" "CUDA-aware: yes, by FLOWDG_CUDA_AWARE_MPI" FLOWDG_CUDA_AWARE_MPI=1
check "forced off" "CUDA-aware: no, by FLOWDG_CUDA_AWARE_MPI" FLOWDG_CUDA_AWARE_MPI=0
exit $status
