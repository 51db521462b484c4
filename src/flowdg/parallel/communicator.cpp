#include "flowdg/parallel/communicator.hpp"

#include <cstdlib>

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
  void broadcast(std::vector<int>&, int) const override {}
  std::vector<double> gather(const std::vector<double>& values, int) const override { return values; }
  std::vector<long long> all_gather(const std::vector<long long>& values) const override { return values; }
  void barrier() const override {}
  [[noreturn]] void abort(int code) const override { std::exit(code); }
  std::unique_ptr<Pending> start(const std::vector<Message>& sends, const std::vector<Message>& receives) const override {
    if (!sends.empty() || !receives.empty())
      throw InputError(cat("an exchange with ", sends.size() + receives.size(), " messages needs a distributed run (mpirun), not one rank"));
    struct Done final : Pending {
      void wait() override {}
    };
    return std::make_unique<Done>();
  }
  std::string describe() const override { return "one rank"; }
  void exchange(const HaloPlan& plan, std::vector<double>&, int) const override {
    if (!plan.neighbours.empty())
      throw InputError(cat("a halo with ", plan.neighbours.size(), " neighbouring parts needs a distributed run (mpirun), not one rank"));
  }
};

}  // namespace

std::unique_ptr<Communicator> serial_communicator() { return std::make_unique<Serial>(); }

}  // namespace flowdg
