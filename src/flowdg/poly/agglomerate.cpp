#include "flowdg/poly/agglomerate.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <array>
#include <numeric>
#include <tuple>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/partition.hpp"

namespace flowdg::poly {

namespace {

// How many agglomerate ids a note lists before giving only the count.
constexpr std::size_t list_limit = 10;

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

/// Union-find over fine elements, with path halving.
struct UnionFind {
  std::vector<index_t> parent;
  explicit UnionFind(index_t n) : parent(at(n)) { std::iota(parent.begin(), parent.end(), index_t{0}); }
  index_t find(index_t i) {
    while (parent[at(i)] != i) {
      parent[at(i)] = parent[at(parent[at(i)])];
      i = parent[at(i)];
    }
    return i;
  }
  void unite(index_t a, index_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[at(std::max(a, b))] = std::min(a, b);
  }
};

std::string source_of(const Mesh& mesh) { return mesh.source.empty() ? std::string("the fine mesh") : mesh.source; }

/// InputError unless 1 <= n <= the number of fine elements.
void check_count(const Mesh& mesh, index_t n) {
  if (n < 1 || n > mesh.n_elements())
    throw InputError(cat("cannot agglomerate the ", mesh.n_elements(), " fine elements of ", source_of(mesh), " into ",
                         n, " elements: ask for 1 to ", mesh.n_elements()));
}

/// The recursive bisection of agglomerate_bisection: per depth, each fine element's tree node.
class Bisection {
 public:
  Bisection(std::vector<Point3> centroids, const Connectivity& connectivity, int dimension, int max_depth)
      : centroids_(std::move(centroids)),
        dimension_(dimension),
        order_(centroids_.size()),
        counter_(at(max_depth + 1), 0),
        node_(at(max_depth + 1), std::vector<index_t>(centroids_.size(), -1)),
        stamp_(centroids_.size(), -1),
        side_(centroids_.size(), 0),
        seen_(centroids_.size(), -1) {
    std::iota(order_.begin(), order_.end(), index_t{0});
    // The dual graph (fine elements joined through interior faces) in CSR form.
    neighbour_start_.assign(centroids_.size() + 1, 0);
    for (const Face& face : connectivity.faces)
      if (face.element_p >= 0) {
        ++neighbour_start_[at(face.element_m) + 1];
        ++neighbour_start_[at(face.element_p) + 1];
      }
    std::partial_sum(neighbour_start_.begin(), neighbour_start_.end(), neighbour_start_.begin());
    neighbours_.resize(at(neighbour_start_.back()));
    std::vector<index_t> next(neighbour_start_.begin(), neighbour_start_.end() - 1);
    for (const Face& face : connectivity.faces)
      if (face.element_p >= 0) {
        neighbours_[at(next[at(face.element_m)]++)] = face.element_p;
        neighbours_[at(next[at(face.element_p)]++)] = face.element_m;
      }
  }

  /// Makes `m` agglomerates of order_[lo, hi), a node at `depth`.
  void split(index_t lo, index_t hi, index_t m, int depth) {
    const int deepest = static_cast<int>(node_.size()) - 1;
    const auto label = [&](int level) {
      const index_t id = counter_[at(level)]++;
      for (index_t q = lo; q < hi; ++q) node_[at(level)][at(order_[at(q)])] = id;
    };
    if (m == 1) {
      for (int level = depth; level <= deepest; ++level) label(level);
      return;
    }
    label(depth);
    Point3 lo_corner = centroids_[at(order_[at(lo)])], hi_corner = lo_corner;
    for (index_t q = lo; q < hi; ++q) {
      const Point3 x = centroids_[at(order_[at(q)])];
      lo_corner = {std::min(lo_corner.x, x.x), std::min(lo_corner.y, x.y), std::min(lo_corner.z, x.z)};
      hi_corner = {std::max(hi_corner.x, x.x), std::max(hi_corner.y, x.y), std::max(hi_corner.z, x.z)};
    }
    const Point3 extent = hi_corner - lo_corner;
    int axis = extent.y > extent.x ? 1 : 0;
    if (dimension_ == 3 && extent.z > (axis == 0 ? extent.x : extent.y)) axis = 2;
    const auto coordinate = [&](index_t e) {
      const Point3 x = centroids_[at(e)];
      return axis == 0 ? x.x : (axis == 1 ? x.y : x.z);
    };
    const index_t m_lower = (m + 1) / 2, m_upper = m / 2, count = hi - lo;
    const index_t cut = std::clamp(static_cast<index_t>(std::llround(static_cast<double>(count) *
                                                                      static_cast<double>(m_lower) /
                                                                      static_cast<double>(m))),
                                   m_lower, count - m_upper);
    std::nth_element(order_.begin() + lo, order_.begin() + lo + cut, order_.begin() + hi, [&](index_t a, index_t b) {
      const double xa = coordinate(a), xb = coordinate(b);
      return std::tie(xa, a) < std::tie(xb, b);
    });
    const index_t repaired = repair(lo, lo + cut, hi, m_lower, m_upper);
    split(lo, repaired, m_lower, depth + 1);
    split(repaired, hi, m_upper, depth + 1);
  }

