#include "flowdg/poly/poly_mesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <tuple>
#include <utility>

#include "flowdg/core/error.hpp"

namespace flowdg::poly {

namespace {

// How many offending items a message lists before giving only the count.
constexpr std::size_t list_limit = 10;

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

double norm(Point3 a) { return std::sqrt(dot(a, a)); }

/// The signed measure of a simplex of dimension + 1 points (area in 2D, volume in 3D).
double signed_measure(int dimension, const Point3* p) {
  if (dimension == 2) return 0.5 * cross(p[1] - p[0], p[2] - p[0]).z;
  return dot(cross(p[1] - p[0], p[2] - p[0]), p[3] - p[0]) / 6.0;
}

/// The right-hand-rule normal of a face of `dimension` points (2D: the tangent turned clockwise,
/// length = the face's length; 3D: (b - a) x (c - a), length = twice the face's area).
Point3 raw_normal(int dimension, const Point3* p) {
  if (dimension == 2) {
    const Point3 t = p[1] - p[0];
    return {t.y, -t.x, 0};
  }
  return cross(p[1] - p[0], p[2] - p[0]);
}

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

/// "a, b, c" for up to list_limit items, then " (N in all)".
std::string list(const std::vector<index_t>& items) {
  std::string text;
  for (std::size_t k = 0; k < std::min(items.size(), list_limit); ++k) text += cat(k ? ", " : "", items[k]);
  if (items.size() > list_limit) text += ", ...";
  if (items.size() > 1) text += cat(" (", items.size(), " in all)");
  return text;
}

/// The largest distance between two of `points`: pairs visited by decreasing distance from
/// `center`, stopping when the triangle inequality bound r_i + r_j falls below the best so far.
double largest_distance(const std::vector<Point3>& points, Point3 center) {
  const std::size_t n = points.size();
  std::vector<std::pair<double, std::size_t>> by_radius(n);
  for (std::size_t i = 0; i < n; ++i) by_radius[i] = {norm(points[i] - center), i};
  std::sort(by_radius.begin(), by_radius.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  double best = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (by_radius[i].first + by_radius[0].first < best) break;
    for (std::size_t j = 0; j < i; ++j) {
      if (by_radius[i].first + by_radius[j].first < best) break;
      best = std::max(best, norm(points[by_radius[i].second] - points[by_radius[j].second]));
    }
  }
  return best;
}

/// An element's boundary sub-face as seen from the element: outward unit normal, a vertex, measure.
struct OutwardFace {
  Point3 normal;
  Point3 vertex;
  double measure;
};

/// Calls visit(sub-face index, interior?, side (0 first, 1 second; 0 on the boundary)) for every
/// boundary sub-face of element k: interior ones interface by interface, then boundary ones.
template <class Visit>
void for_each_subface(const PolyMesh& poly, index_t k, const Visit& visit) {
  for (index_t q = poly.element_interface_start[at(k)]; q < poly.element_interface_start[at(k) + 1]; ++q) {
    const index_t i = poly.element_interfaces[at(q)];
    const int side = poly.interface_elements[at(2 * i)] == k ? 0 : 1;
    for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f) visit(f, true, side);
  }
  for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f) visit(f, false, 0);
}

std::vector<OutwardFace> outward_faces(const PolyMesh& poly, index_t k) {
  std::vector<OutwardFace> faces;
  const int d = poly.dimension;
  for_each_subface(poly, k, [&](index_t f, bool interior, int side) {
    if (interior) {
      const Point3 n = poly.interior_normal[at(f)];
      faces.push_back({side == 0 ? n : -1.0 * n, poly.nodes[at(poly.interior_vertices[at(d * f)])],
                       poly.interior_measure[at(f)]});
    } else {
      faces.push_back({poly.boundary_normal[at(f)], poly.nodes[at(poly.boundary_vertices[at(d * f)])],
                       poly.boundary_measure[at(f)]});
    }
  });
  return faces;
}

/// The smallest signed distance from x to the faces' planes (positive inside), giving up (and
/// returning a value <= floor) as soon as it is at most `floor`.
double smallest_distance(const std::vector<OutwardFace>& faces, Point3 x, double floor) {
  double smallest = std::numeric_limits<double>::infinity();
  for (const OutwardFace& face : faces) {
    smallest = std::min(smallest, dot(face.normal, face.vertex - x));
    if (smallest <= floor) break;
  }
  return smallest;
}

