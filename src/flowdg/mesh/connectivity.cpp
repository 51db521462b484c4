#include "flowdg/mesh/connectivity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/validate.hpp"

namespace flowdg {
namespace {

// How many offending items a message lists before giving only the count.
constexpr std::size_t list_limit = 10;

// Sorted vertex ids; the padding sorts last, so the whole array can be sorted (a variable-length
// sort of a fixed array trips GCC 12's -Warray-bounds).
using FaceKey = std::array<index_t, 4>;
constexpr index_t no_vertex = std::numeric_limits<index_t>::max();

// One element's view of one of its faces. Sorting these by key brings the sides of each face
// together: faster and more deterministic than a hash map for millions of faces.
struct HalfFace {
  FaceKey key;
  index_t element;
  int local_face;
};

int face_vertex_ids(const Mesh& mesh, index_t element, int local_face, index_t* ids) {
  const Shape shape = mesh.element_shape(element);
  const index_t* nodes = mesh.element_node_ids(element);
  const int n = n_face_vertices(shape);
  for (int k = 0; k < n; ++k) ids[k] = nodes[face_vertex(shape, local_face, k)];
  return n;
}

FaceKey sorted_key(const index_t* ids, int n) {
  FaceKey key;
  key.fill(no_vertex);
  std::copy(ids, ids + n, key.begin());
  std::sort(key.begin(), key.end());
  return key;
}

std::vector<HalfFace> sorted_half_faces(const Mesh& mesh) {
  std::vector<HalfFace> half_faces;
  std::size_t total = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) total += n_faces(mesh.element_shape(e));
  half_faces.reserve(total);
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    for (int f = 0; f < n_faces(mesh.element_shape(e)); ++f) {
      index_t ids[4];
      const int n = face_vertex_ids(mesh, e, f, ids);
      half_faces.push_back({sorted_key(ids, n), e, f});
    }
  }
  std::sort(half_faces.begin(), half_faces.end(), [](const HalfFace& a, const HalfFace& b) {
    if (a.key != b.key) return a.key < b.key;
    return a.element != b.element ? a.element < b.element : a.local_face < b.local_face;
  });
  return half_faces;
}

// Calls visit(first, last) for each run of half-faces with the same key.
template <class Visit>
void for_each_face(const std::vector<HalfFace>& half_faces, Visit visit) {
  for (std::size_t first = 0; first < half_faces.size();) {
    std::size_t last = first + 1;
    while (last < half_faces.size() && half_faces[last].key == half_faces[first].key) ++last;
    visit(first, last);
    first = last;
  }
}

std::string describe_face(const Mesh& mesh, const FaceKey& key) {
  std::string text = "face with nodes";
  for (const index_t id : key)
    if (id != no_vertex) text += cat(id == key[0] ? " " : ", ", describe_node(mesh, id));
  return text;
}

// Collects offending items of one kind into one message: "<count> <what>: item; item; ...".
class ProblemList {
 public:
  explicit ProblemList(std::string what) : what_(std::move(what)) {}
  void add(const std::string& item) {
    if (count_++ < list_limit) items_ += (items_.empty() ? "" : "; ") + item;
  }
  void report(std::vector<std::string>& errors) const {
    if (count_ == 0) return;
    errors.push_back(cat(count_, " ", what_, ": ", items_, count_ > list_limit ? "; ..." : ""));
  }

 private:
  std::string what_;
  std::string items_;
  std::size_t count_ = 0;
};

int orientation_count(Shape face) {
  return face == Shape::line ? 2 : 2 * n_vertices(face);
}

// The orientation code that maps the plus side's face vertex list onto the minus side's, or -1.
int match_orientation(Shape face, const index_t* minus, const index_t* plus) {
  for (int orientation = 0; orientation < orientation_count(face); ++orientation) {
    bool same = true;
    for (int k = 0; k < n_vertices(face) && same; ++k)
      same = minus[k] == plus[face_vertex_permutation(face, orientation, k)];
    if (same) return orientation;
  }
  return -1;
}

