// The distributed SIPG solve under mpirun (issue 19 item 4; ctest runs this on 2 and 3 ranks): every
// rank builds the whole polytopic mesh and its matrix (the reference) and its own part
// (poly/poly_partition.hpp) with its rows; then
//  - the distributed product (linalg/distributed.hpp: ghosts fetched from their owners) equals the
//    whole matrix's product on the rank's rows, for a vector that is not smooth;
//  - GMRES over the ranks (global sums) with block Jacobi on each rank's blocks reaches the whole
//    system's direct solution;
//  - the errors summed over the ranks are the whole mesh's.
// In 2D (agglomerated triangles) and 3D (agglomerated tetrahedra), advection-diffusion-reaction.
// Exit code 0 on every rank when all checks pass.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/distributed.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/parallel/communicator_mpi.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_partition.hpp"
#include "flowdg/poly/sipg.hpp"

using namespace flowdg;
using namespace flowdg::poly;

namespace {

int failures = 0;

void expect(bool condition, const std::string& what, int rank) {
  if (!condition) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
    ++failures;
  }
}

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

/// -div(a grad u) + b . grad u + c u = f with u = sin(x) cos(y) + z on the whole boundary.
Coefficients problem(int d) {
  Coefficients co;
  co.dimension = d;
  co.diffusion = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < d * d; ++r) out[d * d * q + r] = r % (d + 1) == 0 ? 0.05 * (1 + x[q].x * x[q].x) : 0.0;
  };
  co.advection = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < d; ++r) out[d * q + r] = r == 0 ? 1.0 + 0.2 * x[q].y : -0.5;
  };
  co.reaction = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = 1;
  };
  co.source = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::cos(x[q].x + 2 * x[q].y) + x[q].z;
  };
  co.dirichlet = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::sin(x[q].x) * std::cos(x[q].y) + x[q].z;
  };
  return co;
}

