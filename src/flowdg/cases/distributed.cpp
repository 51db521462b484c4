#include "flowdg/cases/distributed.hpp"

#include <algorithm>
#include <cstdio>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/io/checkpoint.hpp"

namespace flowdg {

namespace {

constexpr int n_keys = 2 * (static_cast<int>(Shape::hexahedron) + 1);

int key_of(const dg::Groups& groups, index_t element) {
  const dg::ElementGroup& group = groups.element_groups[static_cast<std::size_t>(groups.group_of[static_cast<std::size_t>(element)])];
  return 2 * static_cast<int>(group.shape) + static_cast<int>(group.geometry);
}

}  // namespace

void distribute_case(Case& problem, std::shared_ptr<const Communicator> communicator, int seed) {
  const Communicator& comm = *communicator;
  const int ranks = comm.size();
  if (ranks == 1 || problem.parallel != nullptr) return;  // one rank, or a partitioned mesh read part by part
  const Mesh& mesh = problem.mesh;
  if (mesh.n_elements() < ranks)
    throw InputError(cat("a run on ", ranks, " ranks needs at least as many elements; ", mesh.source, " has ", mesh.n_elements()));
  // Rank 0 partitions; its failure reaches every rank as an empty assignment (no rank waits).
  std::vector<int> part;
  std::string failure;
  Partition statistics;
  if (comm.rank() == 0) {
    try {
      PartitionOptions options;
      options.parts = ranks;
      options.order = problem.options.order;
      options.seed = seed;
      statistics = partition_mesh(mesh, problem.connectivity, options);
      part = statistics.part;
    } catch (const Error& error) {
      failure = error.what();
      part.clear();
    }
  }
  comm.broadcast(part, 0);
  if (part.empty()) throw InputError(comm.rank() == 0 ? failure : "partitioning failed on rank 0 (its message says why)");
  const GhostLayers layers = dg::required_ghost_layers(problem.options);
  MeshPart held = extract_part(mesh, problem.connectivity, part, comm.rank(), layers);
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, "imbalance %.3f, %lld cut faces", statistics.imbalance, static_cast<long long>(statistics.cut_faces));
  const std::uint64_t hash = mesh_hash(mesh);
  const std::string source = mesh.source;
  const index_t elements = mesh.n_elements();
  adopt_part(problem, std::move(held), std::move(communicator), elements, hash, source,
             cat("METIS k-way at p = ", problem.options.order, ": ", numbers));
}

void adopt_part(Case& problem, MeshPart held, std::shared_ptr<const Communicator> communicator, index_t global_elements,
                std::uint64_t hash, const std::string& source, const std::string& how) {
  const Communicator& comm = *communicator;
  auto parallel = std::make_shared<Parallel>();
  parallel->communicator = communicator;
  parallel->global_elements = global_elements;
  parallel->mesh_hash = hash;
  parallel->mesh_source = source;
  parallel->layers = held.layers;
  parallel->global_element = held.global_element;
  parallel->n_owned = held.n_owned;
  auto distribution = std::make_shared<Distribution>();
  distribution->communicator = communicator;
  distribution->halo = make_halo_plan(held);
  distribution->n_owned = held.n_owned;
  // The whole mesh's curved orders per shape: every rank's owned elements'.
  distribution->curved_order_by_shape = dg::curved_orders_by_shape(held.mesh, held.n_owned);
  for (int& order : distribution->curved_order_by_shape) order = static_cast<int>(comm.max(order));
  // The ghost layer's outside: extrapolation (any finite flux does; the ghosts there are overwritten).
  const int ghost_tag = held.mesh.require_tag(ghost_boundary_name);
  problem.options.boundary.resize(held.mesh.boundary_names.size());
  problem.options.boundary[static_cast<std::size_t>(ghost_tag)] = dg::BoundarySpec{};
  problem.options.boundary[static_cast<std::size_t>(ghost_tag)].kind = physics::BoundaryKind::outflow;
  problem.options.distribution = distribution;
  problem.connectivity = build_connectivity(held.mesh);
  join_periodic(held, problem.connectivity);
  orient_as_whole_mesh(held, problem.connectivity);
  problem.mesh = std::move(held.mesh);
  const index_t ghosts = problem.mesh.n_elements() - parallel->n_owned;
  const double largest_ghosts = comm.max(static_cast<double>(ghosts)), all_ghosts = comm.sum(static_cast<double>(ghosts));
  if (comm.rank() == 0) {
    char share[32];
    std::snprintf(share, sizeof share, "%.2f%%", 100.0 * all_ghosts / static_cast<double>(parallel->global_elements));
    parallel->summary = cat(how, "; ghost layers ", describe(parallel->layers), ": ", static_cast<long long>(all_ghosts),
                            " ghosts in all (", share, " of the mesh computed twice), at most ", static_cast<long long>(largest_ghosts),
                            " on a rank");
  }
  problem.parallel = parallel;
}