// 2D: a vertex strictly inside a boundary edge. 3D: a vertex strictly inside an edge of a boundary
// face. Both are what a refined neighbour leaves behind. Vertices are binned in a sparse grid of
// about one edge length, so each edge only tests the vertices near it.
void find_hanging_faces(const Mesh& mesh, const std::vector<HalfFace>& half_faces,
                        std::span<const std::size_t> boundary, ProblemList& problems) {
  struct Edge {
    index_t a, b;
    index_t element;
  };
  std::vector<Edge> edges;
  std::vector<std::pair<index_t, index_t>> vertex_elements;  // (vertex, element) on the boundary
  for (const std::size_t h : boundary) {
    index_t ids[4];
    const int n = face_vertex_ids(mesh, half_faces[h].element, half_faces[h].local_face, ids);
    const int n_edges = n == 2 ? 1 : n;
    for (int k = 0; k < n_edges; ++k)
      edges.push_back({std::min(ids[k], ids[(k + 1) % n]), std::max(ids[k], ids[(k + 1) % n]),
                       half_faces[h].element});
    for (int k = 0; k < n; ++k) vertex_elements.emplace_back(ids[k], half_faces[h].element);
  }
  if (edges.empty()) return;
  std::sort(vertex_elements.begin(), vertex_elements.end());
  vertex_elements.erase(std::unique(vertex_elements.begin(), vertex_elements.end()),
                        vertex_elements.end());

  double total_length = 0;
  Point3 low = mesh.nodes[edges[0].a], high = low;
  for (const Edge& edge : edges) {
    const Point3 d = mesh.nodes[edge.b] - mesh.nodes[edge.a];
    total_length += std::sqrt(dot(d, d));
    for (const index_t id : {edge.a, edge.b}) {
      const Point3 p = mesh.nodes[id];
      low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
      high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
    }
  }
  const double extent = std::max({high.x - low.x, high.y - low.y, high.z - low.z});
  // Cell coordinates must fit in 21 bits each for the packed key.
  const double cell = std::max(total_length / static_cast<double>(edges.size()), extent * 0x1.0p-20);
  if (!(cell > 0)) return;
  const auto cell_of = [&](double x, double origin) {
    return static_cast<std::uint64_t>(std::clamp((x - origin) / cell, 0.0, 0x1.0p21 - 1));
  };
  const auto cell_key = [](std::uint64_t i, std::uint64_t j, std::uint64_t k) {
    return (i << 42) | (j << 21) | k;
  };
  std::vector<std::pair<std::uint64_t, index_t>> binned;  // (cell key, vertex)
  for (std::size_t v = 0; v < vertex_elements.size(); ++v) {
    if (v > 0 && vertex_elements[v].first == vertex_elements[v - 1].first) continue;
    const Point3 p = mesh.nodes[vertex_elements[v].first];
    binned.emplace_back(cell_key(cell_of(p.x, low.x), cell_of(p.y, low.y), cell_of(p.z, low.z)),
                        vertex_elements[v].first);
  }
  std::sort(binned.begin(), binned.end());

  constexpr double tolerance = 1e-10;  // relative to the edge length
  for (const Edge& edge : edges) {
    const Point3 a = mesh.nodes[edge.a], b = mesh.nodes[edge.b], d = b - a;
    const double length_squared = dot(d, d);
    const double slack = tolerance * std::sqrt(length_squared);
    const auto range = [&](double x0, double x1, double origin) {
      return std::pair{cell_of(std::min(x0, x1) - slack, origin), cell_of(std::max(x0, x1) + slack, origin)};
    };
    const auto [i0, i1] = range(a.x, b.x, low.x);
    const auto [j0, j1] = range(a.y, b.y, low.y);
    const auto [k0, k1] = range(a.z, b.z, low.z);
    for (auto i = i0; i <= i1; ++i)
      for (auto j = j0; j <= j1; ++j)
        for (auto k = k0; k <= k1; ++k) {
          const std::uint64_t key = cell_key(i, j, k);
          auto it = std::lower_bound(binned.begin(), binned.end(), std::pair{key, index_t{-1}});
          for (; it != binned.end() && it->first == key; ++it) {
            const index_t id = it->second;
            if (id == edge.a || id == edge.b) continue;
            const Point3 offset = mesh.nodes[id] - a;
            const double t = dot(offset, d) / length_squared;
            const Point3 off_line = offset - t * d;
            if (t <= tolerance || t >= 1 - tolerance ||
                dot(off_line, off_line) > tolerance * tolerance * length_squared)
              continue;
            std::string users;
            auto user = std::lower_bound(vertex_elements.begin(), vertex_elements.end(),
                                         std::pair{id, index_t{-1}});
            for (; user != vertex_elements.end() && user->first == id; ++user)
              users += cat(users.empty() ? "" : ", ", user->second);
            problems.add(cat("node ", describe_node(mesh, id), " of element(s) ", users,
                             " lies inside the edge from node ", edge.a, " to node ", edge.b,
                             " of element ", edge.element));
          }
        }
  }
}

}  // namespace

