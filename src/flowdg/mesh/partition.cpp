#include "flowdg/mesh/partition.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/gmsh_writer.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/io/checkpoint.hpp"

#if defined(FLOWDG_HAVE_METIS)
#include <metis.h>
#endif

namespace flowdg {

bool metis_available() {
#if defined(FLOWDG_HAVE_METIS)
  return true;
#else
  return false;
#endif
}

std::vector<double> element_costs(const Mesh& mesh, int order) {
  // The cost of each (shape, geometric order) once: basis size x (volume points + faces x face points).
  std::vector<double> cost_of(static_cast<std::size_t>(element_type_count), 0.0);
  std::vector<double> costs(static_cast<std::size_t>(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const ElementType type = mesh.element_types[static_cast<std::size_t>(e)];
    double& cost = cost_of[static_cast<std::size_t>(type)];
    if (cost == 0) {
      const Shape shape = shape_of(type);
      const int g = geometric_order(type);
      const dg::GeometryKind kind = g > 1 ? dg::GeometryKind::curved : dg::GeometryKind::affine;
      const int volume = dg::volume_rule(shape, kind, order, g).size();
      const int face = n_faces(shape) * dg::face_rule(face_shape(shape), dimension(shape), order, g).size();
      cost = static_cast<double>(n_basis(shape, order)) * (volume + face);
    }
    costs[static_cast<std::size_t>(e)] = cost;
  }
  return costs;
}

namespace {

/// The dual graph in CSR form: element e's neighbours through interior faces.
void dual_graph(const Mesh& mesh, const Connectivity& connectivity, std::vector<index_t>& start, std::vector<index_t>& neighbours) {
  const index_t K = mesh.n_elements();
  start.assign(static_cast<std::size_t>(K) + 1, 0);
  for (const Face& face : connectivity.faces)
    if (face.element_p >= 0 && face.element_p != face.element_m) {
      ++start[static_cast<std::size_t>(face.element_m) + 1];
      ++start[static_cast<std::size_t>(face.element_p) + 1];
    }
  for (index_t e = 0; e < K; ++e) start[static_cast<std::size_t>(e) + 1] += start[static_cast<std::size_t>(e)];
  neighbours.assign(static_cast<std::size_t>(start.back()), 0);
  std::vector<index_t> next(start.begin(), start.end() - 1);
  for (const Face& face : connectivity.faces)
    if (face.element_p >= 0 && face.element_p != face.element_m) {
      neighbours[static_cast<std::size_t>(next[static_cast<std::size_t>(face.element_m)]++)] = face.element_p;
      neighbours[static_cast<std::size_t>(next[static_cast<std::size_t>(face.element_p)]++)] = face.element_m;
    }
}

}  // namespace

namespace {

/// partition_statistics on a dual graph already built.
Partition statistics(const Mesh& mesh, const Connectivity& connectivity, std::vector<int> part, int parts,
                     const std::vector<double>& weights, const std::vector<index_t>& start, const std::vector<index_t>& neighbours) {
  Partition result;
  const index_t K = mesh.n_elements();
  result.load.assign(static_cast<std::size_t>(parts), 0.0);
  result.elements.assign(static_cast<std::size_t>(parts), 0);
  for (index_t e = 0; e < K; ++e) {
    const int p = part[static_cast<std::size_t>(e)];
    result.load[static_cast<std::size_t>(p)] += weights[static_cast<std::size_t>(e)];
    ++result.elements[static_cast<std::size_t>(p)];
  }
  for (const Face& face : connectivity.faces)
    if (face.element_p >= 0 && part[static_cast<std::size_t>(face.element_m)] != part[static_cast<std::size_t>(face.element_p)])
      ++result.cut_faces;
  const double total = std::accumulate(result.load.begin(), result.load.end(), 0.0);
  result.imbalance = total > 0 ? *std::max_element(result.load.begin(), result.load.end()) / (total / parts) : 1.0;
  // Contiguity: one breadth-first search per part from its first element.
  std::vector<char> seen(static_cast<std::size_t>(K), 0);
  std::vector<index_t> queue;
  std::vector<char> part_started(static_cast<std::size_t>(parts), 0);
  for (index_t e = 0; e < K; ++e) {
    if (seen[static_cast<std::size_t>(e)]) continue;
    const int p = part[static_cast<std::size_t>(e)];
    if (part_started[static_cast<std::size_t>(p)]) result.contiguous = false;  // a second piece of part p
    part_started[static_cast<std::size_t>(p)] = 1;
    queue.assign(1, e);
    seen[static_cast<std::size_t>(e)] = 1;
    while (!queue.empty()) {
      const index_t a = queue.back();
      queue.pop_back();
      for (index_t k = start[static_cast<std::size_t>(a)]; k < start[static_cast<std::size_t>(a) + 1]; ++k) {
        const index_t b = neighbours[static_cast<std::size_t>(k)];
        if (!seen[static_cast<std::size_t>(b)] && part[static_cast<std::size_t>(b)] == p) {
          seen[static_cast<std::size_t>(b)] = 1;
          queue.push_back(b);
        }
      }
    }
  }
  result.part = std::move(part);
  return result;
}

}  // namespace

Partition partition_statistics(const Mesh& mesh, const Connectivity& connectivity, std::vector<int> part, int parts,
                               const std::vector<double>& weights) {
  std::vector<index_t> start, neighbours;
  dual_graph(mesh, connectivity, start, neighbours);
  return statistics(mesh, connectivity, std::move(part), parts, weights, start, neighbours);
}

std::vector<int> partition_graph(const std::vector<index_t>& start, const std::vector<index_t>& neighbours,
                                 const std::vector<double>& weights, int parts, int seed, bool contiguous, const std::string& what) {
  const index_t K = static_cast<index_t>(start.size()) - 1;
  if (parts < 1) throw InputError(cat("partition: the number of parts must be at least 1 (got ", parts, ")"));
  if (parts > K) throw InputError(cat("partition: ", parts, " parts for ", K, " vertices of ", what, ": at most one part per vertex"));
  if (static_cast<index_t>(weights.size()) != K) throw InputError(cat("partition: ", weights.size(), " weights for ", K, " vertices"));
  for (const double w : weights)
    if (!(w > 0 && std::isfinite(w))) throw InputError(cat("partition: weights must be positive and finite (got ", w, ")"));
  std::vector<int> part(static_cast<std::size_t>(K), 0);
  if (parts == 1) return part;
#if defined(FLOWDG_HAVE_METIS)
  std::vector<idx_t> xadj(start.begin(), start.end()), adjncy(neighbours.begin(), neighbours.end());
  // Integer vertex weights: the costs scaled so that the heaviest weighs up to 1000 (METIS balances
  // sums of integers; 1000 levels keep the rounding below 0.1%), fewer levels on large graphs so that
  // the total stays below 2^30: METIS sums them in idx_t (32 bits in Debian's build), and an
  // overflowed total put all 8M elements of a mesh into one part.
  const double heaviest = *std::max_element(weights.begin(), weights.end());
  const double levels = std::max(1.0, std::min(1000.0, std::floor(1073741824.0 / static_cast<double>(K))));
  std::vector<idx_t> vwgt(static_cast<std::size_t>(K));
  for (index_t e = 0; e < K; ++e)
    vwgt[static_cast<std::size_t>(e)] =
        std::max<idx_t>(1, static_cast<idx_t>(std::lround(levels * weights[static_cast<std::size_t>(e)] / heaviest)));
  idx_t n = static_cast<idx_t>(K), constraints = 1, metis_parts = parts, cut = 0;
  std::vector<idx_t> result(static_cast<std::size_t>(K), 0);
  idx_t metis_options[METIS_NOPTIONS];
  const auto run = [&](bool connected) {
    METIS_SetDefaultOptions(metis_options);
    metis_options[METIS_OPTION_NUMBERING] = 0;
    metis_options[METIS_OPTION_SEED] = seed;
    metis_options[METIS_OPTION_CONTIG] = connected ? 1 : 0;
    return METIS_PartGraphKway(&n, &constraints, xadj.data(), adjncy.data(), vwgt.data(), nullptr, nullptr, &metis_parts, nullptr,
                               nullptr, metis_options, &cut, result.data());
  };
  int status = run(contiguous);
  if (status != METIS_OK && contiguous) status = run(false);  // a graph in pieces has no contiguous partition
  if (status != METIS_OK) throw Error(cat("partition: METIS failed (status ", status, ") on the graph of ", what, " into ", parts, " parts"));
  for (index_t e = 0; e < K; ++e) part[static_cast<std::size_t>(e)] = static_cast<int>(result[static_cast<std::size_t>(e)]);
  return part;
#else
  (void)seed;
  (void)contiguous;
  (void)neighbours;
  throw InputError(cat("partition: this flowdg was built without METIS, which partitions ", what, " into ", parts,
                       " parts (Debian: apt-get install libmetis-dev, then rebuild)"));
#endif
}

Partition partition_mesh(const Mesh& mesh, const Connectivity& connectivity, const PartitionOptions& options) {
  const index_t K = mesh.n_elements();
  if (options.parts < 1) throw InputError(cat("partition: the number of parts must be at least 1 (got ", options.parts, ")"));
  if (options.parts > K)
    throw InputError(cat("partition: ", options.parts, " parts for ", K, " elements of ", mesh.source, ": at most one part per element"));
  std::vector<double> weights = options.weights.empty() ? element_costs(mesh, options.order) : options.weights;
  if (static_cast<index_t>(weights.size()) != K)
    throw InputError(cat("partition: ", weights.size(), " weights for ", K, " elements"));
  for (const double w : weights)
    if (!(w > 0 && std::isfinite(w))) throw InputError(cat("partition: element weights must be positive and finite (got ", w, ")"));
  std::vector<int> part(static_cast<std::size_t>(K), 0);
  if (options.parts == 1) return partition_statistics(mesh, connectivity, std::move(part), 1, weights);
#if defined(FLOWDG_HAVE_METIS)
  std::vector<index_t> start, neighbours;
  dual_graph(mesh, connectivity, start, neighbours);
  part = partition_graph(start, neighbours, weights, options.parts, options.seed, options.contiguous, mesh.source);
  Partition out = statistics(mesh, connectivity, std::move(part), options.parts, weights, start, neighbours);
  for (int k = 0; k < options.parts; ++k)
    if (out.elements[static_cast<std::size_t>(k)] == 0)
      throw Error(cat("partition: METIS left part ", k, " of ", options.parts, " empty (", mesh.source, ", ", K, " elements)"));
  return out;
#else
  throw InputError(cat("partition: this flowdg was built without METIS, which partitions meshes into ", options.parts,
                       " parts (Debian: apt-get install libmetis-dev, then rebuild)"));
#endif
}

std::string describe(const GhostLayers& layers) {
  return cat(layers.depth, layers.by_vertex ? " vertex ring" : " face ring", layers.depth == 1 ? "" : "s");
}

namespace {

/// Element adjacency for the ghost rings: through interior faces (periodic joins refused: their two
/// elements are not neighbours in space), or through shared corner vertices. CSR.
struct Adjacency {
  std::vector<index_t> start, next;
  template <class F>
  void for_each(index_t e, F&& f) const {
    for (index_t i = start[static_cast<std::size_t>(e)]; i < start[static_cast<std::size_t>(e) + 1]; ++i) f(next[static_cast<std::size_t>(i)]);
  }
};

Adjacency element_adjacency(const Mesh& mesh, const Connectivity& connectivity, bool by_vertex) {
  const index_t K = mesh.n_elements();
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(K));
  // Face neighbours always (periodic joins included: their elements share no vertex), and with
  // vertex rings every element sharing a corner too.
  for (const Face& face : connectivity.faces) {
    if (face.element_p < 0) continue;
    lists[static_cast<std::size_t>(face.element_m)].push_back(face.element_p);
    lists[static_cast<std::size_t>(face.element_p)].push_back(face.element_m);
  }
  if (by_vertex) {
    std::vector<std::vector<index_t>> around(static_cast<std::size_t>(mesh.n_nodes()));
    for (index_t e = 0; e < K; ++e)
      for (int i = 0; i < n_vertices(mesh.element_shape(e)); ++i) around[static_cast<std::size_t>(mesh.element_node_ids(e)[i])].push_back(e);
    for (const std::vector<index_t>& elements : around)
      for (const index_t a : elements)
        for (const index_t b : elements)
          if (a != b) lists[static_cast<std::size_t>(a)].push_back(b);
  }
  Adjacency out;
  out.start.assign(static_cast<std::size_t>(K) + 1, 0);
  for (index_t e = 0; e < K; ++e) {
    std::vector<index_t>& list = lists[static_cast<std::size_t>(e)];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    out.start[static_cast<std::size_t>(e) + 1] = out.start[static_cast<std::size_t>(e)] + static_cast<index_t>(list.size());
    out.next.insert(out.next.end(), list.begin(), list.end());
  }
  return out;
}

}  // namespace

namespace {

/// Whether an interior face joins two elements that share none of its vertices (a periodic join).
bool is_periodic_join(const Mesh& mesh, const Face& face) {
  std::array<index_t, 4> a{-1, -1, -1, -1}, b{-1, -1, -1, -1};  // unused entries equal on both sides
  face_vertex_ids(mesh, face.element_m, face.local_face_m, a.data());
  face_vertex_ids(mesh, face.element_p, face.local_face_p, b.data());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a != b;
}

}  // namespace

MeshPart extract_part(const Mesh& mesh, const Connectivity& connectivity, const std::vector<int>& part, int k,
                      const GhostLayers& layers) {
  const index_t K = mesh.n_elements();
  if (static_cast<index_t>(part.size()) != K) throw InputError(cat("extract_part: ", part.size(), " part numbers for ", K, " elements"));
  if (std::find(part.begin(), part.end(), k) == part.end()) throw InputError(cat("extract_part: no element is in part ", k));
  if (layers.depth < 1) throw InputError(cat("extract_part: the ghost layer needs at least one ring, not ", layers.depth));
  for (const char* name : {ghost_boundary_name, periodic_boundary_name})
    if (mesh.find_tag(name) >= 0) throw InputError(cat("extract_part: ", mesh.source, " already has a boundary named '", name, "'"));
  MeshPart result;
  result.layers = layers;
  std::vector<index_t> local(static_cast<std::size_t>(K), -1);
  for (index_t e = 0; e < K; ++e)
    if (part[static_cast<std::size_t>(e)] == k) {
      local[static_cast<std::size_t>(e)] = static_cast<index_t>(result.global_element.size());
      result.global_element.push_back(e);
    }
  result.n_owned = static_cast<index_t>(result.global_element.size());
  // The rings, breadth first from the owned elements.
  const Adjacency adjacency = element_adjacency(mesh, connectivity, layers.by_vertex);
  std::vector<char> held_flag(static_cast<std::size_t>(K), 0);
  std::vector<index_t> ring(result.global_element), ghosts;
  for (const index_t e : ring) held_flag[static_cast<std::size_t>(e)] = 1;
  for (int r = 0; r < layers.depth; ++r) {
    std::vector<index_t> outer;
    for (const index_t e : ring)
      adjacency.for_each(e, [&](index_t n) {
        if (held_flag[static_cast<std::size_t>(n)] != 0) return;
        held_flag[static_cast<std::size_t>(n)] = 1;
        outer.push_back(n);
      });
    ghosts.insert(ghosts.end(), outer.begin(), outer.end());
    ring = std::move(outer);
  }
  std::sort(ghosts.begin(), ghosts.end());
  // The owned elements that other parts hold as ghosts (within `depth` rings of a ghost, through
  // owned elements: every element on such a path is held) go first: a stage updates them first and
  // sends them while it updates the rest (dg_operator.hpp: run_stage's overlap).
  {
    std::vector<int> distance(static_cast<std::size_t>(K), -1);
    for (const index_t g : ghosts) distance[static_cast<std::size_t>(g)] = 0;
    std::vector<index_t> front = ghosts;
    for (int r = 1; r <= layers.depth; ++r) {
      std::vector<index_t> next;
      for (const index_t e : front)
        adjacency.for_each(e, [&](index_t n) {
          if (part[static_cast<std::size_t>(n)] != k || distance[static_cast<std::size_t>(n)] >= 0) return;
          distance[static_cast<std::size_t>(n)] = r;
          next.push_back(n);
        });
      front = std::move(next);
    }
    std::stable_partition(result.global_element.begin(), result.global_element.end(),
                          [&](index_t e) { return distance[static_cast<std::size_t>(e)] > 0; });
    for (index_t i = 0; i < result.n_owned; ++i) local[static_cast<std::size_t>(result.global_element[static_cast<std::size_t>(i)])] = i;
  }
  for (const index_t g : ghosts) {
    local[static_cast<std::size_t>(g)] = static_cast<index_t>(result.global_element.size());
    result.global_element.push_back(g);
  }
  for (const index_t g : result.global_element) result.owner.push_back(part[static_cast<std::size_t>(g)]);

  Mesh& out = result.mesh;
  out.dimension = mesh.dimension;
  out.boundary_names = mesh.boundary_names;
  out.boundary_circles = mesh.boundary_circles;
  out.source = cat(mesh.source, " (part ", k, ")");
  const int ghost_tag = out.tag_id(ghost_boundary_name);
  int periodic_tag = -1;  // created with the first periodic join held on both sides
  std::vector<index_t> node(static_cast<std::size_t>(mesh.n_nodes()), -1);
  const bool file_tags = static_cast<index_t>(mesh.element_file_tags.size()) == K;
  for (const index_t g : result.global_element) {
    std::vector<index_t> ids;
    for (int i = 0; i < mesh.element_n_nodes(g); ++i) {
      const index_t old = mesh.element_node_ids(g)[i];
      if (node[static_cast<std::size_t>(old)] < 0) {
        node[static_cast<std::size_t>(old)] = out.n_nodes();
        out.nodes.push_back(mesh.nodes[static_cast<std::size_t>(old)]);
      }
      ids.push_back(node[static_cast<std::size_t>(old)]);
    }
    out.add_element(mesh.element_types[static_cast<std::size_t>(g)], ids.data());
    if (file_tags) out.element_file_tags.push_back(mesh.element_file_tags[static_cast<std::size_t>(g)]);
  }
  const auto add_facet = [&](index_t e, int l, int tag) {
    TaggedFacet facet;
    index_t ids[4];
    facet.n_vertices = face_vertex_ids(mesh, e, l, ids);
    for (int i = 0; i < facet.n_vertices; ++i) facet.vertices[static_cast<std::size_t>(i)] = node[static_cast<std::size_t>(ids[i])];
    facet.tag = tag;
    out.tagged_facets.push_back(facet);
  };
  const auto held = [&](index_t e) { return e >= 0 && local[static_cast<std::size_t>(e)] >= 0; };
  for (const Face& face : connectivity.faces) {
    if (face.element_p < 0) {  // a boundary face of the whole mesh keeps its tag, owned or ghost
      if (held(face.element_m)) add_facet(face.element_m, face.local_face_m, face.tag);
      continue;
    }
    const bool m = held(face.element_m), p = held(face.element_p);
    if (m && !p) add_facet(face.element_m, face.local_face_m, ghost_tag);  // only a ghost can miss its neighbour
    if (p && !m) add_facet(face.element_p, face.local_face_p, ghost_tag);
    if (m && p && is_periodic_join(mesh, face)) {  // two faces apart in space: tagged, joined again by join_periodic
      if (periodic_tag < 0) periodic_tag = out.tag_id(periodic_boundary_name);
      add_facet(face.element_m, face.local_face_m, periodic_tag);
      add_facet(face.element_p, face.local_face_p, periodic_tag);
      Face join = face;
      join.element_m = local[static_cast<std::size_t>(face.element_m)];
      join.element_p = local[static_cast<std::size_t>(face.element_p)];
      result.periodic_joins.push_back(join);
    }
  }
  return result;
}

void join_periodic(const MeshPart& held, Connectivity& connectivity) {
  if (held.periodic_joins.empty()) return;
  const int tag = held.mesh.find_tag(periodic_boundary_name);
  FLOWDG_ASSERT(tag >= 0, "a part with periodic joins has no '", periodic_boundary_name, "' faces");
  const index_t tagged = connectivity.tag_offsets[tag + 1] - connectivity.tag_offsets[tag];
  if (tagged != 2 * static_cast<index_t>(held.periodic_joins.size()))
    throw Error(cat(held.mesh.source, ": ", tagged, " faces tagged '", periodic_boundary_name, "' for ", held.periodic_joins.size(),
                    " periodic joins"));
  replace_boundary_faces(connectivity, {tag}, held.periodic_joins);
}

void orient_as_whole_mesh(const MeshPart& held, Connectivity& connectivity) {
  for (Face& face : connectivity.faces) {
    if (face.element_p < 0 || is_periodic_join(held.mesh, face)) continue;
    const index_t m = held.global_element[static_cast<std::size_t>(face.element_m)];
    const index_t p = held.global_element[static_cast<std::size_t>(face.element_p)];
    if (m < p) continue;
    // The plus side's k-th face vertex is the minus side's pi^-1(k)-th: the inverse orientation.
    const Shape shape = face_shape(held.mesh.element_shape(face.element_m));
    face.orientation = dg::inverse_orientation(shape, face.orientation);
    std::swap(face.element_m, face.element_p);
    std::swap(face.local_face_m, face.local_face_p);
  }
}

HaloPlan make_halo_plan(const MeshPart& held) {
  Connectivity local = build_connectivity(held.mesh);
  join_periodic(held, local);
  const Adjacency adjacency = element_adjacency(held.mesh, local, held.layers.by_vertex);
  const index_t n = held.mesh.n_elements();
  std::map<int, HaloPlan::Neighbour> by_part;
  for (index_t g = held.n_owned; g < n; ++g) by_part[held.owner[static_cast<std::size_t>(g)]].receive.push_back(g);
  const auto by_global = [&](index_t a, index_t b) {
    return held.global_element[static_cast<std::size_t>(a)] < held.global_element[static_cast<std::size_t>(b)];
  };
  HaloPlan plan;
  for (auto& [part, neighbour] : by_part) {
    neighbour.part = part;
    // The owned elements within `depth` rings of this neighbour's ghosts are its ghosts from here.
    std::vector<int> distance(static_cast<std::size_t>(n), -1);
    std::vector<index_t> ring = neighbour.receive;
    for (const index_t g : ring) distance[static_cast<std::size_t>(g)] = 0;
    for (int r = 1; r <= held.layers.depth; ++r) {
      std::vector<index_t> outer;
      for (const index_t e : ring)
        adjacency.for_each(e, [&](index_t next) {
          if (distance[static_cast<std::size_t>(next)] >= 0) return;
          distance[static_cast<std::size_t>(next)] = r;
          outer.push_back(next);
        });
      for (const index_t e : outer)
        if (e < held.n_owned) neighbour.send.push_back(e);
      ring = std::move(outer);
    }
    std::sort(neighbour.send.begin(), neighbour.send.end(), by_global);
    std::sort(neighbour.receive.begin(), neighbour.receive.end(), by_global);
    plan.neighbours.push_back(std::move(neighbour));
  }
  return plan;
}

namespace {

std::string part_path(const std::string& directory, int k, const char* extension) {
  return (std::filesystem::path(directory) / cat("part_", k, extension)).string();
}

}  // namespace

void write_partitioned_mesh(const std::string& directory, const Mesh& mesh, const Connectivity& connectivity,
                            const std::vector<int>& part, int parts, const GhostLayers& layers, const std::vector<PeriodicPair>& periodic) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw InputError(cat("cannot create the directory ", directory, ": ", error.message()));
  if (periodic.empty())
    for (const Face& face : connectivity.faces)
      if (face.element_p >= 0 && is_periodic_join(mesh, face))
        throw InputError(cat("partition: ", mesh.source, " has periodic joins but no periodic pairs to record for the runs"));
  for (int k = 0; k < parts; ++k) {
    const MeshPart held = extract_part(mesh, connectivity, part, k, layers);
    write_gmsh(held.mesh, part_path(directory, k, ".msh"));
    const std::string path = part_path(directory, k, ".elements");
    std::ofstream out(path);
    out << "n_owned " << held.n_owned << "\n";
    for (std::size_t i = 0; i < held.global_element.size(); ++i) out << held.global_element[i] << " " << held.owner[i] << "\n";
    if (!held.periodic_joins.empty()) {
      out << "periodic_joins " << held.periodic_joins.size() << "\n";
      for (const Face& join : held.periodic_joins)
        out << join.element_m << " " << join.local_face_m << " " << join.element_p << " " << join.local_face_p << " " << join.orientation << "\n";
    }
    if (!out) throw InputError(cat("cannot write ", path));
  }
  const std::string manifest = (std::filesystem::path(directory) / "partition.toml").string();
  std::ofstream out(manifest);
  std::string source;
  for (const char c : mesh.source) {
    if (c == '"' || c == '\\') source += '\\';
    source += c;
  }
  out << "# flowdg partitioned mesh: part_K.msh (the part's elements and its ghost layer) and part_K.elements\n"
      << "parts = " << parts << "\nelements = " << mesh.n_elements() << "\nsource = \"" << source << "\"\n"
      << "mesh_hash = \"" << mesh_hash(mesh) << "\"\nghost_depth = " << layers.depth << "\nghost_rings = \""
      << (layers.by_vertex ? "vertex" : "face") << "\"\nboundaries = [";
  for (std::size_t t = 0; t < mesh.boundary_names.size(); ++t) out << (t == 0 ? "\"" : ", \"") << mesh.boundary_names[t] << "\"";
  out << "]\n";
  if (!periodic.empty()) {  // the pairs joined, "name:partner" and their translations (x, y, z each)
    out << "periodic = [";
    for (std::size_t i = 0; i < periodic.size(); ++i) out << (i == 0 ? "\"" : ", \"") << periodic[i].name << ":" << periodic[i].partner << "\"";
    out << "]\nperiodic_translation = [";
    for (std::size_t i = 0; i < periodic.size(); ++i) {
      char line[160];
      const Point3& t = periodic[i].translation;
      std::snprintf(line, sizeof line, "%s%.17g, %.17g, %.17g", i == 0 ? "" : ", ", t.x, t.y, t.z);
      out << line;
    }
    out << "]\n";
  }
  if (!mesh.boundary_circles.empty()) {  // curvature walls' circles: tag, centre x, y, radius each
    out << "circles = [";
    for (std::size_t i = 0; i < mesh.boundary_circles.size(); ++i) {
      const BoundaryCircle& circle = mesh.boundary_circles[i];
      char line[160];
      std::snprintf(line, sizeof line, "%s%d, %.17g, %.17g, %.17g", i == 0 ? "" : ", ", circle.tag, circle.center.x, circle.center.y,
                    circle.radius);
      out << line;
    }
    out << "]\n";
  }
  if (!out) throw InputError(cat("cannot write ", manifest));
}