GlobalLayout::GlobalLayout(const Case& problem, const dg::Operator& op) : problem_(&problem), op_(&op) {
  const dg::Groups& groups = op.groups();
  const index_t n = static_cast<index_t>(groups.group_of.size());
  local_.resize(static_cast<std::size_t>(n));
  count_.assign(n_keys, 0);
  const Parallel* parallel = problem.parallel.get();
  if (parallel == nullptr) {
    // One rank: the operator's own layout.
    for (index_t e = 0; e < n; ++e) {
      const int key = key_of(groups, e);
      local_[static_cast<std::size_t>(e)] = {key, count_[static_cast<std::size_t>(key)]++};
    }
    return;
  }
  std::vector<long long> mine;
  mine.reserve(static_cast<std::size_t>(parallel->n_owned));
  for (index_t e = 0; e < parallel->n_owned; ++e)
    mine.push_back((static_cast<long long>(parallel->global_element[static_cast<std::size_t>(e)]) << 4) | key_of(groups, e));
  std::vector<long long> all = parallel->communicator->all_gather(mine);
  const index_t N = parallel->global_elements;
  if (static_cast<index_t>(all.size()) != N)
    throw Error(cat("the ranks own ", all.size(), " elements of the mesh's ", N));
  std::vector<signed char> key(static_cast<std::size_t>(N), -1);
  for (const long long packed : all) key[static_cast<std::size_t>(packed >> 4)] = static_cast<signed char>(packed & 15);
  std::vector<index_t> index(static_cast<std::size_t>(N));
  for (index_t g = 0; g < N; ++g) {
    FLOWDG_ASSERT(key[static_cast<std::size_t>(g)] >= 0, "element ", g, " is owned by no rank");
    index[static_cast<std::size_t>(g)] = count_[static_cast<std::size_t>(key[static_cast<std::size_t>(g)])]++;
  }
  for (index_t e = 0; e < n; ++e) {
    const index_t g = parallel->global_element[static_cast<std::size_t>(e)];
    local_[static_cast<std::size_t>(e)] = {key[static_cast<std::size_t>(g)], index[static_cast<std::size_t>(g)]};
  }
  if (parallel->root()) {
    all_ = std::move(all);
    index_of_ = std::move(index);
  }
}

std::size_t GlobalLayout::offset(int key, int order, int n_variables) const {
  std::size_t out = 0;
  for (int k = 0; k < key; ++k)
    out += static_cast<std::size_t>(n_variables) * static_cast<std::size_t>(n_basis(static_cast<Shape>(k / 2), order)) *
           static_cast<std::size_t>(count_[static_cast<std::size_t>(k)]);
  return out;
}

namespace {

/// Per local element: its first value in coefficients()' layout and the stride between its rows.
struct LocalPlace {
  std::vector<std::size_t> first;
  std::vector<index_t> stride;
  std::vector<int> rows;
};

LocalPlace local_places(const dg::Groups& groups, int order, int n_variables) {
  LocalPlace out;
  const std::size_t n = groups.group_of.size();
  out.first.resize(n);
  out.stride.resize(n);
  out.rows.resize(n);
  std::vector<std::size_t> group_first(groups.element_groups.size(), 0);
  std::size_t running = 0;
  for (std::size_t g = 0; g < groups.element_groups.size(); ++g) {
    group_first[g] = running;
    running += static_cast<std::size_t>(n_variables) * static_cast<std::size_t>(n_basis(groups.element_groups[g].shape, order)) *
               static_cast<std::size_t>(groups.element_groups[g].size());
  }
  for (std::size_t e = 0; e < n; ++e) {
    const int g = groups.group_of[e];
    const dg::ElementGroup& group = groups.element_groups[static_cast<std::size_t>(g)];
    out.first[e] = group_first[static_cast<std::size_t>(g)] + static_cast<std::size_t>(groups.index_in_group[e]);
    out.stride[e] = group.size();
    out.rows[e] = n_variables * n_basis(group.shape, order);
  }
  return out;
}

}  // namespace

