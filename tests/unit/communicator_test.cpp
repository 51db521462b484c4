// The serial Communicator (parallel/communicator.hpp): one rank's reductions return their argument,
// an empty halo exchanges nothing, and a halo with neighbours is refused (it needs mpirun). The MPI
// one is tested under mpirun (tests/mpi).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/parallel/communicator.hpp"

using namespace flowdg;

TEST(Communicator, OneRankReducesToItsOwnValuesAndRefusesAHalo) {
  const auto one = serial_communicator();
  EXPECT_EQ(one->rank(), 0);
  EXPECT_EQ(one->size(), 1);
  EXPECT_EQ(one->min(2.5), 2.5);
  EXPECT_EQ(one->sum(-1.5), -1.5);
  std::vector<double> values = {1.0, 2.0}, data = {3.0, 4.0};
  one->sum(values);
  EXPECT_EQ(values, (std::vector<double>{1.0, 2.0}));
  one->exchange(HaloPlan{}, data, 1);
  EXPECT_EQ(data, (std::vector<double>{3.0, 4.0}));
  HaloPlan plan;
  plan.neighbours.push_back({1, {0}, {1}});
  try {
    one->exchange(plan, data, 1);
    ADD_FAILURE() << "a halo with neighbours was exchanged on one rank";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("needs a distributed run"), std::string::npos) << error.what();
  }
}
