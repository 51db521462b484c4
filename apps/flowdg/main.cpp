// flowdg: the command-line program.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/module_loading.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/core/signals.hpp"
#if defined(FLOWDG_HAVE_MPI)
#include "flowdg/parallel/communicator_mpi.hpp"
#endif

namespace {

/// An error's report. In a distributed run an error every rank reaches together (a non-physical
/// state, found by a collective check; an interruption, agreed on every step) is printed by rank 0
/// and every rank exits with its code; any other may have hit one rank only, while the others wait
/// for it in a collective: it is printed with its rank and MPI_Abort ends every rank.
int report(const char* what, int code, bool collective) {
  const flowdg::Communicator& world = *flowdg::cli::world();
  if (world.size() == 1) {
    std::fprintf(stderr, "flowdg: error: %s\n", what);
    return code;
  }
  if (collective) {
    if (world.rank() == 0) std::fprintf(stderr, "flowdg: error: %s\n", what);
    return code;
  }
  std::fprintf(stderr, "flowdg: error (rank %d of %d): %s\n", world.rank(), world.size(), what);
  std::fflush(stderr);
  world.abort(code);
  return code;  // not reached
}

}  // namespace

int main(int argc, char** argv) {
  flowdg::prefer_eager_module_loading();  // before anything initialises CUDA (backend/module_loading.hpp)
#if defined(FLOWDG_HAVE_MPI)
  // Started by mpirun: one rank per process, each on the GPU of its node-local rank.
  std::optional<flowdg::MpiSession> mpi;
  if (flowdg::launched_by_mpi()) {
    mpi.emplace(argc, argv);
    flowdg::cli::set_world(flowdg::mpi_communicator());
    if (flowdg::cli::world()->size() > 1) flowdg::select_cuda_device(flowdg::node_local_rank());
  }
#else
  // Started by mpirun with several processes, a build without MPI would run the whole case once per
  // process, all writing the same files.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* size = std::getenv(name); size != nullptr && std::atoi(size) > 1) {
      std::fprintf(stderr, "flowdg: error: started by mpirun with %s processes, but this flowdg was built without MPI "
                           "(Debian: apt-get install libopenmpi-dev, then rebuild)\n", size);
      return 2;
    }
#endif
  // Line-buffered output also into a pipe or a file: a run killed from outside (timeout, a batch
  // system) keeps every line it printed, as on a terminal.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"flowdg: GPU-first high-order discontinuous Galerkin solver"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flowdg 0.1.0");
  flowdg::cli::add_info_command(app);
  flowdg::cli::add_mesh_commands(app);
  flowdg::cli::add_run_commands(app);
  flowdg::cli::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // Prints the usage or the problem; --help and --version exit 0, every command-line error 2.
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const flowdg::NumericalError& error) {
    return report(error.what(), error.exit_code(), true);
  } catch (const flowdg::Interrupted& error) {
    return report(error.what(), error.exit_code(), true);
  } catch (const flowdg::Error& error) {
    return report(error.what(), error.exit_code(), false);
  } catch (const std::exception& error) {
    return report(error.what(), 1, false);
  }
  return 0;
}