void check(const Mesh& fine, index_t agglomerates, const Communicator& world, const std::shared_ptr<const Communicator>& shared) {
  const int rank = world.rank(), ranks = world.size(), d = fine.dimension;
  const std::string where = cat(d, "D on ", ranks, " ranks: ");
  const Connectivity connectivity = build_connectivity(fine);
  const std::vector<index_t> assignment = agglomerate_metis(fine, connectivity, agglomerates).agglomerate;
  const index_t n = *std::max_element(assignment.begin(), assignment.end()) + 1;
  SipgOptions options;
  options.degree = 2;

  // the whole system and its direct solution, on every rank
  const PolyMesh whole_mesh = build_poly_mesh(fine, connectivity, assignment);
  const Coefficients co = problem(d);
  const SipgDiscretisation whole(whole_mesh, co, options, Backend::cpu);
  const AssembledSystem<double> system = whole.assemble<double>(AssemblyMethod::deterministic);
  const std::vector<double> b = system.rhs.to_host();
  const std::vector<double> exact = linalg::sparse_lu_solve(system.matrix, b);
  std::vector<double> v(static_cast<std::size_t>(whole.dofs())), Av(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::cos(1.7 * static_cast<double>(i)) + 0.1 * static_cast<double>(i % 7);
  {
    const Array<double> v_array(Space::host, v);
    Array<double> Av_array(Space::host, static_cast<index_t>(v.size()));
    linalg::spmv<double>(Backend::cpu, system.matrix, v_array.view(), Av_array.view());
    Av = Av_array.to_host();
  }

  // this rank's part
  const std::vector<int> rank_of = partition_agglomerates(fine, connectivity, assignment, n, ranks);
  const PolyPart part = extract_poly_part(fine, connectivity, assignment, n, rank_of, rank);
  const Connectivity local_connectivity = build_connectivity(part.fine);
  const PolyMesh local_mesh = build_poly_mesh(part.fine, local_connectivity, part.agglomerate);
  SipgOptions local_options = options;
  local_options.owned_elements = part.n_owned;
  const SipgDiscretisation local(local_mesh, co, local_options, Backend::cpu);
  const AssembledSystem<double> local_system = local.assemble<double>(AssemblyMethod::deterministic);
  const index_t owned = local.owned_dofs();
  // per local unknown of an owned or ghost element: its whole-mesh unknown
  std::vector<index_t> global_dof;
  for (index_t j = 0; j < part.n_owned + part.n_ghost; ++j)
    for (index_t i = 0; i < local.dof_start()[at(j) + 1] - local.dof_start()[at(j)]; ++i)
      global_dof.push_back(whole.dof_start()[at(part.global[at(j)])] + i);
  expect(world.sum(static_cast<double>(owned)) == static_cast<double>(whole.dofs()), where + "the owned unknowns add up", rank);

  const linalg::DistributedCsrOperator<double> A(local_system.matrix, owned, linalg::unknowns_plan(part.halo, local.dof_start()), shared);
  expect(ranks == 1 || A.neighbours() > 0, where + "a part without neighbours", rank);
  // the product
  std::vector<double> x_owned(at(owned));
  for (index_t i = 0; i < owned; ++i) x_owned[at(i)] = v[at(global_dof[at(i)])];
  const Array<double> x(Space::host, x_owned);
  Array<double> y(Space::host, owned);
  A.apply(Backend::cpu, x.view(), y.view());
  const std::vector<double> y_host = y.to_host();
  double worst = 0, scale = 0;
  for (index_t i = 0; i < owned; ++i) {
    worst = std::max(worst, std::abs(y_host[at(i)] - Av[at(global_dof[at(i)])]));
    scale = std::max(scale, std::abs(Av[at(global_dof[at(i)])]));
  }
  expect(worst <= 1e-13 * scale, cat(where, "the distributed product differs from the whole matrix's by ", worst, " (scale ", scale, ")"), rank);
  // the ghosts' entries after the exchange are their owners'
  const View<const double> with_ghosts = A.with_ghosts(Backend::cpu, x.view());
  bool ghosts_right = true;
  for (std::size_t i = at(owned); i < global_dof.size(); ++i) ghosts_right = ghosts_right && with_ghosts[static_cast<index_t>(i)] == v[at(global_dof[i])];
  expect(ghosts_right, where + "a ghost's unknown after the exchange", rank);

  // the solve over the ranks
  const linalg::BlockJacobi<double> jacobi(local_system.matrix,
                                           std::vector<index_t>(local.dof_start().begin(), local.dof_start().begin() + part.n_owned + 1));
  linalg::KrylovOptions krylov;
  krylov.relative_tolerance = 1e-13;
  krylov.max_iterations = 5000;
  krylov.global_sum = [&world](std::vector<double>& values) { world.sum(values); };
  Array<double> solution(Space::host, std::vector<double>(at(owned), 0.0));
  const View<const double> rhs{local_system.rhs.data(), owned};
  const linalg::SolveResult result = linalg::gmres<double>(Backend::cpu, A, rhs, solution.view(), jacobi, krylov);
  expect(result.converged, where + linalg::describe(result), rank);
  const std::vector<double> mine = solution.to_host();
  worst = 0, scale = 0;
  for (index_t i = 0; i < owned; ++i) {
    worst = std::max(worst, std::abs(mine[at(i)] - exact[at(global_dof[at(i)])]));
    scale = std::max(scale, std::abs(exact[at(global_dof[at(i)])]));
  }
  worst = world.max(worst);
  expect(worst <= 1e-9 * scale, cat(where, "the distributed solution differs from the direct one by ", worst, " (scale ", scale, ")"), rank);

  // the errors over the ranks (the local solution: owned and ghosts' unknowns, fillers zero)
  const View<const double> local_solution = A.with_ghosts(Backend::cpu, solution.view());
  const std::vector<double> local_vector(local_solution.data, local_solution.data + local_solution.size());
  const auto exact_u = [](std::span<const Point3> p, double* out) {
    for (std::size_t q = 0; q < p.size(); ++q) out[q] = std::sin(p[q].x) * std::cos(p[q].y) + p[q].z;
  };
  const auto exact_gradient = [d](std::span<const Point3> p, double* out) {
    for (std::size_t q = 0; q < p.size(); ++q) {
      out[d * q] = std::cos(p[q].x) * std::cos(p[q].y);
      out[d * q + 1] = -std::sin(p[q].x) * std::sin(p[q].y);
      if (d == 3) out[d * q + 2] = 1;
    }
  };
  const SipgErrorSquares squares = local.error_squares(local_vector, exact_u, exact_gradient);
  std::vector<double> summed{squares.l2, squares.dg};
  world.sum(summed);
  const SipgErrors reference = whole.errors(exact, exact_u, exact_gradient);
  expect(std::abs(std::sqrt(summed[0]) - reference.l2) <= 1e-8 * reference.l2, cat(where, "L2 error ", std::sqrt(summed[0]), " vs ", reference.l2), rank);
  expect(std::abs(std::sqrt(summed[1]) - reference.dg) <= 1e-8 * reference.dg, cat(where, "DG error ", std::sqrt(summed[1]), " vs ", reference.dg), rank);
  if (rank == 0)
    std::printf("%s%lld unknowns, GMRES %d iterations, solution's largest difference %.2e, L2 %.6e (whole %.6e)\n", where.c_str(),
                static_cast<long long>(whole.dofs()), result.iterations, worst, std::sqrt(summed[0]), reference.l2);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const std::shared_ptr<const Communicator> world = mpi_communicator();
    try {
      check(rectangle_triangles(0, 2, 0, 1, 24, 12, TriangleLayout::perturbed, 0.2, 3), 60, *world, world);
      check(box_tetrahedra(1, 1, 1, 5, 5, 5, 0.2, 5), 80, *world, world);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "rank %d: FAILED: %s\n", world->rank(), error.what());
      ++failures;
    }
  }
  const int local = failures;
  int total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