/// A small dense vector / matrix of the kernel LP (at most 4 unknowns: x, y, z, t).
using Vec = std::array<double, 4>;

/// Solves the n x n system M u = r (rows of M given) by Gaussian elimination with partial
/// pivoting; false when M is singular to working precision.
bool solve(int n, std::array<Vec, 4> m, Vec r, Vec& u) {
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int i = c + 1; i < n; ++i)
      if (std::abs(m[at(i)][at(c)]) > std::abs(m[at(pivot)][at(c)])) pivot = i;
    if (!(std::abs(m[at(pivot)][at(c)]) > 1e-13)) return false;
    std::swap(m[at(c)], m[at(pivot)]);
    std::swap(r[at(c)], r[at(pivot)]);
    for (int i = c + 1; i < n; ++i) {
      const double f = m[at(i)][at(c)] / m[at(c)][at(c)];
      for (int j = c; j < n; ++j) m[at(i)][at(j)] -= f * m[at(c)][at(j)];
      r[at(i)] -= f * r[at(c)];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double sum = r[at(i)];
    for (int j = i + 1; j < n; ++j) sum -= m[at(i)][at(j)] * u[at(j)];
    u[at(i)] = sum / m[at(i)][at(i)];
  }
  return true;
}

/// The point x farthest inside all the faces' planes: the linear program max t subject to
/// n_F . x + t <= n_F . v_F for every face F, solved by the simplex method on its vertices
/// (d + 1 active constraints; Bland's rule, so degenerate vertices - coplanar sub-faces - do not
/// cycle), in coordinates centred at `origin` and scaled by 1 / scale. Returns false when it did
/// not finish (then `point` is not set); the caller checks the point it returns in any case.
bool deepest_point(const std::vector<OutwardFace>& faces, int d, Point3 origin, double scale, Point3& point) {
  const int n_unknowns = d + 1;
  const std::size_t m = faces.size();
  if (m < static_cast<std::size_t>(n_unknowns) || !(scale > 0)) return false;
  std::vector<Vec> a(m);
  std::vector<double> b(m);
  for (std::size_t i = 0; i < m; ++i) {
    const Point3 n = faces[i].normal;
    a[i] = {n.x, n.y, d == 2 ? 1.0 : n.z, d == 2 ? 0.0 : 1.0};
    b[i] = dot(n, faces[i].vertex - origin) / scale;
  }
  const auto product = [&](const Vec& x, const Vec& y) {
    double sum = 0;
    for (int j = 0; j < n_unknowns; ++j) sum += x[at(j)] * y[at(j)];
    return sum;
  };
  Vec c{};
  c[at(d)] = 1;  // maximise t
  constexpr double eps = 1e-12;
  // The nearest blocking constraint along u from z (none: m), ties to the lowest index.
  const auto ratio_test = [&](const Vec& z, const Vec& u, const std::vector<std::size_t>& active, double& step) {
    std::size_t blocking = m;
    for (std::size_t i = 0; i < m; ++i) {
      const double rate = product(a[i], u);
      if (!(rate > eps) || std::find(active.begin(), active.end(), i) != active.end()) continue;
      const double s = std::max(0.0, b[i] - product(a[i], z)) / rate;
      if (blocking == m || s < step - 1e-14) {
        step = s;
        blocking = i;
      }
    }
    return blocking;
  };

  // Phase 1: from x = origin, t = the smallest slack, add active constraints until d + 1 are.
  Vec z{};
  std::vector<std::size_t> active{0};
  z[at(d)] = b[0];
  for (std::size_t i = 1; i < m; ++i)
    if (b[i] < z[at(d)]) {
      z[at(d)] = b[i];
      active[0] = i;
    }
  while (static_cast<int>(active.size()) < n_unknowns) {
    // An orthonormal basis of the active rows, then a direction orthogonal to them: c's part
    // outside their span, else a coordinate vector's.
    std::vector<Vec> basis;
    const auto reject = [&](Vec v) {
      for (const Vec& q : basis) {
        const double f = product(v, q);
        for (int j = 0; j < n_unknowns; ++j) v[at(j)] -= f * q[at(j)];
      }
      return v;
    };
    for (const std::size_t i : active) {
      Vec v = reject(a[i]);
      const double length = std::sqrt(product(v, v));
      if (!(length > eps)) return false;
      for (int j = 0; j < n_unknowns; ++j) v[at(j)] /= length;
      basis.push_back(v);
    }
    Vec u = reject(c);
    for (int k = 0; k < n_unknowns && !(product(u, u) > eps); ++k) {
      Vec e{};
      e[at(k)] = 1;
      u = reject(e);
    }
    double step = 0;
    std::size_t blocking = ratio_test(z, u, active, step);
    if (blocking == m) {
      if (product(c, u) > eps) return false;  // unbounded: cannot happen for a closed surface
      for (int j = 0; j < n_unknowns; ++j) u[at(j)] = -u[at(j)];
      blocking = ratio_test(z, u, active, step);
      if (blocking == m) return false;
    }
    for (int j = 0; j < n_unknowns; ++j) z[at(j)] += step * u[at(j)];
    active.push_back(blocking);
  }

  // Phase 2: the simplex method over vertices, Bland's rule.
  const std::size_t max_iterations = 100 + 20 * m;
  for (std::size_t iteration = 0; iteration < max_iterations; ++iteration) {
    std::array<Vec, 4> rows{}, columns{};
    Vec rhs{};
    for (int r = 0; r < n_unknowns; ++r) {
      rows[at(r)] = a[active[at(r)]];
      rhs[at(r)] = b[active[at(r)]];
      for (int j = 0; j < n_unknowns; ++j) columns[at(j)][at(r)] = a[active[at(r)]][at(j)];
    }
    Vec lambda{};
    if (!solve(n_unknowns, rows, rhs, z) || !solve(n_unknowns, columns, c, lambda)) return false;
    int leaving = -1;
    for (int r = 0; r < n_unknowns; ++r)
      if (lambda[at(r)] < -eps && (leaving < 0 || active[at(r)] < active[at(leaving)])) leaving = r;
    if (leaving < 0) {
      point = origin + scale * Point3{z[0], z[1], d == 2 ? 0.0 : z[2]};
      return true;
    }
    Vec e{}, u{};
    e[at(leaving)] = -1;
    if (!solve(n_unknowns, rows, e, u)) return false;
    double step = 0;
    const std::size_t entering = ratio_test(z, u, active, step);
    if (entering == m) return false;
    active[at(leaving)] = entering;
  }
  return false;
}

