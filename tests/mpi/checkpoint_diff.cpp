// flowdg_checkpoint_diff A.h5 B.h5 [TOLERANCE]: whether two checkpoints hold the same state, for the
// distributed-run tests (same_answer.sh, restart_on_other_ranks.sh): the same time, step, order,
// mesh and layout, and coefficients whose largest difference relative to B's largest magnitude is
// at most TOLERANCE (default 0: equal bits). Prints the difference; exit 0 if within, 1 if not, 2 on
// a file that is not a checkpoint.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flowdg/core/error.hpp"
#include "flowdg/io/checkpoint.hpp"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s A.h5 B.h5 [TOLERANCE]\n", argv[0]);
    return 2;
  }
  try {
    const flowdg::Checkpoint a = flowdg::read_checkpoint(argv[1]), b = flowdg::read_checkpoint(argv[2]);
    const double tolerance = argc == 4 ? std::atof(argv[3]) : 0.0;
    std::string problems;
    if (a.step != b.step) problems += flowdg::cat(" step ", a.step, " vs ", b.step, ";");
    if (a.time != b.time) problems += flowdg::cat(" time ", a.time, " vs ", b.time, ";");
    if (a.order != b.order) problems += flowdg::cat(" order ", a.order, " vs ", b.order, ";");
    if (a.n_elements != b.n_elements || a.mesh_hash != b.mesh_hash) problems += " a different mesh;";
    if (a.coefficients.size() != b.coefficients.size())
      problems += flowdg::cat(" ", a.coefficients.size(), " vs ", b.coefficients.size(), " coefficients;");
    if (!problems.empty()) {
      std::printf("checkpoints differ:%s\n", problems.c_str());
      return 1;
    }
    double largest = 0, difference = 0;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < a.coefficients.size(); ++i) {
      largest = std::max(largest, std::abs(b.coefficients[i]));
      const double d = std::abs(a.coefficients[i] - b.coefficients[i]);
      if (!(d == 0)) ++differing;  // NaN counts
      difference = std::max(difference, std::isnan(d) ? INFINITY : d);
    }
    const double relative = largest > 0 ? difference / largest : difference;
    std::printf("step %lld, t = %.17g: %zu of %zu coefficients differ, largest difference %.3e relative to the largest value\n", a.step,
                a.time, differing, a.coefficients.size(), relative);
    return relative <= tolerance ? 0 : 1;
  } catch (const flowdg::Error& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
}