PartitionedMeshInfo read_partitioned_mesh_info(const std::string& directory) {
  const std::string manifest = (std::filesystem::path(directory) / "partition.toml").string();
  if (!std::filesystem::exists(manifest)) throw InputError(cat(directory, " is not a partitioned mesh (no partition.toml)"));
  const Config config = Config::from_file(manifest);
  PartitionedMeshInfo info;
  const long long parts = config.integer_or("parts", 0);
  if (parts < 1) throw InputError(cat(manifest, ": parts must be a positive integer"));
  info.parts = static_cast<int>(parts);
  info.elements = static_cast<index_t>(config.integer_or("elements", 0));
  info.source = config.string_or("source", "");
  const std::string hash = config.string_or("mesh_hash", "0");
  try {
    info.mesh_hash = std::stoull(hash);
  } catch (const std::exception&) {
    throw InputError(cat(manifest, ": mesh_hash \"", hash, "\" is not a number"));
  }
  info.layers.depth = static_cast<int>(config.integer_or("ghost_depth", 1));
  const std::string rings = config.string_or("ghost_rings", "face");
  if (rings != "face" && rings != "vertex") throw InputError(cat(manifest, ": ghost_rings must be \"face\" or \"vertex\", not \"", rings, "\""));
  info.layers.by_vertex = rings == "vertex";
  if (const auto names = config.get_strings("boundaries")) info.boundaries = *names;
  if (const auto circles = config.get_doubles("circles")) {
    if (circles->size() % 4 != 0) throw InputError(cat(manifest, ": circles must hold 4 numbers per circle (tag, x, y, radius)"));
    for (std::size_t i = 0; i < circles->size(); i += 4)
      info.circles.push_back(BoundaryCircle{static_cast<int>((*circles)[i]), Point3{(*circles)[i + 1], (*circles)[i + 2], 0.0}, (*circles)[i + 3]});
  }
  const auto pairs = config.get_strings("periodic");
  const auto shifts = config.get_doubles("periodic_translation");
  if (pairs || shifts) {
    if (!pairs || !shifts || shifts->size() != 3 * pairs->size())
      throw InputError(cat(manifest, ": periodic and periodic_translation must list the same pairs (3 numbers per pair)"));
    for (std::size_t i = 0; i < pairs->size(); ++i) {
      const std::string& pair = (*pairs)[i];
      const auto colon = pair.find(':');
      if (colon == std::string::npos) throw InputError(cat(manifest, ": periodic pair \"", pair, "\" is not name:partner"));
      info.periodic.push_back({pair.substr(0, colon), pair.substr(colon + 1),
                               Point3{(*shifts)[3 * i], (*shifts)[3 * i + 1], (*shifts)[3 * i + 2]}});
    }
  }
  return info;
}

