#include "flowdg/parallel/communicator.hpp"

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

class Serial final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  double min(double value) const override { return value; }
  double sum(double value) const override { return value; }
  void sum(std::vector<double>&) const override {}
  void exchange(const HaloPlan& plan, std::vector<double>&, int) const override {
    if (!plan.neighbours.empty())
      throw InputError(cat("a halo with ", plan.neighbours.size(), " neighbouring parts needs a distributed run (mpirun), not one rank"));
  }
};

}  // namespace

std::unique_ptr<Communicator> serial_communicator() { return std::make_unique<Serial>(); }

}  // namespace flowdg
