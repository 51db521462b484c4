#pragma once
// The ranks of a distributed run (issue 17): global reductions and the halo exchange of a partitioned
// mesh's ghost elements (mesh/partition.hpp: HaloPlan). One interface, two implementations: the
// serial one (one rank; in libflowdg) and MPI's (communicator_mpi.cpp, built as the separate library
// flowdg_mpi when CMake finds MPI, so that the solver binary copied to the GPU machine does not
// depend on an MPI library until distributed runs are wired in).
#include <memory>
#include <vector>

#include "flowdg/mesh/partition.hpp"

namespace flowdg {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The smallest / the sum of a value over all ranks (every rank gets the result).
  virtual double min(double value) const = 0;
  virtual double sum(double value) const = 0;
  /// Element-wise sums of a vector over all ranks, in place (same length on every rank).
  virtual void sum(std::vector<double>& values) const = 0;
  /// The halo exchange: data holds `width` values per local element ([e * width + c]); for every
  /// neighbour in the plan, the values of its send elements go to it and the values received from it
  /// overwrite its receive (ghost) elements, in the plan's order.
  virtual void exchange(const HaloPlan& plan, std::vector<double>& data, int width) const = 0;
};

/// One rank: reductions return their argument; a plan with neighbours is refused (InputError).
std::unique_ptr<Communicator> serial_communicator();

}  // namespace flowdg
