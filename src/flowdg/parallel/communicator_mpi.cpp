#include "flowdg/parallel/communicator_mpi.hpp"

#include <mpi.h>

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(cat("MPI: ", what, " failed (error ", code, ")"));
}

class Mpi final : public Communicator {
 public:
  Mpi() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  double min(double value) const override {
    double out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  double sum(double value) const override {
    double out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  void sum(std::vector<double>& values) const override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void exchange(const HaloPlan& plan, std::vector<double>& data, int width) const override {
    const std::size_t n = plan.neighbours.size(), w = static_cast<std::size_t>(width);
    std::vector<std::vector<double>> outgoing(n), incoming(n);
    std::vector<MPI_Request> requests(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      incoming[i].resize(neighbour.receive.size() * w);
      check(MPI_Irecv(incoming[i].data(), static_cast<int>(incoming[i].size()), MPI_DOUBLE, neighbour.part, 0, MPI_COMM_WORLD,
                      &requests[i]),
            "MPI_Irecv");
    }
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      outgoing[i].reserve(neighbour.send.size() * w);
      for (const index_t e : neighbour.send)
        for (std::size_t c = 0; c < w; ++c) outgoing[i].push_back(data[static_cast<std::size_t>(e) * w + c]);
      check(MPI_Isend(outgoing[i].data(), static_cast<int>(outgoing[i].size()), MPI_DOUBLE, neighbour.part, 0, MPI_COMM_WORLD,
                      &requests[n + i]),
            "MPI_Isend");
    }
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      for (std::size_t k = 0; k < neighbour.receive.size(); ++k)
        for (std::size_t c = 0; c < w; ++c) data[static_cast<std::size_t>(neighbour.receive[k]) * w + c] = incoming[i][k * w + c];
    }
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> mpi_communicator() { return std::make_unique<Mpi>(); }

}  // namespace flowdg