Connectivity build_connectivity(const Mesh& mesh, std::vector<std::string>& errors) {
  const std::vector<HalfFace> half_faces = sorted_half_faces(mesh);
  const int n_tags = static_cast<int>(mesh.boundary_names.size());

  Connectivity connectivity;
  std::vector<std::size_t> boundary;  // half-face index of each face with one side
  ProblemList crowded("faces are shared by more than two elements");
  ProblemList self_adjacent("elements have two faces with the same vertices");
  ProblemList mismatched("shared faces whose vertex order matches no orientation");
  for_each_face(half_faces, [&](std::size_t first, std::size_t last) {
    const HalfFace& minus = half_faces[first];
    if (last - first == 1) {
      boundary.push_back(first);
      return;
    }
    if (last - first > 2) {
      std::string elements;
      for (std::size_t h = first; h < last; ++h)
        elements += cat(h == first ? "" : ", ", half_faces[h].element);
      crowded.add(cat(describe_face(mesh, minus.key), " is shared by elements ", elements));
      return;
    }
    const HalfFace& plus = half_faces[first + 1];
    if (plus.element == minus.element) {
      self_adjacent.add(cat("element ", minus.element, " (", describe_face(mesh, minus.key), ")"));
      return;
    }
    index_t minus_ids[4], plus_ids[4];
    face_vertex_ids(mesh, minus.element, minus.local_face, minus_ids);
    face_vertex_ids(mesh, plus.element, plus.local_face, plus_ids);
    const int orientation =
        match_orientation(face_shape(mesh.element_shape(minus.element)), minus_ids, plus_ids);
    if (orientation < 0) {
      mismatched.add(cat("elements ", minus.element, " and ", plus.element, " (",
                         describe_face(mesh, minus.key), ")"));
      return;
    }
    connectivity.faces.push_back(
        {minus.element, plus.element, minus.local_face, plus.local_face, -1, orientation});
  });

  ProblemList hanging("non-conforming (hanging) faces");
  if (mesh.dimension >= 2) find_hanging_faces(mesh, half_faces, boundary, hanging);

  // Tagged facets sorted by vertex set, to look up each boundary face's tag.
  std::vector<std::pair<FaceKey, int>> facets;
  std::vector<bool> used;
  ProblemList bad_tag("tagged facets with an unknown tag id");
  ProblemList malformed("malformed tagged facets");
  for (std::size_t f = 0; f < mesh.tagged_facets.size(); ++f) {
    const TaggedFacet& facet = mesh.tagged_facets[f];
    const auto vertices = std::span(facet.vertices).first(std::clamp(facet.n_vertices, 0, 4));
    if (facet.n_vertices < 2 || facet.n_vertices > 4 ||
        std::any_of(vertices.begin(), vertices.end(),
                    [&](index_t id) { return id < 0 || id >= mesh.n_nodes(); })) {
      malformed.add(cat("facet ", f, " has ", facet.n_vertices, " vertices or a node id outside [0, ",
                        mesh.n_nodes(), ")"));
      continue;
    }
    const FaceKey key = sorted_key(facet.vertices.data(), facet.n_vertices);
    if (facet.tag < 0 || facet.tag >= n_tags)
      bad_tag.add(cat(describe_face(mesh, key), " has tag ", facet.tag, " but the mesh has ",
                      n_tags, " boundary names"));
    else
      facets.emplace_back(key, facet.tag);
  }
  std::sort(facets.begin(), facets.end());
  facets.erase(std::unique(facets.begin(), facets.end()), facets.end());
  used.assign(facets.size(), false);
  const auto facets_of = [&](const FaceKey& key) {
    return std::equal_range(facets.begin(), facets.end(), std::pair{key, -1},
                            [](const auto& x, const auto& y) { return x.first < y.first; });
  };

  ProblemList untagged("boundary faces have no boundary tag");
  ProblemList conflicting("boundary faces carry more than one tag");
  for (const std::size_t h : boundary) {
    const HalfFace& side = half_faces[h];
    const auto [begin, end] = facets_of(side.key);
    if (begin == end) {
      untagged.add(cat(describe_face(mesh, side.key), " of element ", side.element));
      continue;
    }
    for (auto it = begin; it != end; ++it) used[it - facets.begin()] = true;
    if (end - begin > 1) {
      std::string names;
      for (auto it = begin; it != end; ++it)
        names += cat(it == begin ? "" : ", ", mesh.boundary_names[it->second]);
      conflicting.add(cat(describe_face(mesh, side.key), " of element ", side.element, " (", names, ")"));
    }
    connectivity.faces.push_back({side.element, -1, side.local_face, -1, begin->second, 0});
  }

  // Facets on interior faces are allowed (an interface named in the mesher), others are errors.
  ProblemList orphan("tagged facets are not a face of any element");
  for (std::size_t f = 0; f < facets.size(); ++f) {
    if (used[f]) continue;
    const bool interior = std::binary_search(
        half_faces.begin(), half_faces.end(), HalfFace{facets[f].first, -1, -1},
        [](const HalfFace& x, const HalfFace& y) { return x.key < y.key; });
    if (!interior)
      orphan.add(cat(describe_face(mesh, facets[f].first), " tagged '",
                     mesh.boundary_names[facets[f].second], "'"));
  }

  const std::size_t n_errors = errors.size();
  for (const ProblemList* problems :
       {&crowded, &self_adjacent, &mismatched, &hanging, &malformed, &bad_tag, &conflicting, &untagged, &orphan})
    problems->report(errors);
  if (errors.size() > n_errors) return connectivity;

  const auto group = [n_tags](const Face& face) { return face.tag < 0 ? n_tags : face.tag; };
  std::sort(connectivity.faces.begin(), connectivity.faces.end(),
            [&](const Face& a, const Face& b) {
              if (group(a) != group(b)) return group(a) < group(b);
              return a.element_m != b.element_m ? a.element_m < b.element_m
                                                : a.local_face_m < b.local_face_m;
            });
  connectivity.tag_offsets.assign(n_tags + 1, 0);
  for (const Face& face : connectivity.faces)
    if (face.tag >= 0) ++connectivity.tag_offsets[face.tag + 1];
  std::partial_sum(connectivity.tag_offsets.begin(), connectivity.tag_offsets.end(),
                   connectivity.tag_offsets.begin());

  for (index_t e = 0; e < mesh.n_elements(); ++e)
    connectivity.max_faces = std::max(connectivity.max_faces, n_faces(mesh.element_shape(e)));
  connectivity.element_faces.assign(
      static_cast<std::size_t>(mesh.n_elements()) * connectivity.max_faces, -1);
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    connectivity.element_faces[face.element_m * connectivity.max_faces + face.local_face_m] = f;
    if (face.element_p >= 0)
      connectivity.element_faces[face.element_p * connectivity.max_faces + face.local_face_p] = f;
  }
  return connectivity;
}