  std::vector<index_t>& level(int depth) { return node_[at(depth)]; }

  /// Orders the fine elements by part (stably), so that split() can take each part's range.
  void arrange(const std::vector<index_t>& part) {
    std::stable_sort(order_.begin(), order_.end(), [&](index_t a, index_t b) { return part[at(a)] < part[at(b)]; });
  }

 private:
  /// A straight cut leaves pieces of one side that reach the rest of that side only through the
  /// other (an element whose centroid lies just across the cut): each side keeps its largest
  /// connected piece and hands its other pieces that touch the other side over to it, as long as
  /// it keeps at least its m_side elements. The node's union is unchanged, so the levels still
  /// nest; for a connected node two passes leave both sides connected. Reorders order_[lo, hi)
  /// (the lower side first) and returns the new cut.
  index_t repair(index_t lo, index_t cut, index_t hi, index_t m_lower, index_t m_upper) {
    const index_t node = ++stamps_;
    std::array<index_t, 2> size{cut - lo, hi - cut};
    for (index_t q = lo; q < hi; ++q) {
      stamp_[at(order_[at(q)])] = node;
      side_[at(order_[at(q)])] = q < cut ? 0 : 1;
    }
    for (int pass = 0; pass < 2; ++pass)
      for (int side = 0; side < 2; ++side) {
        // The side's connected pieces, by breadth-first search (a new mark per search).
        std::vector<std::vector<index_t>> pieces;
        const index_t mark = ++visits_;
        for (index_t q = lo; q < hi; ++q) {
          const index_t start = order_[at(q)];
          if (side_[at(start)] != side || seen_[at(start)] == mark) continue;
          std::vector<index_t> piece{start};
          seen_[at(start)] = mark;
          for (std::size_t r = 0; r < piece.size(); ++r) {
            const index_t e = piece[r];
            for (index_t t = neighbour_start_[at(e)]; t < neighbour_start_[at(e) + 1]; ++t) {
              const index_t f = neighbours_[at(t)];
              if (stamp_[at(f)] == node && side_[at(f)] == side && seen_[at(f)] != mark) {
                seen_[at(f)] = mark;
                piece.push_back(f);
              }
            }
          }
          pieces.push_back(std::move(piece));
        }
        if (pieces.size() < 2) continue;
        const auto largest = std::max_element(pieces.begin(), pieces.end(),
                                              [](const auto& a, const auto& b) { return a.size() < b.size(); });
        const index_t keep = side == 0 ? m_lower : m_upper;
        for (auto piece = pieces.begin(); piece != pieces.end(); ++piece) {
          if (piece == largest || size[at(side)] - static_cast<index_t>(piece->size()) < keep) continue;
          const bool touches = std::any_of(piece->begin(), piece->end(), [&](index_t e) {
            for (index_t t = neighbour_start_[at(e)]; t < neighbour_start_[at(e) + 1]; ++t) {
              const index_t f = neighbours_[at(t)];
              if (stamp_[at(f)] == node && side_[at(f)] != side) return true;
            }
            return false;
          });
          if (!touches) continue;
          for (const index_t e : *piece) side_[at(e)] = 1 - side;
          size[at(side)] -= static_cast<index_t>(piece->size());
          size[at(1 - side)] += static_cast<index_t>(piece->size());
        }
      }
    std::stable_partition(order_.begin() + lo, order_.begin() + hi, [&](index_t e) { return side_[at(e)] == 0; });
    return lo + size[0];
  }

