#pragma once
// MPI's Communicator (library flowdg_mpi, built when CMake finds MPI): MPI_COMM_WORLD, non-blocking
// point-to-point messages per neighbour for the halo exchange, MPI_Allreduce for the reductions.
#include <memory>

#include "flowdg/parallel/communicator.hpp"

namespace flowdg {

/// The world communicator; MPI must be initialised (MPI_Init) and stay so while it is used.
std::unique_ptr<Communicator> mpi_communicator();

/// Whether this process was started by an MPI launcher (mpirun/mpiexec/srun set their environment:
/// OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK): a run started alone stays one rank without MPI.
bool launched_by_mpi();

/// The node-local rank (the launcher's OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or
/// SLURM_LOCALID; 0 if none is set): which GPU a rank takes.
int node_local_rank();

/// MPI_Init_thread (funneled: only the main thread calls MPI) for the process's lifetime; the
/// destructor finalises unless abort() ended it.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

}  // namespace flowdg