int partitioned_mesh_parts(const std::string& directory) { return read_partitioned_mesh_info(directory).parts; }

MeshPart read_mesh_part(const std::string& directory, int k) {
  const int parts = partitioned_mesh_parts(directory);
  if (k < 0 || k >= parts) throw InputError(cat(directory, " has ", parts, " parts: no part ", k));
  MeshPart held;
  const PartitionedMeshInfo info = read_partitioned_mesh_info(directory);
  held.layers = info.layers;
  held.mesh = read_gmsh(part_path(directory, k, ".msh"));
  if (!info.boundaries.empty()) {
    // The whole mesh's tag numbers (a part's file names only the tags it has faces of), the ghost
    // tag last.
    std::vector<std::string> names = info.boundaries;
    names.push_back(ghost_boundary_name);
    if (!info.periodic.empty()) names.push_back(periodic_boundary_name);
    std::vector<int> renumber(held.mesh.boundary_names.size(), -1);
    for (std::size_t t = 0; t < held.mesh.boundary_names.size(); ++t) {
      const auto at = std::find(names.begin(), names.end(), held.mesh.boundary_names[t]);
      if (at == names.end())
        throw InputError(cat(part_path(directory, k, ".msh"), ": boundary '", held.mesh.boundary_names[t], "' is not one of the whole mesh's"));
      renumber[t] = static_cast<int>(at - names.begin());
    }
    for (TaggedFacet& facet : held.mesh.tagged_facets) facet.tag = renumber[static_cast<std::size_t>(facet.tag)];
    held.mesh.boundary_names = names;
    held.mesh.boundary_circles = info.circles;
  }
  const std::string path = part_path(directory, k, ".elements");
  std::ifstream in(path);
  std::string word;
  if (!(in >> word >> held.n_owned) || word != "n_owned") throw InputError(cat(path, ": expected \"n_owned N\" first"));
  index_t global = 0;
  int owner = 0;
  while (in >> global >> owner) {
    held.global_element.push_back(global);
    held.owner.push_back(owner);
  }
  if (!in.eof()) {  // the periodic joins the part holds
    in.clear();
    std::size_t joins = 0;
    if (!(in >> word >> joins) || word != "periodic_joins") throw InputError(cat(path, ": expected \"periodic_joins N\" after the elements"));
    for (std::size_t j = 0; j < joins; ++j) {
      Face join;
      if (!(in >> join.element_m >> join.local_face_m >> join.element_p >> join.local_face_p >> join.orientation))
        throw InputError(cat(path, ": periodic join ", j, " of ", joins, " is not \"element_m local_face_m element_p local_face_p orientation\""));
      held.periodic_joins.push_back(join);
    }
  }
  if (static_cast<index_t>(held.global_element.size()) != held.mesh.n_elements() || held.n_owned < 1 ||
      held.n_owned > held.mesh.n_elements())
    throw InputError(cat(path, " lists ", held.global_element.size(), " elements (", held.n_owned, " owned) for the ",
                         held.mesh.n_elements(), " of ", part_path(directory, k, ".msh")));
  for (index_t i = 0; i < held.n_owned; ++i)
    if (held.owner[static_cast<std::size_t>(i)] != k) throw InputError(cat(path, ": owned element ", i, " has owner ", held.owner[static_cast<std::size_t>(i)]));
  for (const Face& join : held.periodic_joins)
    if (join.element_m < 0 || join.element_m >= held.mesh.n_elements() || join.element_p < 0 || join.element_p >= held.mesh.n_elements())
      throw InputError(cat(path, ": a periodic join of elements ", join.element_m, " and ", join.element_p, " outside the part's ",
                           held.mesh.n_elements()));
  return held;
}

}  // namespace flowdg
