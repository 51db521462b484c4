#pragma once
// MPI's Communicator (library flowdg_mpi, built when CMake finds MPI): MPI_COMM_WORLD, non-blocking
// point-to-point messages per neighbour for the halo exchange, MPI_Allreduce for the reductions.
#include <memory>

#include "flowdg/parallel/communicator.hpp"

namespace flowdg {

/// The world communicator; MPI must be initialised (MPI_Init) and stay so while it is used.
std::unique_ptr<Communicator> mpi_communicator();

}  // namespace flowdg