  std::vector<Point3> centroids_;
  int dimension_;
  std::vector<index_t> order_;
  std::vector<index_t> counter_;
  std::vector<std::vector<index_t>> node_;
  std::vector<index_t> neighbour_start_, neighbours_;
  std::vector<index_t> stamp_;  ///< per fine element: the last node (repair call) it was in
  std::vector<int> side_;       ///< per fine element: 0 lower, 1 upper side of its node's cut
  std::vector<index_t> seen_;   ///< per fine element: the last search that reached it
  index_t stamps_ = 0, visits_ = 0;
};

/// The fine elements' vertex centroids.
std::vector<Point3> fine_centroids(const Mesh& mesh) {
  std::vector<Point3> centroids(at(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const int nv = n_vertices(mesh.element_shape(e));
    Point3 sum{};
    for (int v = 0; v < nv; ++v) sum = sum + mesh.nodes[at(mesh.element_node_ids(e)[v])];
    centroids[at(e)] = (1.0 / nv) * sum;
  }
  return centroids;
}

/// n agglomerates from a partition into n_parts < n parts: each part bisected (as
/// agglomerate_bisection's leaves) into a share of n proportional to its size (largest
/// remainders; at least 1 and at most its size each).
std::vector<index_t> bisect_parts(const Mesh& mesh, const Connectivity& connectivity, const std::vector<index_t>& part,
                                  index_t n_parts, index_t n) {
  const index_t n_fine = mesh.n_elements();
  std::vector<index_t> size(at(n_parts), 0), share(at(n_parts), 0);
  for (const index_t p : part) ++size[at(p)];
  std::vector<double> remainder(at(n_parts), 0);
  index_t total = 0;
  for (index_t p = 0; p < n_parts; ++p) {
    const double exact = static_cast<double>(n) * static_cast<double>(size[at(p)]) / static_cast<double>(n_fine);
    share[at(p)] = std::min(size[at(p)], std::max<index_t>(1, static_cast<index_t>(exact)));
    remainder[at(p)] = exact - static_cast<double>(share[at(p)]);
    total += share[at(p)];
  }
  std::vector<index_t> by_remainder(at(n_parts));
  std::iota(by_remainder.begin(), by_remainder.end(), index_t{0});
  std::stable_sort(by_remainder.begin(), by_remainder.end(),
                   [&](index_t a, index_t b) { return remainder[at(a)] > remainder[at(b)]; });
  while (total < n)  // hand out the rest by the largest remainders (n <= n_fine: some part has room)
    for (const index_t p : by_remainder)
      if (total < n && share[at(p)] < size[at(p)]) {
        ++share[at(p)];
        ++total;
      }
  while (total > n)  // take back (forced 1s) from the smallest remainders (n >= n_parts: some share > 1)
    for (auto p = by_remainder.rbegin(); p != by_remainder.rend(); ++p)
      if (total > n && share[at(*p)] > 1) {
        --share[at(*p)];
        --total;
      }
  const index_t largest = *std::max_element(share.begin(), share.end());
  int max_depth = 0;
  while ((index_t{1} << max_depth) < largest) ++max_depth;
  Bisection tree(fine_centroids(mesh), connectivity, mesh.dimension, max_depth);
  tree.arrange(part);
  index_t lo = 0;
  for (index_t p = 0; p < n_parts; ++p) {
    if (size[at(p)] > 0) tree.split(lo, lo + size[at(p)], share[at(p)], 0);
    lo += size[at(p)];
  }
  return std::move(tree.level(max_depth));
}

}  // namespace

Agglomeration make_connected(const Mesh& mesh, const Connectivity& connectivity, std::vector<index_t> agglomerate) {
  const index_t n_fine = mesh.n_elements();
  if (static_cast<index_t>(agglomerate.size()) != n_fine)
    throw InputError(cat("the agglomeration has ", agglomerate.size(), " entries for the ", n_fine,
                         " fine elements of ", source_of(mesh)));
  index_t n = 0;
  for (index_t e = 0; e < n_fine; ++e) {
    if (agglomerate[at(e)] < 0)
      throw InputError(cat("the agglomeration puts ", mesh.element_label(e), " into agglomerate ", agglomerate[at(e)]));
    n = std::max(n, agglomerate[at(e)] + 1);
  }
  Agglomeration result;
  // Compact: drop unused ids.
  std::vector<index_t> compact(at(n), -1);
  for (const index_t k : agglomerate) compact[at(k)] = 0;
  index_t used = 0;
  for (index_t& id : compact)
    if (id == 0) id = used++;
  result.n_empty = n - used;
  for (index_t& k : agglomerate) k = compact[at(k)];

  // Split: one id per connected piece.
  UnionFind pieces(n_fine);
  for (const Face& face : connectivity.faces)
    if (face.element_p >= 0 && agglomerate[at(face.element_m)] == agglomerate[at(face.element_p)])
      pieces.unite(face.element_m, face.element_p);
  std::vector<index_t> piece_id(at(n_fine), -1), root_of(at(used), -1), split;
  index_t next = used;
  for (index_t e = 0; e < n_fine; ++e) {
    const index_t k = agglomerate[at(e)], r = pieces.find(e);
    if (piece_id[at(r)] < 0) {
      if (root_of[at(k)] < 0) {
        root_of[at(k)] = r;
        piece_id[at(r)] = k;
      } else {
        piece_id[at(r)] = next++;
        if (split.empty() || split.back() != k) split.push_back(k);
      }
    }
    agglomerate[at(e)] = piece_id[at(r)];
  }
  std::sort(split.begin(), split.end());
  split.erase(std::unique(split.begin(), split.end()), split.end());
  result.n_split = next - used;
  result.n_agglomerates = next;
  result.agglomerate = std::move(agglomerate);

  if (result.n_empty > 0)
    result.note = cat(result.n_empty, " of the ", n, " agglomerates asked for received no fine element and ",
                      result.n_empty == 1 ? "was" : "were", " dropped");
  if (!split.empty()) {
    std::string ids;
    for (std::size_t q = 0; q < std::min(split.size(), list_limit); ++q) ids += cat(q ? ", " : "", split[q]);
    if (split.size() > list_limit) ids += cat(", ... (", split.size(), " in all)");
    result.note += cat(result.note.empty() ? "" : "; ", "agglomerate", split.size() == 1 ? " " : "s ", ids,
                       split.size() == 1 ? " was" : " were", " not connected through fine faces and ",
                       split.size() == 1 ? "was" : "were", " split into ", split.size() + at(result.n_split),
                       " connected pieces (", result.n_agglomerates, " agglomerates in all)");
  }
  return result;
}

Agglomeration agglomerate_metis(const Mesh& mesh, const Connectivity& connectivity, index_t n, int seed) {
  check_count(mesh, n);
  if (!metis_available())
    throw InputError("agglomeration by METIS needs METIS, which this build of flowdg lacks: install libmetis-dev "
                     "(Debian/Ubuntu; metis elsewhere) and reconfigure, or use the bisection agglomeration");
  if (n > INT_MAX) throw InputError(cat("METIS takes at most ", INT_MAX, " parts, not ", n));
  const auto metis = [&](index_t parts) {
    PartitionOptions options;
    options.parts = static_cast<int>(parts);
    options.weights.assign(at(mesh.n_elements()), 1.0);
    options.seed = seed;
    options.contiguous = true;
    const Partition partition = partition_mesh(mesh, connectivity, options);
    return std::vector<index_t>(partition.part.begin(), partition.part.end());
  };
  std::vector<index_t> assignment;
  std::string fallback;
  // Parts of fewer than 8 fine elements on average: METIS's k-way leaves some empty (and prints
  // "Cannot bisect a graph with 0 vertices" to stdout while it tries: 13 of the 21 s of 500,660
  // triangles into 126,000 parts), so go straight to the fallback below.
  const bool small_parts = n * 8 > mesh.n_elements();
  try {
    if (small_parts) throw Error("parts of fewer than 8 fine elements");
    assignment = metis(n);
  } catch (const InputError&) {
    throw;
  } catch (const Error&) {
    // METIS's k-way partitioning leaves parts empty (or fails) when asked for very many parts of a
    // few elements each (500,000 triangles into 60,000 parts, 800 into 400): ask it for 8 times
    // fewer parts, as often as needed, and bisect each part into its share.
    index_t coarse = n;
    for (;;) {
      coarse = std::max<index_t>(1, coarse / 8);
      try {
        assignment = metis(coarse);
        break;
      } catch (const InputError&) {
        throw;
      } catch (const Error&) {
        if (coarse == 1) throw;
      }
    }
    assignment = bisect_parts(mesh, connectivity, assignment, coarse, n);
    fallback = small_parts ? cat(n, " agglomerates of ", mesh.n_elements(), " fine elements average fewer than 8 each, which METIS's ",
                                 "k-way leaves empty, so METIS made ", coarse, " parts, each bisected into its share")
                           : cat("METIS left parts empty when asked for ", n, " parts, so its ", coarse,
                                 " parts were each bisected into their share of the ", n, " agglomerates");
  }
  Agglomeration result = make_connected(mesh, connectivity, std::move(assignment));
  if (!fallback.empty()) result.note = fallback + (result.note.empty() ? "" : "; ") + result.note;
  return result;
}

std::vector<Agglomeration> agglomerate_bisection(const Mesh& mesh, const Connectivity& connectivity, index_t n) {
  check_count(mesh, n);
  int max_depth = 0;
  while ((index_t{1} << max_depth) < n) ++max_depth;
  Bisection tree(fine_centroids(mesh), connectivity, mesh.dimension, max_depth);
  tree.split(0, mesh.n_elements(), n, 0);
  std::vector<Agglomeration> levels;
  for (int depth = max_depth; depth >= 0; --depth)
    levels.push_back(make_connected(mesh, connectivity, std::move(tree.level(depth))));
  return levels;
}

}  // namespace flowdg::poly
