// The distributed runs' communicator under mpirun (ctest runs this on 3 ranks, --oversubscribe):
// every rank partitions the same mesh the same way (METIS with a fixed seed, or slabs), holds its
// part with its ghost layer (mesh/partition.hpp), and after one halo exchange every ghost holds its
// owner's values; the reductions give every rank the global result. Exit code 0 on every rank when
// all checks pass.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/parallel/communicator_mpi.hpp"

using namespace flowdg;

namespace {

int failures = 0;

void expect(bool condition, const char* what, int rank) {
  if (!condition) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
    ++failures;
  }
}

double value_of(index_t global, int c) { return 1000.0 * static_cast<double>(global) + c + 0.25; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const auto world = mpi_communicator();
    const int rank = world->rank(), parts = world->size();
    const Mesh mesh = box_tetrahedra(1, 1, 1, 5, 5, 4);
    const Connectivity connectivity = build_connectivity(mesh);
    std::vector<int> assignment(static_cast<std::size_t>(mesh.n_elements()));
    if (metis_available() && parts > 1) {
      PartitionOptions options;
      options.parts = parts;
      assignment = partition_mesh(mesh, connectivity, options).part;
    } else {
      for (index_t e = 0; e < mesh.n_elements(); ++e) assignment[static_cast<std::size_t>(e)] = static_cast<int>(e * parts / mesh.n_elements());
    }
    const MeshPart held = extract_part(mesh, connectivity, assignment, rank);
    const HaloPlan plan = make_halo_plan(held);
    expect(parts == 1 || !plan.neighbours.empty(), "a part without neighbours", rank);
    // Owned elements carry their values, ghosts a marker; after the exchange the ghosts carry their owners'.
    const int width = 3;
    std::vector<double> data(static_cast<std::size_t>(held.mesh.n_elements()) * width, -1.0);
    for (index_t e = 0; e < held.n_owned; ++e)
      for (int c = 0; c < width; ++c) data[static_cast<std::size_t>(e) * width + c] = value_of(held.global_element[static_cast<std::size_t>(e)], c);
    world->exchange(plan, data, width);
    for (index_t e = 0; e < held.mesh.n_elements(); ++e)
      for (int c = 0; c < width; ++c)
        expect(data[static_cast<std::size_t>(e) * width + c] == value_of(held.global_element[static_cast<std::size_t>(e)], c),
               "an element's value after the exchange", rank);
    // Reductions: the owned counts add up to the mesh; the smallest rank is 0; a vector sum.
    expect(world->sum(static_cast<double>(held.n_owned)) == static_cast<double>(mesh.n_elements()), "sum of owned elements", rank);
    expect(world->min(static_cast<double>(rank)) == 0.0, "min of ranks", rank);
    std::vector<double> v = {1.0, static_cast<double>(rank)};
    world->sum(v);
    expect(v[0] == parts && v[1] == parts * (parts - 1) / 2.0, "vector sum", rank);
    if (rank == 0) std::printf("halo exchange on %d ranks: %s\n", parts, failures == 0 ? "ok" : "FAILED");
  }
  const int local = failures;
  int total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