Connectivity build_connectivity(const Mesh& mesh) {
  std::vector<std::string> errors;
  Connectivity connectivity = build_connectivity(mesh, errors);
  if (errors.empty()) return connectivity;
  std::string message = cat("mesh ", mesh.source, ": ");
  for (std::size_t k = 0; k < errors.size(); ++k) message += (k == 0 ? "" : "; and ") + errors[k];
  throw InputError(message);
}

namespace {

// Element adjacency through shared faces, as CSR.
struct Graph {
  std::vector<index_t> offsets, neighbours;
  index_t degree(index_t v) const { return offsets[v + 1] - offsets[v]; }
};

Graph face_graph(const Mesh& mesh) {
  const std::vector<HalfFace> half_faces = sorted_half_faces(mesh);
  std::vector<std::pair<index_t, index_t>> pairs;
  for_each_face(half_faces, [&](std::size_t first, std::size_t last) {
    if (last - first != 2 || half_faces[first].element == half_faces[first + 1].element) return;
    pairs.emplace_back(half_faces[first].element, half_faces[first + 1].element);
    pairs.emplace_back(half_faces[first + 1].element, half_faces[first].element);
  });
  std::sort(pairs.begin(), pairs.end());
  Graph graph;
  graph.offsets.assign(mesh.n_elements() + 1, 0);
  for (const auto& [from, to] : pairs) {
    ++graph.offsets[from + 1];
    graph.neighbours.push_back(to);
  }
  std::partial_sum(graph.offsets.begin(), graph.offsets.end(), graph.offsets.begin());
  return graph;
}

// Breadth-first levels from `root`: the visit order, where its last level starts, and the depth.
struct Levels {
  std::vector<index_t> order;
  std::size_t last_level = 0;
  int depth = 1;
};

Levels level_structure(const Graph& graph, index_t root, std::vector<index_t>& stamp, index_t mark) {
  Levels levels;
  levels.order.push_back(root);
  stamp[root] = mark;
  while (true) {
    const std::size_t level_end = levels.order.size();
    for (std::size_t k = levels.last_level; k < level_end; ++k)
      for (index_t n = graph.offsets[levels.order[k]]; n < graph.offsets[levels.order[k] + 1]; ++n)
        if (stamp[graph.neighbours[n]] != mark) {
          stamp[graph.neighbours[n]] = mark;
          levels.order.push_back(graph.neighbours[n]);
        }
    if (levels.order.size() == level_end) return levels;
    levels.last_level = level_end;
    ++levels.depth;
  }
}

std::vector<index_t> reverse_cuthill_mckee(const Graph& graph, index_t n) {
  const auto lower_degree = [&](index_t a, index_t b) { return graph.degree(a) < graph.degree(b); };
  std::vector<index_t> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), lower_degree);
  std::vector<index_t> stamp(n, -1);
  std::vector<bool> placed(n, false);
  std::vector<index_t> order;
  order.reserve(n);
  index_t mark = 0;
  for (const index_t seed : by_degree) {
    if (placed[seed]) continue;
    // A pseudo-peripheral start (George & Liu): move to a low-degree node of the last level while
    // that makes the level structure deeper; deep structures have narrow levels, hence a small
    // bandwidth.
    index_t root = seed;
    Levels levels = level_structure(graph, root, stamp, mark++);
    while (true) {
      const index_t candidate = *std::min_element(
          levels.order.begin() + static_cast<std::ptrdiff_t>(levels.last_level), levels.order.end(),
          lower_degree);
      Levels next = level_structure(graph, candidate, stamp, mark++);
      if (next.depth <= levels.depth) break;
      root = candidate;
      levels = std::move(next);
    }
    const std::size_t begin = order.size();
    order.push_back(root);
    placed[root] = true;
    for (std::size_t k = begin; k < order.size(); ++k) {
      const std::size_t first_new = order.size();
      for (index_t e = graph.offsets[order[k]]; e < graph.offsets[order[k] + 1]; ++e)
        if (!placed[graph.neighbours[e]]) {
          placed[graph.neighbours[e]] = true;
          order.push_back(graph.neighbours[e]);
        }
      std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first_new), order.end(),
                       lower_degree);
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// Position along the Hilbert curve of a point with `dims` coordinates of `bits` bits each
// (J. Skilling, "Programming the Hilbert curve", 2004).
std::uint64_t hilbert_index(std::array<std::uint32_t, 3> x, int dims, int bits) {
  const std::uint32_t top = 1u << (bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 0; i < dims; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < dims; ++i) x[i] ^= x[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (x[dims - 1] & q) t ^= q - 1;
  for (int i = 0; i < dims; ++i) x[i] ^= t;
  std::uint64_t index = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < dims; ++i) index = (index << 1) | ((x[i] >> b) & 1u);
  return index;
}