/// The fine element's vertices' coordinates.
std::array<Point3, 4> fine_points(const PolyMesh& poly, index_t e) {
  std::array<Point3, 4> p{};
  const int nv = poly.dimension + 1;
  for (int v = 0; v < nv; ++v) p[at(v)] = poly.nodes[at(poly.fine_vertices[at(nv * e + v)])];
  return p;
}

/// Appends a simplex to `set`, positively oriented.
void append_simplex(SubSimplexSet& set, std::array<Point3, 4> p) {
  const int d = set.dimension;
  double m = signed_measure(d, p.data());
  if (m < 0) {
    std::swap(p[at(d - 1)], p[at(d)]);
    m = -m;
  }
  for (int v = 0; v <= d; ++v) set.points.push_back(p[at(v)]);
  set.measure.push_back(m);
}

CountRange count_range(const std::vector<index_t>& counts) {
  CountRange range;
  if (counts.empty()) return range;
  range.min = *std::min_element(counts.begin(), counts.end());
  range.max = *std::max_element(counts.begin(), counts.end());
  range.mean = static_cast<double>(std::accumulate(counts.begin(), counts.end(), index_t{0})) /
               static_cast<double>(counts.size());
  return range;
}

}  // namespace

const char* sub_simplices_name(SubSimplices kind) { return kind == SubSimplices::fine ? "fine" : "coarse"; }

