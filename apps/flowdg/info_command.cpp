// `flowdg info`: what this build contains and what hardware it sees.
#include <cstdio>

#include "commands.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/backend/backend.hpp"

namespace flowdg::cli {

void add_info_command(CLI::App& app) {
  auto* info = app.add_subcommand("info", "Show the build's backends and the devices found");
  info->callback([] {
    std::printf("flowdg 0.1.0\n");
    std::printf("cuda backend compiled: %s\n", cuda_compiled() ? "yes" : "no");
    std::printf("cuda devices: %d\n", cuda_device_count());
    std::printf("%s\n", describe(Backend::cpu).c_str());
    if (cuda_device_count() > 0) std::printf("%s\n", describe(Backend::cuda).c_str());
    std::printf("default backend: %s\n", to_string(default_backend()).c_str());
    std::printf("mesh partitioning (METIS): %s\n", metis_available() ? "yes" : "no (Debian: libmetis-dev)");
#if defined(FLOWDG_HAVE_MPI)
    std::printf("distributed runs (MPI): yes; this process: %s\n", world()->describe().c_str());
#else
    std::printf("distributed runs (MPI): no (Debian: libopenmpi-dev openmpi-bin, then rebuild)\n");
#endif
  });
}

}  // namespace flowdg::cli