std::vector<index_t> hilbert_order(const Mesh& mesh) {
  // The nodes' bounding box with one scale for all axes: the curve's cells stay square, and on a
  // structured 2^k grid each element centroid falls into its own curve cell.
  Point3 low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
  for (const Point3& p : mesh.nodes) {
    low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
    high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
  }
  const int dims = mesh.dimension == 3 ? 3 : 2;
  const int bits = dims == 3 ? 21 : 31;
  const double cells = std::ldexp(1.0, bits);
  const double extent = std::max({high.x - low.x, high.y - low.y, high.z - low.z});
  const double scale = extent > 0 ? cells / extent : 0.0;
  const auto cell = [&](double x) { return static_cast<std::uint32_t>(std::min(x * scale, cells - 1)); };
  const index_t n = mesh.n_elements();
  std::vector<std::pair<std::uint64_t, index_t>> keyed(n);
  for (index_t e = 0; e < n; ++e) {
    const int vertices = n_vertices(mesh.element_shape(e));
    Point3 sum{0, 0, 0};
    for (int k = 0; k < vertices; ++k) sum = sum + mesh.nodes[mesh.element_node_ids(e)[k]];
    const Point3 c = (1.0 / vertices) * sum - low;
    keyed[e] = {hilbert_index({cell(c.x), cell(c.y), cell(c.z)}, dims, bits), e};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<index_t> order(n);
  for (index_t e = 0; e < n; ++e) order[e] = keyed[e].second;
  return order;
}

}  // namespace