PolyMesh build_poly_mesh(const Mesh& mesh, const Connectivity& connectivity, const std::vector<index_t>& agglomerate,
                         const PolyMeshOptions& options) {
  const int d = mesh.dimension;
  const std::string source = mesh.source.empty() ? std::string("the fine mesh") : mesh.source;
  if (d != 2 && d != 3)
    throw InputError(cat("polytopic meshes are 2D or 3D; ", source, " has dimension ", d));
  const index_t n_fine = mesh.n_elements();
  if (n_fine == 0) throw InputError(cat("cannot agglomerate ", source, ": it has no elements"));
  const ElementType expected = d == 2 ? ElementType::triangle3 : ElementType::tetrahedron4;
  for (index_t e = 0; e < n_fine; ++e)
    if (mesh.element_types[at(e)] != expected)
      throw InputError(cat("polytopic meshes are built from straight ",
                           d == 2 ? "3-node triangles" : "4-node tetrahedra", " (", d, "D); ", mesh.element_label(e),
                           " of ", source, " is a ", type_name(mesh.element_types[at(e)])));
  if (static_cast<index_t>(agglomerate.size()) != n_fine)
    throw InputError(cat("the agglomeration has ", agglomerate.size(), " entries for the ", n_fine,
                         " fine elements of ", source));
  const int nv = d + 1;
  if (connectivity.max_faces != nv || static_cast<index_t>(connectivity.element_faces.size()) != n_fine * nv)
    throw InputError(cat("the connectivity given does not belong to ", source, " (", n_fine, " elements)"));

  index_t n = 0;
  for (index_t e = 0; e < n_fine; ++e) {
    const index_t k = agglomerate[at(e)];
    if (k < 0) throw InputError(cat("the agglomeration puts ", mesh.element_label(e), " into agglomerate ", k));
    n = std::max(n, k + 1);
  }

  PolyMesh poly;
  poly.dimension = d;
  poly.source = mesh.source;
  poly.nodes = mesh.nodes;
  poly.boundary_names = mesh.boundary_names;
  poly.agglomerate_of = agglomerate;
  poly.fine_vertices.resize(at(n_fine * nv));
  std::vector<double> fine_measure(at(n_fine));
  std::vector<Point3> fine_centroid(at(n_fine));
  for (index_t e = 0; e < n_fine; ++e) {
    const index_t* ids = mesh.element_node_ids(e);
    std::copy(ids, ids + nv, poly.fine_vertices.begin() + nv * e);
    const std::array<Point3, 4> p = fine_points(poly, e);
    double longest = 0;
    Point3 sum{};
    for (int a = 0; a < nv; ++a) {
      sum = sum + p[at(a)];
      for (int b = 0; b < a; ++b) longest = std::max(longest, norm(p[at(a)] - p[at(b)]));
    }
    const double m = std::abs(signed_measure(d, p.data()));
    if (!(m > 1e-12 * std::pow(longest, d)))
      throw InputError(cat(mesh.element_label(e), " of ", source, " has ", d == 2 ? "area " : "volume ", m,
                           ": a polytopic mesh needs fine elements of positive measure"));
    fine_measure[at(e)] = m;
    fine_centroid[at(e)] = (1.0 / nv) * sum;
  }

  // Elements: their fine elements by counting sort (ascending in each), measure, centroid, box.
  poly.element_start.assign(at(n + 1), 0);
  for (const index_t k : agglomerate) ++poly.element_start[at(k) + 1];
  std::vector<index_t> unused;
  for (index_t k = 0; k < n; ++k)
    if (poly.element_start[at(k) + 1] == 0) unused.push_back(k);
  if (!unused.empty())
    throw InputError(cat("agglomerate ", list(unused), " of 0..", n - 1,
                         " has no fine elements: agglomerate numbers must run from 0 without gaps"));
  std::partial_sum(poly.element_start.begin(), poly.element_start.end(), poly.element_start.begin());
  poly.fine_elements.resize(at(n_fine));
  {
    std::vector<index_t> next(poly.element_start.begin(), poly.element_start.end() - 1);
    for (index_t e = 0; e < n_fine; ++e) poly.fine_elements[at(next[at(agglomerate[at(e)])]++)] = e;
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  poly.measure.assign(at(n), 0);
  poly.centroid.assign(at(n), Point3{});
  poly.box_min.assign(at(n), Point3{inf, inf, d == 2 ? 0 : inf});
  poly.box_max.assign(at(n), Point3{-inf, -inf, d == 2 ? 0 : -inf});
  for (index_t k = 0; k < n; ++k) {
    Point3 moment{};
    Point3& lo = poly.box_min[at(k)];
    Point3& hi = poly.box_max[at(k)];
    for (index_t q = poly.element_start[at(k)]; q < poly.element_start[at(k) + 1]; ++q) {
      const index_t e = poly.fine_elements[at(q)];
      poly.measure[at(k)] += fine_measure[at(e)];
      moment = moment + fine_measure[at(e)] * fine_centroid[at(e)];
      for (int v = 0; v < nv; ++v) {
        const Point3 x = poly.nodes[at(poly.fine_vertices[at(nv * e + v)])];
        lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
        hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
      }
    }
    poly.centroid[at(k)] = (1.0 / poly.measure[at(k)]) * moment;
  }

  // Faces: check them, join the fine elements of each agglomerate, collect the sub-faces.
  struct Keyed {
    index_t first, second, face;
  };
  std::vector<Keyed> interior, boundary;
  UnionFind pieces(n_fine);
  std::vector<index_t> periodic;
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[at(f)];
    FLOWDG_ASSERT(face.element_m >= 0 && face.element_m < n_fine && face.element_p < n_fine, "face ", f,
                  " names elements outside the mesh");
    if (face.element_p < 0) {
      boundary.push_back({agglomerate[at(face.element_m)], face.tag, f});
      continue;
    }
    // Padded with the largest id, so that whole arrays are sorted (a variable-length sort of a
    // fixed array trips GCC 12's -Warray-bounds).
    constexpr index_t pad = std::numeric_limits<index_t>::max();
    std::array<index_t, 4> m{pad, pad, pad, pad}, p{pad, pad, pad, pad};
    face_vertex_ids(mesh, face.element_m, face.local_face_m, m.data());
    face_vertex_ids(mesh, face.element_p, face.local_face_p, p.data());
    std::sort(m.begin(), m.end());
    std::sort(p.begin(), p.end());
    if (m != p) {
      periodic.push_back(f);
      continue;
    }
    const index_t a = agglomerate[at(face.element_m)], b = agglomerate[at(face.element_p)];
    if (a == b)
      pieces.unite(face.element_m, face.element_p);
    else
      interior.push_back({std::min(a, b), std::max(a, b), f});
  }
  if (!periodic.empty())
    throw InputError(cat("interior face ", list(periodic), " of ", source,
                         " joins elements across different vertices (a periodic join): polytopic meshes do not "
                         "support periodic boundaries yet"));
  {
    std::vector<index_t> root(at(n), -1), disconnected;
    for (index_t e = 0; e < n_fine; ++e) {
      const index_t k = agglomerate[at(e)], r = pieces.find(e);
      if (root[at(k)] < 0)
        root[at(k)] = r;
      else if (root[at(k)] != r && (disconnected.empty() || disconnected.back() != k))
        disconnected.push_back(k);
    }
    std::sort(disconnected.begin(), disconnected.end());
    disconnected.erase(std::unique(disconnected.begin(), disconnected.end()), disconnected.end());
    if (!disconnected.empty())
      throw InputError(cat("agglomerate ", list(disconnected), " of ", source,
                           " is not connected through fine faces: each element of a polytopic mesh must be one piece "
                           "(poly::make_connected splits them)"));
  }
  const auto by_key = [](const Keyed& x, const Keyed& y) {
    return std::tie(x.first, x.second, x.face) < std::tie(y.first, y.second, y.face);
  };
  std::sort(interior.begin(), interior.end(), by_key);
  std::sort(boundary.begin(), boundary.end(), by_key);

  // One sub-face: its vertices ordered so that the right-hand normal points away from fine element
  // `inside`; appends the ids and returns (unit normal, measure).
  const auto orient = [&](index_t f, index_t inside, std::vector<index_t>& vertices) {
    const Face& face = connectivity.faces[at(f)];
    std::array<index_t, 4> ids{};
    face_vertex_ids(mesh, face.element_m, face.local_face_m, ids.data());
    std::array<Point3, 3> x{};
    for (int v = 0; v < d; ++v) x[at(v)] = mesh.nodes[at(ids[at(v)])];
    Point3 normal = raw_normal(d, x.data());
    if (dot(normal, x[0] - fine_centroid[at(inside)]) < 0) {
      std::swap(ids[at(d - 2)], ids[at(d - 1)]);
      normal = -1.0 * normal;
    }
    vertices.insert(vertices.end(), ids.begin(), ids.begin() + d);
    const double length = norm(normal);
    return std::pair{(1.0 / length) * normal, d == 2 ? length : 0.5 * length};
  };

  // Interfaces and their sub-faces.
  for (std::size_t q = 0; q < interior.size(); ++q) {
    const Keyed& sub = interior[q];
    if (q == 0 || sub.first != interior[q - 1].first || sub.second != interior[q - 1].second) {
      if (q > 0) poly.interface_start.push_back(static_cast<index_t>(q));
      poly.interface_elements.push_back(sub.first);
      poly.interface_elements.push_back(sub.second);
    }
    const Face& face = connectivity.faces[at(sub.face)];
    const bool m_first = agglomerate[at(face.element_m)] == sub.first;
    const index_t inside = m_first ? face.element_m : face.element_p;
    const index_t outside = m_first ? face.element_p : face.element_m;
    const auto [normal, measure] = orient(sub.face, inside, poly.interior_vertices);
    poly.interior_fine_face.push_back(sub.face);
    poly.interior_fine_elements.push_back(inside);
    poly.interior_fine_elements.push_back(outside);
    poly.interior_normal.push_back(normal);
    poly.interior_measure.push_back(measure);
  }
  if (!interior.empty()) poly.interface_start.push_back(static_cast<index_t>(interior.size()));
  const index_t n_interfaces = poly.n_interfaces();

  // Element -> interfaces, by neighbour.
  poly.element_interface_start.assign(at(n + 1), 0);
  for (index_t i = 0; i < n_interfaces; ++i)
    for (int s = 0; s < 2; ++s) ++poly.element_interface_start[at(poly.interface_elements[at(2 * i + s)]) + 1];
  std::partial_sum(poly.element_interface_start.begin(), poly.element_interface_start.end(),
                   poly.element_interface_start.begin());
  poly.element_interfaces.resize(at(2 * n_interfaces));
  {
    std::vector<index_t> next(poly.element_interface_start.begin(), poly.element_interface_start.end() - 1);
    for (index_t i = 0; i < n_interfaces; ++i)
      for (int s = 0; s < 2; ++s) poly.element_interfaces[at(next[at(poly.interface_elements[at(2 * i + s)])]++)] = i;
    for (index_t k = 0; k < n; ++k)
      std::sort(poly.element_interfaces.begin() + poly.element_interface_start[at(k)],
                poly.element_interfaces.begin() + poly.element_interface_start[at(k) + 1],
                [&](index_t i, index_t j) { return poly.neighbour(i, k) < poly.neighbour(j, k); });
  }

  // Boundary sub-faces, by element.
  poly.boundary_start.assign(at(n + 1), 0);
  for (const Keyed& sub : boundary) {
    ++poly.boundary_start[at(sub.first) + 1];
    const index_t inside = connectivity.faces[at(sub.face)].element_m;
    const auto [normal, measure] = orient(sub.face, inside, poly.boundary_vertices);
    poly.boundary_fine_face.push_back(sub.face);
    poly.boundary_fine_element.push_back(inside);
    poly.boundary_tag.push_back(static_cast<int>(sub.second));
    poly.boundary_normal.push_back(normal);
    poly.boundary_measure.push_back(measure);
  }
  std::partial_sum(poly.boundary_start.begin(), poly.boundary_start.end(), poly.boundary_start.begin());

  // Diameters (the farthest pair of boundary vertices), kernel points and star-shapedness.
  poly.diameter.assign(at(n), 0);
  poly.kernel_point.assign(at(n), Point3{});
  poly.kernel_distance.assign(at(n), 0);
  poly.star_shaped.assign(at(n), 0);
  const int n_candidates = std::max(1, options.kernel_candidates);
  for (index_t k = 0; k < n; ++k) {
    std::vector<index_t> ids;
    for_each_subface(poly, k, [&](index_t f, bool is_interior, int) {
      const std::vector<index_t>& vertices = is_interior ? poly.interior_vertices : poly.boundary_vertices;
      ids.insert(ids.end(), vertices.begin() + d * f, vertices.begin() + d * (f + 1));
    });
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<Point3> points(ids.size());
    for (std::size_t v = 0; v < ids.size(); ++v) points[v] = poly.nodes[at(ids[v])];
    poly.diameter[at(k)] = largest_distance(points, poly.centroid[at(k)]);

    const std::vector<OutwardFace> faces = outward_faces(poly, k);
    const Point3 center = poly.centroid[at(k)];
    const double at_center = smallest_distance(faces, center, -inf);
    Point3 best_point = center;
    double best = at_center;
    // Other candidates: the centroids of the fine elements nearest to the element's centroid.
    const index_t first = poly.element_start[at(k)], count = poly.element_start[at(k) + 1] - first;
    std::vector<index_t> near(poly.fine_elements.begin() + first, poly.fine_elements.begin() + first + count);
    const auto distance = [&](index_t e) { return dot(fine_centroid[at(e)] - center, fine_centroid[at(e)] - center); };
    const std::size_t tried = std::min(near.size(), static_cast<std::size_t>(n_candidates - 1));
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(tried), near.end(),
                      [&](index_t a, index_t b) { return distance(a) < distance(b); });
    for (std::size_t c = 0; c < tried; ++c) {
      const Point3 x = fine_centroid[at(near[c])];
      const double value = smallest_distance(faces, x, best);
      if (value > best) {
        best = value;
        best_point = x;
      }
    }
    // The point deepest inside every sub-face's plane (a linear program), if better still.
    Point3 deepest;
    if (deepest_point(faces, d, center, poly.diameter[at(k)], deepest)) {
      const double value = smallest_distance(faces, deepest, best);
      if (value > best) {
        best = value;
        best_point = deepest;
      }
    }
    bool star = best > 1e-10 * poly.diameter[at(k)];
    if (star) {
      // The cones' measures must add up to the element's (they do for a closed surface).
      double total = 0;
      for (const OutwardFace& face : faces) total += face.measure * dot(face.normal, face.vertex - best_point) / d;
      star = std::abs(total - poly.measure[at(k)]) <= 1e-9 * poly.measure[at(k)];
    }
    poly.star_shaped[at(k)] = star ? 1 : 0;
    poly.kernel_point[at(k)] = star ? best_point : center;
    poly.kernel_distance[at(k)] = star ? best : at_center;
  }

  // Cover measures (penalty): the fine simplex at the sub-face, or the kernel point's cone.
  const auto cover = [&](index_t k, index_t fine, Point3 outward, Point3 vertex, double face_measure) {
    double value = fine_measure[at(fine)];
    if (poly.star_shaped[at(k)])
      value = std::max(value, face_measure * dot(outward, vertex - poly.kernel_point[at(k)]) / d);
    return value;
  };
  poly.interior_cover.resize(at(2 * poly.n_interior_subfaces()));
  for (index_t i = 0; i < n_interfaces; ++i)
    for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f)
      for (int s = 0; s < 2; ++s) {
        const Point3 n_first = poly.interior_normal[at(f)];
        poly.interior_cover[at(2 * f + s)] =
            cover(poly.interface_elements[at(2 * i + s)], poly.interior_fine_elements[at(2 * f + s)],
                  s == 0 ? n_first : -1.0 * n_first, poly.nodes[at(poly.interior_vertices[at(d * f)])],
                  poly.interior_measure[at(f)]);
      }
  poly.boundary_cover.resize(at(poly.n_boundary_subfaces()));
  for (index_t k = 0; k < n; ++k)
    for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f)
      poly.boundary_cover[at(f)] =
          cover(k, poly.boundary_fine_element[at(f)], poly.boundary_normal[at(f)],
                poly.nodes[at(poly.boundary_vertices[at(d * f)])], poly.boundary_measure[at(f)]);

  poly.quadrature = make_sub_simplices(poly, options.quadrature);
  return poly;
}