std::vector<double> GlobalLayout::gather(const std::vector<double>& local, int order) const {
  const Parallel* parallel = problem_->parallel.get();
  if (parallel == nullptr) return local;
  const int NV = op_->n_variables();
  const LocalPlace place = local_places(op_->groups(), order, NV);
  std::vector<double> mine;
  for (index_t e = 0; e < parallel->n_owned; ++e)
    for (int r = 0; r < place.rows[static_cast<std::size_t>(e)]; ++r)
      mine.push_back(local[place.first[static_cast<std::size_t>(e)] + static_cast<std::size_t>(r) * static_cast<std::size_t>(place.stride[static_cast<std::size_t>(e)])]);
  const std::vector<double> received = parallel->communicator->gather(mine, 0);
  if (!parallel->root()) return {};
  std::vector<std::size_t> key_first(n_keys);
  for (int k = 0; k < n_keys; ++k) key_first[static_cast<std::size_t>(k)] = offset(k, order, NV);
  const std::size_t total = offset(n_keys, order, NV);
  std::vector<double> out(total, 0.0);
  std::size_t cursor = 0;
  for (const long long packed : all_) {
    const index_t g = static_cast<index_t>(packed >> 4);
    const int key = static_cast<int>(packed & 15);
    const int rows = NV * n_basis(static_cast<Shape>(key / 2), order);
    const std::size_t first = key_first[static_cast<std::size_t>(key)] + static_cast<std::size_t>(index_of_[static_cast<std::size_t>(g)]);
    const std::size_t stride = static_cast<std::size_t>(count_[static_cast<std::size_t>(key)]);
    for (int r = 0; r < rows; ++r) out[first + static_cast<std::size_t>(r) * stride] = received[cursor++];
  }
  FLOWDG_ASSERT(cursor == received.size(), "gathered ", received.size(), " values, placed ", cursor);
  return out;
}

std::vector<double> GlobalLayout::scatter(const std::vector<double>& global, int order) const {
  if (problem_->parallel == nullptr) return global;
  const int NV = op_->n_variables();
  const LocalPlace place = local_places(op_->groups(), order, NV);
  std::vector<std::size_t> key_first(n_keys);
  for (int k = 0; k < n_keys; ++k) key_first[static_cast<std::size_t>(k)] = offset(k, order, NV);
  std::size_t total = 0;
  for (std::size_t e = 0; e < local_.size(); ++e) total += static_cast<std::size_t>(place.rows[e]);
  std::vector<double> out(total, 0.0);
  for (std::size_t e = 0; e < local_.size(); ++e) {
    const Local& l = local_[e];
    const std::size_t first = key_first[static_cast<std::size_t>(l.key)] + static_cast<std::size_t>(l.index);
    const std::size_t stride = static_cast<std::size_t>(count_[static_cast<std::size_t>(l.key)]);
    for (int r = 0; r < place.rows[e]; ++r) {
      const std::size_t from = first + static_cast<std::size_t>(r) * stride;
      if (from >= global.size()) throw InputError(cat("the checkpoint holds ", global.size(), " values: too few for this mesh at p = ", order));
      out[place.first[e] + static_cast<std::size_t>(r) * static_cast<std::size_t>(place.stride[e])] = global[from];
    }
  }
  return out;
}

dg::WallSamples gather_wall_samples(const Case& problem, const dg::WallSamples& samples) {
  const Parallel* parallel = problem.parallel.get();
  if (parallel == nullptr) return samples;
  const int NV = samples.n_variables > 0 ? samples.n_variables : problem.mesh.dimension + 2;
  const std::size_t width = 9 + 2 * static_cast<std::size_t>(NV);
  std::vector<double> mine;
  mine.reserve(samples.size() * width);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    mine.push_back(samples.tag[i]);
    mine.push_back(static_cast<double>(parallel->global_element[static_cast<std::size_t>(samples.element[i])]));
    for (const Point3& p : {samples.x[i], samples.normal[i]}) mine.insert(mine.end(), {p.x, p.y, p.z});
    mine.push_back(samples.weight[i]);
    for (int v = 0; v < NV; ++v) mine.push_back(samples.state[i * static_cast<std::size_t>(NV) + static_cast<std::size_t>(v)]);
    for (int v = 0; v < NV; ++v) mine.push_back(samples.viscous_flux[i * static_cast<std::size_t>(NV) + static_cast<std::size_t>(v)]);
  }
  const std::vector<double> all = parallel->communicator->gather(mine, 0);
  dg::WallSamples out;
  out.n_variables = NV;
  for (std::size_t at = 0; at + width <= all.size(); at += width) {
    const double* row = &all[at];
    out.tag.push_back(static_cast<int>(row[0]));
    out.element.push_back(static_cast<index_t>(row[1]));
    out.x.push_back({row[2], row[3], row[4]});
    out.normal.push_back({row[5], row[6], row[7]});
    out.weight.push_back(row[8]);
    out.state.insert(out.state.end(), row + 9, row + 9 + NV);
    out.viscous_flux.insert(out.viscous_flux.end(), row + 9 + NV, row + 9 + 2 * NV);
  }
  return out;
}

}  // namespace flowdg
