// The CPU backend reproduces the stored pre-optimisation reference states (reference_states.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "reference_states.hpp"

using namespace flowdg;
using namespace flowdg::testing;

TEST(ReferenceStates, CpuReproducesTheStoredStatesTo1e12) {
  const bool write = std::getenv("FLOWDG_WRITE_REFERENCE_STATES") != nullptr;
  for (const ReferenceCase& c : reference_cases()) {
    const std::vector<double> state = run_reference_case(c, Backend::cpu);
    if (write) {
      write_reference(reference_path(c), state);
      std::printf("wrote %s (%zu values)\n", reference_path(c).c_str(), state.size());
      continue;
    }
    const std::vector<double> reference = read_reference(reference_path(c));
    const double difference = relative_difference(state, reference);
    EXPECT_LE(difference, 1e-12) << c.name;
    std::printf("%-26s max |cpu - reference| / max |reference| = %.2e\n", c.name, difference);
  }
  if (write) GTEST_SKIP() << "reference states written, nothing compared";
}

// The same states through the core's operator: its triangle group runs the tuned kernels on the
// core's data (element groups, face numbering, flux array), with the limiter and positivity.
TEST(ReferenceStates, TheCoresTunedTriangleGroupReproducesTheStoredStatesTo1e12) {
  for (const ReferenceCase& c : reference_cases()) {
    const double difference = relative_difference(run_reference_case_through_core(c, Backend::cpu), read_reference(reference_path(c)));
    EXPECT_LE(difference, 1e-12) << c.name;
    std::printf("%-26s core: max |cpu - reference| / max |reference| = %.2e\n", c.name, difference);
    // From the same initial state (the engines' projections use different rules): the same bits
    // as the stand-alone solver, whose kernels the core's group runs.
    ReferenceCase projection_only = c;
    projection_only.steps = 0;
    const std::vector<double> initial = run_reference_case(projection_only, Backend::cpu);
    EXPECT_EQ(run_reference_case_through_core(c, Backend::cpu, "automatic", "automatic", true, &initial),
              run_reference_case(c, Backend::cpu))
        << c.name;
  }
}