SubSimplexSet make_sub_simplices(const PolyMesh& poly, SubSimplices kind) {
  SubSimplexSet set;
  set.kind = kind;
  set.dimension = poly.dimension;
  const int d = poly.dimension;
  const index_t n = poly.n_elements();
  set.start.assign(1, 0);
  set.coarse.assign(at(n), 0);
  set.fallback.assign(at(n), 0);
  for (index_t k = 0; k < n; ++k) {
    const index_t n_fine = poly.element_start[at(k) + 1] - poly.element_start[at(k)];
    index_t n_subfaces = poly.boundary_start[at(k) + 1] - poly.boundary_start[at(k)];
    for (index_t q = poly.element_interface_start[at(k)]; q < poly.element_interface_start[at(k) + 1]; ++q) {
      const index_t i = poly.element_interfaces[at(q)];
      n_subfaces += poly.interface_start[at(i) + 1] - poly.interface_start[at(i)];
    }
    if (kind == SubSimplices::coarse && !poly.star_shaped[at(k)]) {
      set.fallback[at(k)] = 1;
      ++set.n_fallback;
    } else if (kind == SubSimplices::coarse && n_subfaces >= n_fine) {
      ++set.n_fine_fewer;
    } else if (kind == SubSimplices::coarse) {
      set.coarse[at(k)] = 1;
      ++set.n_coarse;
    }
    if (set.coarse[at(k)]) {
      const Point3 apex = poly.kernel_point[at(k)];
      for_each_subface(poly, k, [&](index_t f, bool interior, int) {
        const std::vector<index_t>& vertices = interior ? poly.interior_vertices : poly.boundary_vertices;
        std::array<Point3, 4> p{};
        for (int v = 0; v < d; ++v) p[at(v)] = poly.nodes[at(vertices[at(d * f + v)])];
        p[at(d)] = apex;
        append_simplex(set, p);
      });
    } else {
      for (index_t q = poly.element_start[at(k)]; q < poly.element_start[at(k) + 1]; ++q)
        append_simplex(set, fine_points(poly, poly.fine_elements[at(q)]));
    }
    set.start.push_back(set.n_simplices());
  }
  return set;
}