std::vector<index_t> reorder_elements(Mesh& mesh, ElementOrdering ordering) {
  std::vector<index_t> new_to_old;
  switch (ordering) {
    case ElementOrdering::none:
      new_to_old.resize(mesh.n_elements());
      std::iota(new_to_old.begin(), new_to_old.end(), 0);
      return new_to_old;
    case ElementOrdering::reverse_cuthill_mckee:
      new_to_old = reverse_cuthill_mckee(face_graph(mesh), mesh.n_elements());
      break;
    case ElementOrdering::hilbert: new_to_old = hilbert_order(mesh); break;
  }
  std::vector<ElementType> types(mesh.element_types.size());
  std::vector<index_t> offsets{0};
  std::vector<index_t> nodes;
  offsets.reserve(mesh.element_offsets.size());
  nodes.reserve(mesh.element_nodes.size());
  for (std::size_t e = 0; e < new_to_old.size(); ++e) {
    const index_t old = new_to_old[e];
    types[e] = mesh.element_types[old];
    nodes.insert(nodes.end(), mesh.element_node_ids(old),
                 mesh.element_node_ids(old) + mesh.element_n_nodes(old));
    offsets.push_back(static_cast<index_t>(nodes.size()));
  }
  mesh.element_types = std::move(types);
  mesh.element_offsets = std::move(offsets);
  mesh.element_nodes = std::move(nodes);
  return new_to_old;
}

}  // namespace flowdg
