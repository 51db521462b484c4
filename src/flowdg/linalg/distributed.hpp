#pragma once
// Distributed sparse systems (issue 19 item 4): each rank assembles the rows of the unknowns it owns
// (poly/poly_partition.hpp: owned_elements), in a local numbering in which its own unknowns come
// first, then the ghosts' (other ranks' unknowns that its rows couple to), then any it never reads.
// DistributedCsrOperator is A x for such a system: the Krylov vectors hold the rank's own unknowns
// only; before every product the ghosts' entries are fetched from their owners (gather kernel ->
// page-locked host buffer -> non-blocking messages per neighbour (Communicator::start) -> scatter
// kernel), then the rank's rows are multiplied. With KrylovOptions::global_sum set to the
// communicator's sum, CG / GMRES / BiCGStab (linalg/krylov.hpp) solve the whole system, every rank
// taking the same steps; block Jacobi on the owned rows' blocks is rank-local.
#include <memory>
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/mesh/halo.hpp"
#include "flowdg/parallel/communicator.hpp"

namespace flowdg::linalg {

/// A halo plan of elements (per neighbour the owned elements it needs, the ghosts it owns) as one of
/// unknowns: element e's unknowns are [dof_start[e], dof_start[e + 1]), taken in the plan's order.
HaloPlan unknowns_plan(const HaloPlan& elements, const std::vector<index_t>& dof_start);

template <class Real>
class DistributedCsrOperator final : public LinearOperator<Real> {
 public:
  /// matrix: the rank's local matrix (its rows [0, owned) are read, at least those: the rank's own
  /// rows; its columns every local unknown, of which a row may read only owned ones and the ghosts
  /// the plan receives); plan: in local unknowns
  /// (unknowns_plan), send entries below `owned`, receive entries at or above it. Keeps references to
  /// the matrix and the communicator's object. Error: a plan outside the matrix.
  DistributedCsrOperator(const CsrMatrix<Real>& matrix, index_t owned, const HaloPlan& plan,
                         std::shared_ptr<const Communicator> communicator);
  /// The rank's own unknowns.
  index_t size() const override { return owned_; }
  /// y = the rank's rows of A x (collective: every rank calls it the same number of times).
  void apply(Backend backend, View<const Real> x, View<Real> y) const override;
  /// The local vector of x: its `owned` entries, then the ghosts' entries from their owners, zeros
  /// for the unknowns no row reads (collective). matrix.cols entries in the matrix's space.
  View<const Real> with_ghosts(Backend backend, View<const Real> x) const;
  /// Unknowns sent and received per product (over all neighbours), and the neighbours.
  index_t sent() const { return send_index_.size(); }
  index_t received() const { return receive_index_.size(); }
  int neighbours() const { return static_cast<int>(neighbour_rank_.size()); }

 private:
  const CsrMatrix<Real>& matrix_;
  index_t owned_;
  std::shared_ptr<const Communicator> communicator_;
  std::vector<int> neighbour_rank_;
  std::vector<index_t> send_offset_, receive_offset_;  // per neighbour, into the flat lists
  Array<index_t> send_index_, receive_index_;
  mutable Array<Real> local_, send_values_, receive_values_;
  mutable PinnedBuffer<Real> send_host_, receive_host_;
};

}  // namespace flowdg::linalg