PolyStatistics poly_statistics(const PolyMesh& poly) {
  PolyStatistics s;
  const index_t n = poly.n_elements();
  s.dimension = poly.dimension;
  s.elements = n;
  s.fine_elements = poly.n_fine_elements();
  s.interfaces = poly.n_interfaces();
  s.interior_subfaces = poly.n_interior_subfaces();
  s.boundary_subfaces = poly.n_boundary_subfaces();
  s.quadrature = poly.quadrature.kind;
  s.coarse = poly.quadrature.n_coarse;
  s.fallbacks = poly.quadrature.n_fallback;
  s.fine_fewer = poly.quadrature.n_fine_fewer;
  std::vector<index_t> faces(at(n)), subfaces(at(n)), fine(at(n)), simplices(at(n));
  for (index_t k = 0; k < n; ++k) {
    const index_t b0 = poly.boundary_start[at(k)], b1 = poly.boundary_start[at(k) + 1];
    index_t pieces = 0;
    for (index_t f = b0; f < b1; ++f) pieces += (f == b0 || poly.boundary_tag[at(f)] != poly.boundary_tag[at(f - 1)]);
    index_t interior = 0;
    for (index_t q = poly.element_interface_start[at(k)]; q < poly.element_interface_start[at(k) + 1]; ++q) {
      const index_t i = poly.element_interfaces[at(q)];
      interior += poly.interface_start[at(i) + 1] - poly.interface_start[at(i)];
    }
    faces[at(k)] = poly.element_interface_start[at(k) + 1] - poly.element_interface_start[at(k)] + pieces;
    subfaces[at(k)] = interior + b1 - b0;
    fine[at(k)] = poly.element_start[at(k) + 1] - poly.element_start[at(k)];
    simplices[at(k)] = poly.quadrature.start.size() == at(n + 1)
                           ? poly.quadrature.start[at(k) + 1] - poly.quadrature.start[at(k)]
                           : 0;
    s.star_shaped += poly.star_shaped[at(k)];
  }
  s.faces = count_range(faces);
  s.subfaces = count_range(subfaces);
  s.fine_simplices = count_range(fine);
  s.quadrature_simplices = count_range(simplices);
  if (n > 0) {
    s.diameter_min = *std::min_element(poly.diameter.begin(), poly.diameter.end());
    s.diameter_max = *std::max_element(poly.diameter.begin(), poly.diameter.end());
  }
  return s;
}

