#include "flowdg/poly/poly_partition.hpp"

#include <algorithm>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/partition.hpp"

namespace flowdg::poly {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

void agglomerate_graph(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate, index_t n,
                       std::vector<index_t>& start, std::vector<index_t>& neighbours) {
  if (static_cast<index_t>(agglomerate.size()) != fine.n_elements())
    throw InputError(cat("agglomerate_graph: ", agglomerate.size(), " agglomerates for ", fine.n_elements(), " fine elements"));
  std::vector<std::vector<index_t>> adjacent(at(n));
  for (const Face& face : connectivity.faces) {
    if (face.element_p < 0) continue;
    const index_t a = agglomerate[at(face.element_m)], b = agglomerate[at(face.element_p)];
    if (a == b) continue;
    adjacent[at(a)].push_back(b);
    adjacent[at(b)].push_back(a);
  }
  start.assign(at(n) + 1, 0);
  neighbours.clear();
  for (index_t a = 0; a < n; ++a) {
    auto& list = adjacent[at(a)];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    neighbours.insert(neighbours.end(), list.begin(), list.end());
    start[at(a) + 1] = static_cast<index_t>(neighbours.size());
  }
}

std::vector<int> partition_agglomerates(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate,
                                        index_t n, int parts, int seed) {
  std::vector<index_t> start, neighbours;
  agglomerate_graph(fine, connectivity, agglomerate, n, start, neighbours);
  std::vector<double> weight(at(n), 0.0);
  for (const index_t a : agglomerate) weight[at(a)] += 1;
  return partition_graph(start, neighbours, weight, parts, seed, true, cat("the ", n, " agglomerates of ", fine.source));
}

PolyPart extract_poly_part(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate, index_t n,
                           const std::vector<int>& rank_of, int k) {
  if (static_cast<index_t>(rank_of.size()) != n) throw InputError(cat("extract_poly_part: ", rank_of.size(), " ranks for ", n, " agglomerates"));
  std::vector<index_t> start, neighbours;
  agglomerate_graph(fine, connectivity, agglomerate, n, start, neighbours);
  // owned, then ghosts (face neighbours of owned ones held by other ranks), each ascending
  std::vector<index_t> local(at(n), -1);
  PolyPart part;
  for (index_t a = 0; a < n; ++a)
    if (rank_of[at(a)] == k) {
      local[at(a)] = static_cast<index_t>(part.global.size());
      part.global.push_back(a);
    }
  part.n_owned = static_cast<index_t>(part.global.size());
  if (part.n_owned == 0) throw InputError(cat("extract_poly_part: rank ", k, " owns no agglomerate"));
  std::vector<index_t> ghosts;
  for (index_t i = 0; i < part.n_owned; ++i)
    for (index_t j = start[at(part.global[at(i)])]; j < start[at(part.global[at(i)]) + 1]; ++j)
      if (rank_of[at(neighbours[at(j)])] != k) ghosts.push_back(neighbours[at(j)]);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  for (const index_t g : ghosts) {
    local[at(g)] = static_cast<index_t>(part.global.size());
    part.global.push_back(g);
  }
  part.n_ghost = static_cast<index_t>(ghosts.size());
  for (const index_t g : part.global) part.owner.push_back(rank_of[at(g)]);
  // the halo: owned agglomerates adjacent to rank r's are r's ghosts (ascending on both sides)
  {
    std::vector<std::vector<index_t>> send(rank_of.empty() ? 0 : at(*std::max_element(rank_of.begin(), rank_of.end())) + 1);
    for (index_t i = 0; i < part.n_owned; ++i)
      for (index_t j = start[at(part.global[at(i)])]; j < start[at(part.global[at(i)]) + 1]; ++j) {
        const int r = rank_of[at(neighbours[at(j)])];
        if (r != k && (send[at(r)].empty() || send[at(r)].back() != i)) send[at(r)].push_back(i);
      }
    for (std::size_t r = 0; r < send.size(); ++r) {
      if (send[r].empty()) continue;
      HaloPlan::Neighbour neighbour;
      neighbour.part = static_cast<int>(r);
      neighbour.send = std::move(send[r]);
      for (index_t g = part.n_owned; g < part.n_owned + part.n_ghost; ++g)
        if (part.owner[at(g)] == static_cast<int>(r)) neighbour.receive.push_back(g);
      part.halo.neighbours.push_back(std::move(neighbour));
    }
  }
  // the held fine elements (owned and ghost agglomerates) and one ring around them: extract_part's
  // part 0 with a ghost layer of one face ring
  std::vector<int> held(at(fine.n_elements()), 1);
  for (index_t e = 0; e < fine.n_elements(); ++e)
    if (local[at(agglomerate[at(e)])] >= 0) held[at(e)] = 0;
  MeshPart mesh_part = extract_part(fine, connectivity, held, 0, GhostLayers{});
  part.fine = std::move(mesh_part.mesh);
  part.fine_global = mesh_part.global_element;
  const index_t held_agglomerates = static_cast<index_t>(part.global.size());
  index_t filler = held_agglomerates;
  part.agglomerate.resize(mesh_part.global_element.size());
  for (std::size_t i = 0; i < mesh_part.global_element.size(); ++i) {
    const index_t a = agglomerate[at(mesh_part.global_element[i])];
    part.agglomerate[i] = static_cast<index_t>(i) < mesh_part.n_owned ? local[at(a)] : filler++;
  }
  return part;
}

}  // namespace flowdg::poly
