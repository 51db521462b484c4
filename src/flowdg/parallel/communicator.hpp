#pragma once
// The ranks of a distributed run (issue 17): global reductions and the halo exchange of a partitioned
// mesh's ghost elements (mesh/partition.hpp: HaloPlan). One interface, two implementations: the
// serial one (one rank; in libflowdg) and MPI's (communicator_mpi.cpp, built as the separate library
// flowdg_mpi when CMake finds MPI, so that the solver binary copied to the GPU machine does not
// depend on an MPI library until distributed runs are wired in).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/mesh/halo.hpp"

namespace flowdg {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The smallest / the sum of a value over all ranks (every rank gets the result).
  virtual double min(double value) const = 0;
  virtual double sum(double value) const = 0;
  double max(double value) const { return -min(-value); }
  /// Element-wise sums of a vector over all ranks, in place (same length on every rank).
  virtual void sum(std::vector<double>& values) const = 0;
  /// Root's values on every rank (the length too).
  virtual void broadcast(std::vector<int>& values, int root) const = 0;
  /// Every rank's values, concatenated in rank order, on root (empty elsewhere) / on every rank.
  virtual std::vector<double> gather(const std::vector<double>& values, int root) const = 0;
  virtual std::vector<long long> all_gather(const std::vector<long long>& values) const = 0;
  /// Whether any rank passed true (collective).
  bool any(bool value) const { return max(value ? 1.0 : 0.0) > 0; }
  virtual void barrier() const = 0;
  /// Ends every rank of the run with `code` (an error that not every rank saw: none may wait for
  /// the others).
  [[noreturn]] virtual void abort(int code) const = 0;

  /// A non-blocking exchange of byte buffers with neighbouring ranks: start() posts every receive
  /// and send, wait() completes them (the buffers must stay alive and untouched until then).
  struct Message {
    int rank = -1;
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  class Pending {
   public:
    virtual ~Pending() = default;
    virtual void wait() = 0;
  };
  virtual std::unique_ptr<Pending> start(const std::vector<Message>& sends, const std::vector<Message>& receives) const = 0;
  /// Whether start()'s messages may lie in device memory (a CUDA-aware MPI library, detected at run
  /// time; FLOWDG_CUDA_AWARE_MPI=0/1 overrides). Otherwise the halo goes through host staging.
  virtual bool cuda_aware() const { return false; }
  /// "MPI, 2 ranks (Open MPI v4.1.6; CUDA-aware: no, by MPIX_Query_cuda_support)" or "one rank".
  virtual std::string describe() const = 0;
  /// The halo exchange: data holds `width` values per local element ([e * width + c]); for every
  /// neighbour in the plan, the values of its send elements go to it and the values received from it
  /// overwrite its receive (ghost) elements, in the plan's order.
  virtual void exchange(const HaloPlan& plan, std::vector<double>& data, int width) const = 0;
};

/// A distributed operator's rank (dg::OperatorOptions::distribution): its mesh is a part
/// (mesh/partition.hpp: MeshPart) whose first n_owned elements are its own and the rest ghosts that
/// every stage's halo exchange overwrites with their owners' values; reductions (time step, norms,
/// totals, residuals) take the owned elements and then every rank's. What the whole mesh's set-up
/// depends on that a part may not see travels with it: per shape (Shape's value) the largest
/// geometric order of the whole mesh's curved elements of that shape (0: none), which sets the
/// curved groups' volume rules and the face rule.
struct Distribution {
  std::shared_ptr<const Communicator> communicator;
  HaloPlan halo;
  index_t n_owned = 0;
  std::vector<int> curved_order_by_shape;
};

/// One rank: reductions return their argument; a plan with neighbours is refused (InputError).
std::unique_ptr<Communicator> serial_communicator();

}  // namespace flowdg