std::string describe_statistics(const PolyMesh& poly) {
  const PolyStatistics s = poly_statistics(poly);
  const auto range = [](const CountRange& r) {
    std::ostringstream out;
    out.precision(3);
    out << "min " << r.min << ", mean " << std::fixed << r.mean << ", max " << r.max;
    return out.str();
  };
  const char* fine_name = s.dimension == 2 ? "triangles" : "tetrahedra";
  std::string text = cat("polytopic mesh: ", s.elements, " elements agglomerated from ", s.fine_elements, " ",
                         fine_name, " (", s.dimension, "D)\n");
  text += cat("  interfaces: ", s.interfaces, " (", s.interior_subfaces, " sub-faces); boundary sub-faces: ",
              s.boundary_subfaces, "\n");
  text += cat("  faces per element (interfaces + boundary pieces): ", range(s.faces), "\n");
  text += cat("  sub-faces per element: ", range(s.subfaces), "\n");
  text += cat("  fine simplices per element: ", range(s.fine_simplices), "\n");
  text += cat("  quadrature sub-simplices per element (", sub_simplices_name(s.quadrature),
              "): ", range(s.quadrature_simplices), "\n");
  text += cat("  star-shaped elements: ", s.star_shaped, " of ", s.elements);
  if (s.quadrature == SubSimplices::coarse)
    text += cat("; on coarse simplices: ", s.coarse, "; on fine simplices: ", s.fallbacks, " not star-shaped, ",
                s.fine_fewer, " with no more fine simplices than sub-faces");
  std::ostringstream diameters;
  diameters.precision(4);
  diameters << "  element diameters: " << s.diameter_min << " to " << s.diameter_max << "\n";
  text += "\n";
  text += diameters.str();
  return text;
}

}  // namespace flowdg::poly
