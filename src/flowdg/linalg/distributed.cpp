#include "flowdg/linalg/distributed.hpp"

#include "flowdg/core/error.hpp"
#include "flowdg/linalg/ops.hpp"

namespace flowdg::linalg {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

HaloPlan unknowns_plan(const HaloPlan& elements, const std::vector<index_t>& dof_start) {
  HaloPlan out;
  const auto expand = [&](const std::vector<index_t>& list, std::vector<index_t>& into) {
    for (const index_t e : list) {
      if (e < 0 || at(e) + 1 >= dof_start.size())
        throw Error(cat("unknowns_plan: element ", e, " outside the ", dof_start.size() - 1, " elements' unknowns"));
      for (index_t i = dof_start[at(e)]; i < dof_start[at(e) + 1]; ++i) into.push_back(i);
    }
  };
  for (const HaloPlan::Neighbour& n : elements.neighbours) {
    HaloPlan::Neighbour m;
    m.part = n.part;
    expand(n.send, m.send);
    expand(n.receive, m.receive);
    out.neighbours.push_back(std::move(m));
  }
  return out;
}

template <class Real>
DistributedCsrOperator<Real>::DistributedCsrOperator(const CsrMatrix<Real>& matrix, index_t owned, const HaloPlan& plan,
                                                     std::shared_ptr<const Communicator> communicator)
    : matrix_(matrix), owned_(owned), communicator_(std::move(communicator)) {
  if (owned < 0 || owned > matrix.rows || owned > matrix.cols)
    throw Error(cat("distributed operator: ", owned, " owned unknowns for a local matrix of ", matrix.rows, " x ", matrix.cols));
  if (!communicator_) throw Error("distributed operator: no communicator");
  std::vector<index_t> send, receive;
  send_offset_.push_back(0);
  receive_offset_.push_back(0);
  for (const HaloPlan::Neighbour& n : plan.neighbours) {
    if (n.part < 0 || n.part >= communicator_->size() || n.part == communicator_->rank())
      throw Error(cat("distributed operator: a neighbour ", n.part, " of rank ", communicator_->rank(), " of ", communicator_->size()));
    for (const index_t i : n.send)
      if (i < 0 || i >= owned) throw Error(cat("distributed operator: sends unknown ", i, ", not one of the ", owned, " owned"));
    for (const index_t i : n.receive)
      if (i < owned || i >= matrix.cols)
        throw Error(cat("distributed operator: receives unknown ", i, ", not a ghost (", owned, " to ", matrix.cols - 1, ")"));
    neighbour_rank_.push_back(n.part);
    send.insert(send.end(), n.send.begin(), n.send.end());
    receive.insert(receive.end(), n.receive.begin(), n.receive.end());
    send_offset_.push_back(static_cast<index_t>(send.size()));
    receive_offset_.push_back(static_cast<index_t>(receive.size()));
  }
  const Space space = matrix.space();
  send_index_ = Array<index_t>(space, send);
  receive_index_ = Array<index_t>(space, receive);
  local_ = Array<Real>(space, std::vector<Real>(at(matrix.cols), Real(0)));
  send_values_ = Array<Real>(space, static_cast<index_t>(send.size()));
  receive_values_ = Array<Real>(space, static_cast<index_t>(receive.size()));
  send_host_ = PinnedBuffer<Real>(send.size());
  receive_host_ = PinnedBuffer<Real>(receive.size());
}

template <class Real>
View<const Real> DistributedCsrOperator<Real>::with_ghosts(Backend backend, View<const Real> x) const {
  if (x.size() != owned_) throw Error(cat("distributed operator: x has ", x.size(), " entries, the rank owns ", owned_));
  if (space_of(backend) != local_.space()) throw Error("distributed operator: the backend is not the matrix's space");
  View<Real> local = local_.view();
  copy<Real>(backend, x, View<Real>{local.data, owned_});
  if (!neighbour_rank_.empty()) {
    gather<Real>(backend, send_index_.view(), x, send_values_.view());
    copy_bytes(send_host_.data(), Space::host, send_values_.data(), send_values_.space(), send_host_.bytes());
    std::vector<Communicator::Message> sends, receives;
    for (std::size_t k = 0; k < neighbour_rank_.size(); ++k) {
      sends.push_back({neighbour_rank_[k], send_host_.data() + send_offset_[k], sizeof(Real) * at(send_offset_[k + 1] - send_offset_[k])});
      receives.push_back(
          {neighbour_rank_[k], receive_host_.data() + receive_offset_[k], sizeof(Real) * at(receive_offset_[k + 1] - receive_offset_[k])});
    }
    communicator_->start(sends, receives)->wait();
    copy_bytes(receive_values_.data(), receive_values_.space(), receive_host_.data(), Space::host, receive_host_.bytes());
    scatter<Real>(backend, receive_index_.view(), receive_values_.view(), local);
  }
  return local;
}

template <class Real>
void DistributedCsrOperator<Real>::apply(Backend backend, View<const Real> x, View<Real> y) const {
  spmv_rows<Real>(backend, matrix_, owned_, with_ghosts(backend, x), y);
}

template class DistributedCsrOperator<float>;
template class DistributedCsrOperator<double>;

}  // namespace flowdg::linalg
