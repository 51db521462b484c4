#include "flowdg/dg/setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_variable_kernels.hpp"
#include "flowdg/dg/lifting.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/geometry/element_geometry.hpp"

namespace flowdg::dg {

namespace {

bool is_simplex(Shape shape) { return shape == Shape::triangle || shape == Shape::tetrahedron; }

/// The face's reference points as points of local face l of an element: [l * Nfq + q].
std::vector<Point3> element_face_points(Shape shape, const QuadratureRule& rule) {
  std::vector<Point3> points;
  for (int l = 0; l < n_faces(shape); ++l)
    for (const Point3& xi : rule.points) points.push_back(face_to_element(shape, l, xi));
  return points;
}

double norm(Point3 a) { return std::sqrt(dot(a, a)); }

}  // namespace

QuadratureRule volume_rule(Shape shape, GeometryKind geometry, int order, int geometric_order, int shift) {
  const int dim = dimension(shape);
  // Tensor-product shapes keep their p + 1 Gauss points a direction (exact to 2p + 1) at least.
  int degree = std::max(2 * order + shift, is_simplex(shape) ? 0 : 2 * order);
  if (geometry == GeometryKind::curved)
    degree += is_simplex(shape) ? dim * (geometric_order - 1) : dim * geometric_order - 1;
  return quadrature_rule(shape, degree);
}

int parse_volume_quadrature(const std::string& text) {
  if (text == "2p") return 0;
  if (text == "2p-1") return -1;
  if (text.size() == 4 && text.starts_with("2p+") && text[3] >= '1' && text[3] <= '4') return text[3] - '0';
  throw InputError(cat("volume_quadrature: '", text, "' (valid: \"2p\", the default; \"2p-1\", exact for a linear flux, fewer points; ",
                       "\"2p+1\" .. \"2p+4\", over-integration)"));
}

QuadratureRule face_rule(Shape face, int dimension, int order, int curved_geometric_order) {
  const int degree = std::max(2 * order + 1, order + (dimension - 1) * (curved_geometric_order - 1));
  if (face == Shape::line) return gauss_legendre(degree / 2 + 1);
  return quadrature_rule(face, degree);
}

std::vector<double> face_lifting_tables(const ElementGroupSetup& group, Shape shape, GeometryKind geometry, int Nfq, index_t K,
                                        const std::vector<double>& inverse_mass) {
  const int Np = group.n_basis, NF = n_faces(shape);
  const std::size_t rows = static_cast<std::size_t>(NF) * Nfq * Nfq;
  const auto phi = [&](int l, int a) { return &group.face_phi[(static_cast<std::size_t>(l) * Nfq + a) * Np]; };
  if (group.collocated) {
    const int Nq = group.volume_rule.size(), NFq = NF * Nfq;
    std::vector<double> table(static_cast<std::size_t>(Nq) * NFq);
    for (int k = 0; k < Nq; ++k)
      for (int lq = 0; lq < NFq; ++lq) {
        double sum = 0;
        for (int i = 0; i < Np; ++i) sum += group.volume_phi[static_cast<std::size_t>(k) * Np + i] * phi(0, lq)[i];
        table[static_cast<std::size_t>(k) * NFq + lq] = sum;
      }
    return table;
  }
  if (geometry == GeometryKind::affine) {
    std::vector<double> table(rows);
    for (int l = 0; l < NF; ++l)
      for (int a = 0; a < Nfq; ++a)
        for (int b = 0; b < Nfq; ++b) {
          double sum = 0;
          for (int i = 0; i < Np; ++i) sum += phi(l, a)[i] * phi(l, b)[i];
          table[(static_cast<std::size_t>(l) * Nfq + a) * Nfq + b] = sum;
        }
    return table;
  }
  std::vector<double> table(rows * static_cast<std::size_t>(K));
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < K; ++e) {
    std::vector<double> minv_phi(static_cast<std::size_t>(Np) * Nfq);  // M^-1 Phi_l^T, [i Nfq + b]
    for (int l = 0; l < NF; ++l) {
      for (int i = 0; i < Np; ++i)
        for (int b = 0; b < Nfq; ++b) {
          double sum = 0;
          for (int j = 0; j < Np; ++j) sum += inverse_mass[(static_cast<std::size_t>(i) * Np + j) * K + e] * phi(l, b)[j];
          minv_phi[static_cast<std::size_t>(i) * Nfq + b] = sum;
        }
      for (int a = 0; a < Nfq; ++a)
        for (int b = 0; b < Nfq; ++b) {
          double sum = 0;
          for (int i = 0; i < Np; ++i) sum += phi(l, a)[i] * minv_phi[static_cast<std::size_t>(i) * Nfq + b];
          table[((static_cast<std::size_t>(l) * Nfq + a) * Nfq + b) * K + e] = sum;
        }
    }
  }
  return table;
}

int collocated_lifting_lines(const std::vector<double>& C, int Nq, int n_faces, int Nfq, std::vector<double>& values,
                             std::vector<int>& indices) {
  const int NFq = n_faces * Nfq;
  values.clear();
  indices.clear();
  if (static_cast<std::size_t>(Nq) * NFq != C.size() || Nq == 0) return 0;
  double largest = 0;
  for (const double c : C) largest = std::max(largest, std::abs(c));
  const auto nonzero = [&](int k, int lq) { return std::abs(C[static_cast<std::size_t>(k) * NFq + lq]) > 1e-12 * largest; };
  int lines = 0;
  for (int lq = 0; lq < NFq; ++lq) {
    int count = 0;
    for (int k = 0; k < Nq; ++k) count += nonzero(k, lq) ? 1 : 0;
    lines = std::max(lines, count);
  }
  for (int k = 0; k < Nq; ++k)
    for (int l = 0; l < n_faces; ++l) {
      int count = 0;
      for (int b = 0; b < Nfq; ++b) count += nonzero(k, l * Nfq + b) ? 1 : 0;
      if (count > 1) return 0;
    }
  if (lines == 0 || 2 * lines > Nq) return 0;
  values.assign(static_cast<std::size_t>(NFq) * lines + static_cast<std::size_t>(Nq) * n_faces, 0.0);
  indices.assign(values.size(), 0);
  for (int lq = 0; lq < NFq; ++lq) {
    int m = 0;
    for (int k = 0; k < Nq; ++k)
      if (nonzero(k, lq)) {
        values[static_cast<std::size_t>(lq) * lines + m] = C[static_cast<std::size_t>(k) * NFq + lq];
        indices[static_cast<std::size_t>(lq) * lines + m] = k;
        ++m;
      }
  }
  const std::size_t cross = static_cast<std::size_t>(NFq) * lines;
  for (int k = 0; k < Nq; ++k)
    for (int l = 0; l < n_faces; ++l) {
      const std::size_t at = cross + static_cast<std::size_t>(k) * n_faces + l;
      indices[at] = -1;
      for (int b = 0; b < Nfq; ++b)
        if (nonzero(k, l * Nfq + b)) {
          values[at] = C[static_cast<std::size_t>(k) * NFq + l * Nfq + b];
          indices[at] = b;
        }
    }
  return lines;
}

SumFactorTables sum_factor_tables(const ElementGroupSetup& group, Shape shape, int order, int Nfq) {
  SumFactorTables none;
  const int n = order + 1, Np = n * n;
  const QuadratureRule& rule = group.volume_rule;
  if (shape != Shape::quadrilateral || !group.collocated || group.n_basis != Np || rule.size() != Np || Nfq != n ||
      group.volume_phi.size() != static_cast<std::size_t>(Np) * Np || group.volume_dphi.size() != static_cast<std::size_t>(Np) * 2 * Np ||
      group.face_phi.size() != static_cast<std::size_t>(4) * n * Np)
    return none;
  constexpr double tolerance = 1e-12;
  const auto close = [&](double a, double b) { return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b)); };
  // The Gauss rule: nodes x_a from the first row of points, weights w_a with w_a w_0 = rule weight.
  std::vector<double> x(n), w(n);
  const QuadratureRule line = line_rule(2 * n - 1);
  if (line.size() != n) return none;
  for (int a = 0; a < n; ++a) {
    x[a] = line.points[a].x;
    w[a] = line.weights[a];
  }
  for (int b = 0; b < n; ++b)
    for (int a = 0; a < n; ++a) {
      const int k = a + n * b;
      if (!close(rule.points[k].x, x[a]) || !close(rule.points[k].y, x[b]) || !close(rule.weights[k], w[a] * w[b])) return none;
    }
  // L, dL at the nodes and the ends.
  SumFactorTables t;
  t.n = n;
  t.x = x;
  t.w = w;
  t.L.assign(static_cast<std::size_t>(n) * n, 0.0);
  t.dL = t.L;
  t.Lw = t.L;
  t.Qw = t.L;
  t.edge.assign(2 * static_cast<std::size_t>(n), 0.0);
  std::vector<double> values(n), ends(2 * static_cast<std::size_t>(n));
  std::vector<Point3> gradients(n);
  for (int a = 0; a < n; ++a) {
    basis_gradients(Shape::line, order, {x[a], 0.0, 0.0}, values.data(), gradients.data());
    for (int i = 0; i < n; ++i) {
      t.L[a * n + i] = values[i];
      t.dL[a * n + i] = gradients[i].x;
      t.Lw[a * n + i] = w[a] * values[i];
    }
  }
  basis_values(Shape::line, order, {-1.0, 0.0, 0.0}, &ends[0]);
  basis_values(Shape::line, order, {1.0, 0.0, 0.0}, &ends[n]);
  t.ends = ends;
  // The basis tables are the products (by quadrilateral_mode).
  double largest = 0;
  for (const double v : group.volume_dphi) largest = std::max(largest, std::abs(v));
  const auto same = [&](double a, double b) { return std::abs(a - b) <= tolerance * std::max(1.0, largest); };
  for (int b = 0; b < n; ++b)
    for (int a = 0; a < n; ++a)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const std::size_t k = static_cast<std::size_t>(a + n * b), mode = static_cast<std::size_t>(quadrilateral_mode(i, j));
          if (!same(group.volume_phi[k * Np + mode], t.L[a * n + i] * t.L[b * n + j]) ||
              !same(group.volume_dphi[(k * 2 + 0) * Np + mode], t.dL[a * n + i] * t.L[b * n + j]) ||
              !same(group.volume_dphi[(k * 2 + 1) * Np + mode], t.L[a * n + i] * t.dL[b * n + j]))
            return none;
        }
  // The face points: face l's point q at the line end named in the header.
  for (int l = 0; l < 4; ++l)
    for (int q = 0; q < n; ++q) {
      const int s = l < 2 ? q : n - 1 - q;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const double along_x = l == 0 ? t.L[s * n + i] * ends[j] : l == 2 ? t.L[s * n + i] * ends[n + j] : 0.0;
          const double along_y = l == 1 ? ends[n + i] * t.L[s * n + j] : l == 3 ? ends[i] * t.L[s * n + j] : 0.0;
          const double expected = l % 2 == 0 ? along_x : along_y;
          if (!same(group.face_phi[(static_cast<std::size_t>(l) * n + q) * Np + quadrilateral_mode(i, j)], expected)) return none;
        }
    }
  // V1 V1^T = diag(1 / w) (the n-point Gauss rule is exact for the products of degree 2n - 2).
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double sum = 0;
      for (int i = 0; i < n; ++i) sum += t.L[a * n + i] * t.L[b * n + i];
      if (!close(sum, a == b ? 1.0 / w[a] : 0.0)) return none;
    }
  for (int a = 0; a < n; ++a) {
    for (int c = 0; c < n; ++c) {
      double q = 0;
      for (int i = 0; i < n; ++i) q += t.L[a * n + i] * t.dL[c * n + i];
      t.Qw[a * n + c] = w[a] * q;
    }
    for (int side = 0; side < 2; ++side) {
      double e = 0;
      for (int i = 0; i < n; ++i) e += t.L[a * n + i] * ends[side * n + i];
      t.edge[side * n + a] = w[a] * e;
    }
  }
  return t;
}

std::vector<double> bilinear_jacobians(const ElementGroupSetup& group, const SumFactorTables& tables, index_t n_elements) {
  const int n = tables.n, Np = n * n;
  if (n < 1 || !group.collocated || group.metric.size() != static_cast<std::size_t>(Np) * 4 * n_elements) return {};
  std::vector<double> out(static_cast<std::size_t>(6) * n_elements, 0.0);
  const auto& x = tables.x;
  bool bilinear = true;
#pragma omp parallel for schedule(static) reduction(&& : bilinear)
  for (index_t e = 0; e < n_elements; ++e) {
    // The Jacobian at point a + n b from w_k adj J = [[y_eta, -x_eta], [-y_xi, x_xi]] w_k.
    const auto jacobian = [&](int a, int b, double (&J)[2][2]) {
      const int k = a + n * b;
      const double w = tables.w[a] * tables.w[b];
      const auto m = [&](int r, int d) { return group.metric[(static_cast<std::size_t>(k) * 4 + r * 2 + d) * n_elements + e] / w; };
      J[0][0] = m(1, 1), J[0][1] = -m(0, 1), J[1][0] = -m(1, 0), J[1][1] = m(0, 0);  // x_xi, x_eta; y_xi, y_eta
    };
    double J0[2][2], J1[2][2];
    jacobian(0, 0, J0);
    jacobian(n - 1, n - 1, J1);
    double g[6];
    for (int c = 0; c < 2; ++c) {
      // x_xi(eta) = b + d eta from the first and last rows (n = 1: d = 0), x_eta(xi) = c + d xi.
      const double d = n > 1 ? (J1[c][0] - J0[c][0]) / (x[n - 1] - x[0]) : 0.0;
      g[3 * c + 0] = J0[c][0] - d * x[0];
      g[3 * c + 1] = J0[c][1] - d * x[0];
      g[3 * c + 2] = d;
    }
    double largest = 0, error = 0;
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        double J[2][2];
        jacobian(a, b, J);
        for (int c = 0; c < 2; ++c) {
          largest = std::max({largest, std::abs(J[c][0]), std::abs(J[c][1])});
          error = std::max({error, std::abs(J[c][0] - (g[3 * c] + g[3 * c + 2] * x[b])), std::abs(J[c][1] - (g[3 * c + 1] + g[3 * c + 2] * x[a]))});
        }
      }
    if (!(error <= 1e-10 * largest)) bilinear = false;
    for (int c = 0; c < 6; ++c) out[static_cast<std::size_t>(c) * n_elements + e] = g[c];
  }
  return bilinear ? out : std::vector<double>{};
}

std::vector<double> vertex_function_modes(Shape shape, int n_modes) {
  const int order = n_modes > 1 ? 1 : 0;
  if (n_modes != n_basis(shape, order))
    throw InputError(cat("vertex_function_modes: ", n_modes, " modes are not a full degree of the ", shape_name(shape), " basis"));
  const QuadratureRule rule = quadrature_rule(shape, 2);  // vertex function x mode: degree 2 (Q2 on tensor shapes)
  const int nv = n_vertices(shape);
  std::vector<double> table(static_cast<std::size_t>(nv) * n_modes, 0.0), norm(static_cast<std::size_t>(n_modes), 0.0);
  std::vector<double> phi(static_cast<std::size_t>(n_modes));
  double weights[8] = {};
  for (int k = 0; k < rule.size(); ++k) {
    basis_values(shape, order, rule.points[k], phi.data());
    element_vertex_weights(shape, rule.points[k], weights);
    for (int j = 0; j < n_modes; ++j) {
      norm[j] += rule.weights[k] * phi[j] * phi[j];
      for (int i = 0; i < nv; ++i) table[static_cast<std::size_t>(i) * n_modes + j] += rule.weights[k] * weights[i] * phi[j];
    }
  }
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < n_modes; ++j) table[static_cast<std::size_t>(i) * n_modes + j] /= norm[j];
  return table;
}

bool invert_spd(std::vector<double>& a, int n) {
  // Cholesky a = L L^T, then a^-1 = L^-T L^-1 (the matrices here are at most a few hundred rows).
  std::vector<double> l(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double sum = a[i * n + j];
      for (int k = 0; k < j; ++k) sum -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(sum > 0)) return false;
        l[i * n + i] = std::sqrt(sum);
      } else {
        l[i * n + j] = sum / l[j * n + j];
      }
    }
  std::vector<double> inverse_l(static_cast<std::size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    inverse_l[j * n + j] = 1.0 / l[j * n + j];
    for (int i = j + 1; i < n; ++i) {
      double sum = 0;
      for (int k = j; k < i; ++k) sum -= l[i * n + k] * inverse_l[k * n + j];
      inverse_l[i * n + j] = sum / l[i * n + i];
    }
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = std::max(i, j); k < n; ++k) sum += inverse_l[k * n + i] * inverse_l[k * n + j];
      a[i * n + j] = sum;
    }
  return true;
}

std::vector<GeometryKind> classify_geometry(const Mesh& mesh) {
  const index_t K = mesh.n_elements();
  const int dim = mesh.dimension;
  // An element is affine when its Jacobian is the same at the points of a rule of degree 2g (enough
  // points that no non-constant polynomial Jacobian of that degree escapes).
  std::vector<GeometryKind> kinds(K, GeometryKind::affine);
  int highest_order = 1;
  for (index_t e = 0; e < K; ++e) highest_order = std::max(highest_order, geometric_order(mesh.element_types[e]));
  for (Shape shape : {Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron}) {
    if (dimension(shape) != dim) continue;
    const geometry::ElementMaps maps(mesh, quadrature_rule(shape, std::max(2, 2 * highest_order)).points);
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < K; ++e) {
      if (mesh.element_shape(e) != shape) continue;
      std::vector<geometry::Jacobian> jacobians;
      for (int k = 0; k < maps.n_points(); ++k) jacobians.push_back(maps.at(e, k));
      if (!geometry::constant_jacobian(jacobians, dim)) kinds[e] = GeometryKind::curved;
    }
  }
  return kinds;
}

std::vector<int> curved_orders_by_shape(const Mesh& mesh, index_t n_elements) {
  const std::vector<GeometryKind> kinds = classify_geometry(mesh);
  std::vector<int> out(static_cast<std::size_t>(Shape::hexahedron) + 1, 0);
  for (index_t e = 0; e < n_elements && e < mesh.n_elements(); ++e)
    if (kinds[e] == GeometryKind::curved) {
      int& order = out[static_cast<std::size_t>(mesh.element_shape(e))];
      order = std::max(order, geometric_order(mesh.element_types[e]));
    }
  return out;
}

Setup build_setup(const Mesh& mesh, const Connectivity& connectivity, int order, const std::vector<int>& curved_order_floor,
                  bool collocated_mass, FaceOrder face_order, int volume_degree_shift) {
  const int dim = mesh.dimension;
  if (dim != 2 && dim != 3) throw InputError(cat("the DG core runs on 2D and 3D meshes; ", mesh.source, " is ", dim, "D"));
  const index_t K = mesh.n_elements();
  if (K == 0) throw InputError(cat(mesh.source, " has no elements"));
  for (index_t e = 0; e < K; ++e)
    if (dimension(mesh.element_shape(e)) != dim)
      throw InputError(cat(mesh.element_label(e), " of ", mesh.source, " is a ", type_name(mesh.element_types[e]),
                           " in a ", dim, "D mesh"));

  const std::vector<GeometryKind> kinds = classify_geometry(mesh);
  std::vector<int> orders(K, 1);
  for (index_t e = 0; e < K; ++e) orders[e] = geometric_order(mesh.element_types[e]);

  Setup setup;
  setup.dimension = dim;
  setup.order = order;
  setup.groups = build_groups(mesh, connectivity, kinds, orders, face_order);
  int curved_order = 1;
  for (ElementGroup& group : setup.groups.element_groups) {
    const auto s = static_cast<std::size_t>(group.shape);
    if (group.geometry == GeometryKind::curved && s < curved_order_floor.size())
      group.geometric_order = std::max(group.geometric_order, curved_order_floor[s]);
    if (group.geometry == GeometryKind::curved) curved_order = std::max(curved_order, group.geometric_order);
  }
  for (const int floor : curved_order_floor) curved_order = std::max(curved_order, floor);
  // In 2D a curved group of geometric order 1 (bilinear quadrilaterals) has straight edges: the
  // faces between such groups keep one normal and |N| (affine face geometry, not one per point).
  if (dim == 2)
    for (FaceGroup& face : setup.groups.face_groups) {
      const auto straight = [&](int g) {
        const ElementGroup& group = setup.groups.element_groups[static_cast<std::size_t>(g)];
        return group.geometry == GeometryKind::affine || group.geometric_order == 1;
      };
      if (straight(face.group_m) && (face.group_p < 0 || straight(face.group_p))) face.geometry = GeometryKind::affine;
    }
  const Groups& groups = setup.groups;
  setup.face_rule = face_rule(groups.face_shape, dim, order, curved_order);
  setup.permutation = face_point_permutations(groups.face_shape, setup.face_rule.points);
  const int Nfq = setup.face_rule.size();

  // Per element group: tables, metric, mass matrices, sizes, face codes; the face maps are kept
  // for the face groups.
  std::vector<std::vector<geometry::Jacobian>> face_jacobians(groups.element_groups.size());  // [(e * faces + l) * Nfq + q]
  setup.element_groups.resize(groups.element_groups.size());
  for (std::size_t g = 0; g < groups.element_groups.size(); ++g) {
    const ElementGroup& group = groups.element_groups[g];
    ElementGroupSetup& out = setup.element_groups[g];
    const Shape shape = group.shape;
    const int Np = n_basis(shape, order);
    const int n_element_faces = n_faces(shape);
    const index_t n = group.size();
    out.n_basis = Np;
    out.volume_rule = volume_rule(shape, group.geometry, order, group.geometric_order, volume_degree_shift);
    const QuadratureRule& rule = out.volume_rule;
    const int Nq = rule.size();

    std::vector<double> values(Np);
    std::vector<Point3> gradients(Np);
    // The reference derivatives at point k of a set, [(k dim + r) Np + j]; returns the values there.
    const auto derivatives_at = [&](const Point3& xi, std::size_t k, std::vector<double>& dphi) {
      basis_gradients(shape, order, xi, values.data(), gradients.data());
      for (int j = 0; j < Np; ++j) {
        const double derivative[3] = {gradients[j].x, gradients[j].y, gradients[j].z};
        for (int r = 0; r < dim; ++r) dphi[(k * dim + r) * Np + j] = derivative[r];
      }
      return values.data();
    };
    out.volume_phi.resize(static_cast<std::size_t>(Nq) * Np);
    out.volume_dphi.resize(static_cast<std::size_t>(Nq) * dim * Np);
    for (int k = 0; k < Nq; ++k) std::copy_n(derivatives_at(rule.points[k], k, out.volume_dphi), Np, &out.volume_phi[k * Np]);
    const std::vector<Point3> face_points = element_face_points(shape, setup.face_rule);
    out.face_phi.resize(face_points.size() * Np);
    out.face_dphi.resize(face_points.size() * dim * Np);
    for (std::size_t k = 0; k < face_points.size(); ++k) {
      basis_values(shape, order, face_points[k], &out.face_phi[k * Np]);  // (basis_values' bits, as before face_dphi)
      (void)derivatives_at(face_points[k], k, out.face_dphi);
    }

    const geometry::ElementMaps maps(mesh, rule.points);
    const geometry::ElementMaps face_maps(mesh, face_points);
    const bool curved = group.geometry == GeometryKind::curved;
    // (Quadrilaterals only: the block kernels' collocated variants are compiled for them; no other
    // shape's curved rule has as many points as modes.)
    out.collocated = curved && collocated_mass && shape == Shape::quadrilateral && Nq == Np && [&] {
      // V^T W V = I (the rule exact for the products of the basis), so that V^-1 = V^T W.
      double largest = 0;
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < Np; ++j) {
          double sum = i == j ? -1.0 : 0.0;
          for (int k = 0; k < Nq; ++k) sum += rule.weights[k] * out.volume_phi[k * Np + i] * out.volume_phi[k * Np + j];
          largest = std::max(largest, std::abs(sum));
        }
      return largest < 1e-12;
    }();
    const bool collocated = out.collocated;
    out.metric.assign(static_cast<std::size_t>(curved ? Nq * dim * dim : dim * dim + 1) * n, 0.0);
    if (curved) out.inverse_mass.assign(static_cast<std::size_t>(collocated ? Nq : Np * Np) * n, 0.0);
    out.size.assign(n, 0.0);
    face_jacobians[g].resize(static_cast<std::size_t>(n) * n_element_faces * Nfq);
    index_t bad_element = n, bad_mass = n;
#pragma omp parallel for schedule(static) reduction(min : bad_element, bad_mass)
    for (index_t i = 0; i < n; ++i) {
      const index_t e = group.elements[i];
      double volume = 0;
      std::vector<double> mass(curved && !collocated ? static_cast<std::size_t>(Np) * Np : 0, 0.0);
      for (int k = 0; k < Nq; ++k) {
        const geometry::Jacobian jacobian = maps.at(e, k);
        if (!(jacobian.det > 0)) {
          bad_element = std::min(bad_element, i);
          break;
        }
        volume += rule.weights[k] * jacobian.det;
        const auto inverse = jacobian.inverse(dim);
        if (!curved) {
          if (k == 0) {
            for (int r = 0; r < dim; ++r)
              for (int d = 0; d < dim; ++d) out.metric[(r * dim + d) * n + i] = jacobian.det * inverse[r][d];
            out.metric[dim * dim * n + i] = 1.0 / jacobian.det;
          }
          continue;
        }
        const double w = rule.weights[k] * jacobian.det;
        for (int r = 0; r < dim; ++r)
          for (int d = 0; d < dim; ++d) out.metric[(static_cast<index_t>(k) * dim * dim + r * dim + d) * n + i] = w * inverse[r][d];
        if (collocated) {
          out.inverse_mass[static_cast<index_t>(k) * n + i] = rule.weights[k] / jacobian.det;
          continue;
        }
        const double* phi = &out.volume_phi[k * Np];
        for (int a = 0; a < Np; ++a)
          for (int b = 0; b < Np; ++b) mass[a * Np + b] += w * phi[a] * phi[b];
      }
      if (bad_element <= i) continue;
      if (curved && !collocated) {
        if (!invert_spd(mass, Np)) {
          bad_mass = std::min(bad_mass, i);
          continue;
        }
        for (int a = 0; a < Np * Np; ++a) out.inverse_mass[a * n + i] = mass[a];
      }
      double largest_face = 0;
      for (int l = 0; l < n_element_faces; ++l) {
        double area = 0;
        for (int q = 0; q < Nfq; ++q) {
          const geometry::Jacobian jacobian = face_maps.at(e, l * Nfq + q);
          face_jacobians[g][(i * n_element_faces + l) * Nfq + q] = jacobian;
          area += setup.face_rule.weights[q] *
                  norm(geometry::scaled_face_normal(shape, l, setup.face_rule.points[q], jacobian));
        }
        largest_face = std::max(largest_face, area);
      }
      out.size[i] = (is_simplex(shape) ? dim : 1) * volume / largest_face;
    }
    if (bad_element < n)
      throw InputError(cat(mesh.element_label(group.elements[bad_element]), " of ", mesh.source,
                           " is inverted or degenerate (det J <= 0 at a quadrature point); run `flowdg mesh info` on the mesh"));
    if (bad_mass < n)
      throw InputError(cat("the mass matrix of ", mesh.element_label(group.elements[bad_mass]), " of ", mesh.source,
                           " is not positive definite: the element is too distorted for its quadrature rule"));

    out.codes.assign(static_cast<std::size_t>(n_element_faces) * n, 0);
    for (index_t slot = 0; slot < n_element_faces * n; ++slot) {
      const index_t f = groups.element_faces[g][slot];
      out.codes[slot] = face_code(f, groups.faces[f].orientation, groups.element_plus_side[g][slot] != 0);
    }
  }

  // Face groups: normals and surface Jacobians from the minus side; interior faces checked point
  // by point against the plus side (the same points up to a translation: periodic faces).
  setup.face_groups.resize(groups.face_groups.size());
  for (std::size_t fg = 0; fg < groups.face_groups.size(); ++fg) {
    const FaceGroup& group = groups.face_groups[fg];
    FaceGroupSetup& out = setup.face_groups[fg];
    const ElementGroup& minus = groups.element_groups[group.group_m];
    const index_t n = group.size();
    const bool curved = group.geometry == GeometryKind::curved;
    out.geometry.assign(static_cast<std::size_t>(curved ? Nfq * (dim + 1) : dim + 1) * n, 0.0);
    if (group.boundary()) out.points.assign(static_cast<std::size_t>(Nfq) * dim * n, 0.0);
    index_t mismatch = n;
#pragma omp parallel for schedule(static) reduction(min : mismatch)
    for (index_t i = 0; i < n; ++i) {
      const GroupFace& face = groups.faces[group.begin + i];
      const auto jacobian_m = [&](int q) -> const geometry::Jacobian& {
        return face_jacobians[group.group_m][(face.element_m * n_faces(minus.shape) + face.local_m) * Nfq + q];
      };
      for (int q = 0; q < Nfq; ++q) {
        const geometry::Jacobian& jacobian = jacobian_m(q);
        const Point3 scaled = geometry::scaled_face_normal(minus.shape, face.local_m, setup.face_rule.points[q], jacobian);
        const double measure = norm(scaled);
        const double normal[3] = {scaled.x / measure, scaled.y / measure, scaled.z / measure};
        if (curved || q == 0) {
          const index_t base = curved ? static_cast<index_t>(q) * (dim + 1) : 0;
          for (int d = 0; d < dim; ++d) out.geometry[(base + d) * n + i] = normal[d];
          out.geometry[(base + dim) * n + i] = measure;
        }
        if (group.boundary()) {
          const double x[3] = {jacobian.x.x, jacobian.x.y, jacobian.x.z};
          for (int d = 0; d < dim; ++d) out.points[(static_cast<index_t>(q) * dim + d) * n + i] = x[d];
        }
      }
      if (group.boundary()) continue;
      const ElementGroup& plus = groups.element_groups[group.group_p];
      // The face's size from its surface Jacobian (|N| ~ length^(dim-1) over the reference face's).
      const double length = std::pow(norm(geometry::scaled_face_normal(minus.shape, face.local_m, setup.face_rule.points[0],
                                                                        jacobian_m(0))),
                                     1.0 / (dim - 1));
      Point3 shift{};
      for (int q = 0; q < Nfq; ++q) {
        const int qp = setup.permutation[face.orientation * Nfq + q];
        const Point3 xp = face_jacobians[group.group_p][(face.element_p * n_faces(plus.shape) + face.local_p) * Nfq + qp].x;
        const Point3 difference = xp - jacobian_m(q).x;
        if (q == 0) shift = difference;
        if (norm(difference - shift) > 1e-9 * length) mismatch = std::min(mismatch, i);
      }
    }
    if (mismatch < n) {
      const GroupFace& face = groups.faces[group.begin + mismatch];
      const Face& mesh_face = connectivity.faces[face.mesh_face];
      throw InputError(cat("face ", face.mesh_face, " between ", mesh.element_label(mesh_face.element_m), " and ",
                           mesh.element_label(mesh_face.element_p), " of ", mesh.source,
                           ": the two elements' quadrature points do not meet (the elements' high-order nodes on the"
                           " shared face differ)"));
    }
  }
  return setup;
}

namespace {

/// A two-way switch from the environment (the A/B runs' variables): -1 unset or empty, 0 for `off`,
/// 1 for `on`; anything else an InputError naming the variable, its value, both choices and `what`.
int switch_variable(const char* name, const char* off, const char* on, const char* what) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return -1;
  const std::string text(value);
  if (text == off) return 0;
  if (text == on) return 1;
  throw InputError(cat(name, "='", text, "': expected ", off, " or ", on, " (", what, ")"));
}

}  // namespace

bool boundary_stream_allowed(int dim) {
  const int asked = switch_variable("FLOWDG_BOUNDARY_STREAM", "0", "1", "0: boundary faces on the kernels' stream, 1: on a second stream");
  // Session 39 (the 3D Euler vortex, RK4, Rusanov, double, H100): +0.4 to +1.6% at p = 1..4 (998,250
  // tetrahedra at p = 1, 2, 384,000 at p = 3, 4: four boundary groups of 43-62 blocks a stage).
  return asked >= 0 ? asked == 1 : dim == 3;
}

bool boundary_batch_allowed() {
  // (read when an operator is built, as FLOWDG_BOUNDARY_STREAM: a test builds both)
  return switch_variable("FLOWDG_BOUNDARY_BATCH", "0", "1", "0: a launch a boundary face group, 1: a run of them in one") != 0;
}

bool automatic_variable_elements(int order, bool double_precision) {
  // Session 40 (the 3D Euler vortex, RK4, Rusanov, H100, `flowdg run`; 998,250 tetrahedra at p = 1,
  // 2, 384,000 at p = 3; docs/performance.md): against the automatic kernels of session 39, in double
  // 15.4 against 11.9e9 DOF-stage updates/s at p = 1, 17.2 against 11.2 at p = 2, but 8.5 against the
  // tensor-core kernel's 11.1 at p = 3; in float 27.6 against 23.1, 29.6 against 19.4 and 13.3
  // against 11.7 (p = 1, 2, 3). Session 47 (H200, the same case, 384,000 tetrahedra, two rounds): in
  // float at p = 3 the tensor-core kernel with float rows in four blocks an SM (late Runge-Kutta
  // loads) 23.68, 23.80e9 against this kernel's 21.70, 21.57 (+9.7%): p = 1, 2 in both precisions.
  (void)double_precision;
  return variable_kernel_order(order) && order <= 2;
}

bool automatic_faces_by_family(bool euler_2d, bool euler_3d_single, int order) {
  // Session 45 (H200, `flowdg run`, one binary, the same bits; docs/performance.md): the 3D Euler
  // vortex (Rusanov, RK4) in double +0.8, +1.5, +10.6, +0.2% at p = 1..4, in float p = 3 +7.5% but
  // p = 4 -1.4%; the viscous vortex (BR2) +1.6% on triangles at p = 4, +1.4 / +1.0% on
  // quadrilaterals at p = 4 / 3; 2D Euler's tuned triangles -14% at p = 1 and -7% at p = 4 (their
  // face kernels share the elements of neighbouring faces).
  return !euler_2d && !(euler_3d_single && order >= 4);
}

FaceOrder automatic_face_order(bool euler_2d, bool euler_3d_single, int order, bool face_tensor_copy) {
  if (face_tensor_copy) return FaceOrder::window;
  return automatic_faces_by_family(euler_2d, euler_3d_single, order) ? FaceOrder::family : FaceOrder::element;
}

bool automatic_variable_faces(int order, bool double_precision) {
  // Session 40 (as above; against the automatic face kernels: point at p = 1, block at p = 2 and 4,
  // chunked at p = 3 in double; the same bits): double 16.79 against 15.32e9 at p = 1, 20.81 against
  // 17.25 at p = 2, 12.41 against 11.16 at p = 3, 11.91 against 10.82 at p = 4; float 30.86 against
  // 27.03, 38.33 against 29.73, 15.88 against 13.40, 10.52 against 9.43 (p = 1..4).
  (void)double_precision;
  return variable_face_kernel_order(order);
}

bool face_moments_chosen(int order, bool double_precision) {
  // (read at every operator build: tests set it for one)
  const int asked = switch_variable("FLOWDG_FACE_MOMENTS", "0", "1", "0: face fluxes as point values, 1: as nodal moments where they apply");
  if (asked < 0) {
    // Session 41 (the 3D Euler vortex, RK4, Rusanov, H100, `flowdg run`; docs/performance.md): with
    // the kernels' prefetch (which the element kernel takes with moments only) every order where
    // the kernels run: double p = 1 18.55-18.61e9 DOF-stage updates/s against point values' 15.87
    // (without prefetch: moments 16.53), p = 2 20.63-20.67 against 20.49 (point values, no prefetch;
    // moments without prefetch 20.24); float p = 1 34.93 against 29.78, p = 2 38.27 against 37.66,
    // p = 3 18.53 against 15.79 (6, 7, 15 face points against 3, 6, 10 moments).
    (void)order;
    (void)double_precision;
    return true;
  }
  return asked == 1;
}

int face_trace_mode_for(int asked, int order, bool double_precision) {
  if (asked >= 3 && order != 3)
    throw InputError(cat("FLOWDG_TRACE_BUFFER=", asked, asked == 3 ? " (the coefficients' element-major copy" : " (the element-major state",
                         " for the face kernel on the FP64 tensor cores) is built for p = 3, not p = ", order));
  if (asked >= 0) return asked;
  // Session 49 (the 3D Euler vortex, RK4, Rusanov, H200, `flowdg run`; 384,000 tetrahedra at p = 3, 4,
  // 998,250 at p = 1, 2; docs/performance.md): p = 4 filled by the element kernel, the face kernel in
  // its measured blocks, double 14.40-14.44e9 DOF-stage updates/s against 13.52-13.57 (+6.4%), float
  // 22.33-22.34 against 20.85-20.88 (+7.0%); by the trace kernel 14.15 and 21.75. It loses below:
  // p = 3 double 16.35-16.92 (fused, any face blocks) against 17.28, float 18.3-21.9 against 23.85;
  // p = 1, 2 (the trace kernel: the element kernel there is the warp-per-variable one) 17.16 and
  // 20.63 against 25.79 and 25.80 — there the face kernel's own sums cost less than the buffer's
  // writes and reads.
  // Sessions 58-59 (H200, the same case, p = 3, one binary, two rounds, docs/performance.md): the
  // coefficients' element-major copy at each stage's start read by the face kernel on the FP64 tensor
  // cores, the faces by window (mode 3), double 20.03-20.27e9 against the sums' 19.64-19.90 (+2%); in
  // float a loss (27.2-27.3 against 27.7-28.2: the float sums kernel is the faster one there).
  // Session 63 (H200, the same case, p = 3, one binary, two rounds, docs/performance.md): the tensor-core
  // element kernel's groups holding their state element-major, which the face tensor kernel reads as it
  // is (mode 4: no copy pass), double 22.96-23.04e9 against the copy's 21.03-21.04 (+9.3%, the same
  // bits); float 32.93-33.08 against the sums' 30.47-30.49 (+8.3%) and the copy's 29.06-29.10.
  if (order == 3) return 4;
  (void)double_precision;
  return order == 4 ? 2 : 0;
}

int face_trace_mode(int order, bool double_precision) {
  // (read at every operator build: tests set it for one)
  const char* value = std::getenv("FLOWDG_TRACE_BUFFER");
  int asked = -1;
  if (value != nullptr && *value != 0) {
    const std::string text(value);
    if (text != "0" && text != "1" && text != "2" && text != "3" && text != "4")
      throw InputError(cat("FLOWDG_TRACE_BUFFER='", text, "': expected 0 (the face kernel sums the traces), 1 (a trace kernel fills the ",
                           "trace buffer each stage), 2 (the tensor-core element kernel fills it), 3 (p = 3: the coefficients' ",
                           "element-major copy at each stage's start, for the face kernel on the FP64 tensor cores) or 4 (p = 3: the ",
                           "tensor-core element kernel's groups hold their state element-major, which that face kernel reads itself)"));
    asked = text[0] - '0';
  }
  return face_trace_mode_for(asked, order, double_precision);
}

bool face_trace_points_for(int asked, int order, bool double_precision) {
  if (asked >= 0) return asked == 1;
  // Session 54 (the 3D Euler vortex, RK4, Rusanov, H200, `flowdg run`, 384,000 tetrahedra, two rounds;
  // docs/performance.md): double p = 4 16.56-16.57e9 DOF-stage updates/s at the points (the face
  // kernel six blocks an SM; four 16.34-16.35, five 16.25) against the nodes' 15.50-15.54 (+6.7%: the
  // interior face kernel 0.62 ms a stage at ncu's clocks against 1.13); float p = 4 24.33-24.40
  // against 24.43-24.54 (the element kernel's 3.0 ms dominate there). Session 66 (issue 16's periodic
  // case, the same measure): float p = 4 at the points 27.42-27.55 against the nodes' 26.46-26.48 (+3.9%:
  // the interior face kernel 0.267 ms a stage at ncu's clocks against 0.481, the element kernel, writing
  // 19 rows a face instead of 15, 2.80-2.86 against 2.74-2.78) — the points in both precisions.
  (void)double_precision;
  return order == 4;
}

bool face_trace_points(int order, bool double_precision) {
  const int asked = switch_variable("FLOWDG_TRACE_POINTS", "0", "1", "0: the trace buffer at the face nodes, 1: at the face points");
  return face_trace_points_for(asked, order, double_precision);
}

Br2FaceShape br2_face_default_shape(Shape shape, int order) {
  // From one call on the H100 (session 38: the viscous vortex through `flowdg run`, 640,000
  // perturbed quadrilaterals and 798,848 triangles, RK4, Rusanov + BR2, two rounds; docs/performance.md):
  // quadrilaterals at p = 4 four blocks of 128 (128 registers) 18.26e9 DOF-stage updates/s against two
  // of 256 17.26 and eight of 64 18.07 (three of 256 under 80 registers spilled: 14.9); at p = 3 ten
  // of 64 (96 registers) 19.47 against three of 256 19.29. Triangles at p = 3 / 4 six blocks of 128
  // (80 registers, as three of 256) 16.61 / 16.37 against 16.18 / 15.33 (ten or twelve of 64 slower).
  if (shape == Shape::quadrilateral && order == 4) return {128, 4};
  if (shape == Shape::quadrilateral && order == 3) return {64, 10};
  if (shape == Shape::quadrilateral && order > 4) return {256, 2};
  if (shape == Shape::triangle && (order == 3 || order == 4)) return {128, 6};
  return {256, 3};
}

namespace {

int shape_variable(const char* name, std::initializer_list<int> allowed, const char* what, int unset = 0) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return unset;
  const std::string text(value);
  for (const int a : allowed)
    if (text == std::to_string(a)) return a;
  std::string list;
  for (const int a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
  throw InputError(cat(name, "='", text, "': expected one of ", list, " (", what, ")"));
}

}  // namespace

int tensor_blocks(int order, bool float_rows, bool compact) {
  static const int asked = shape_variable("FLOWDG_TENSOR_BLOCKS", {2, 3, 4},
                                          "the tensor-core element kernel's blocks an SM at p = 3, 4 (4: float rows only)");
  return tensor_blocks_for(asked, order, float_rows, compact);
}

int tensor_blocks_for(int asked, int order, bool float_rows, bool compact) {
  if (order != 3 && order != 4) return 2;
  if (asked == 4 && !float_rows)
    throw InputError("FLOWDG_TENSOR_BLOCKS=4: the tensor-core element kernel runs four blocks an SM with float rows only (float storage)");
  if (asked == 3 && order == 4 && !float_rows && !compact)
    throw InputError("FLOWDG_TENSOR_BLOCKS=3: at p = 4 the tensor-core element kernel's double rows fit three blocks an SM in the compact "
                     "layout only (FLOWDG_TENSOR_COMPACT=1)");
  if (asked != 0) return asked;
  // Float rows (float storage; session 46, H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra
  // at p = 4, `flowdg run`, one binary, docs/performance.md): four blocks (48 registers, 48 bytes
  // spilled) 19.47-19.48e9 DOF-stage updates/s, three (64) 19.30-19.33, two (78) 16.30-16.36 — the
  // same bits; double rows 16.41-16.45 (their shared memory holds two blocks).
  if (float_rows) return 4;
  // Double rows. Session 42 (H100, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 3,
  // `flowdg run`, face moments, one binary; docs/performance.md): registers bounded for two blocks
  // (96) 13.79-13.80e9 DOF-stage updates/s against three's (64) 12.96-12.98, the same bits;
  // unbounded (108 registers, one block) 9.0. Session 47 (H200, the same case): with the Runge-Kutta
  // registers loaded after the products (tensor_late_rk; 64 registers without spills) three blocks
  // 17.26-17.28 (m8n8k4; m16n8k4 16.88-16.96) against two blocks' 15.82-15.83 (m16n8k4, early
  // loads): +9.1% (final states within 7e-16: another summation order). At p = 4 (compact layout)
  // three blocks 13.32-13.38 against two's 13.38 (early loads 12.16-12.22): two.
  return order == 3 ? 3 : 2;
}

bool tensor_float_rows(int order) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_ROWS", "double", "float",
                                           "the tensor-core element kernel's shared rows in float storage at p = 3, 4");
  if (order != 3 && order != 4) return false;
  // Session 46 (above, tensor_blocks): at p = 4 float rows at four blocks 19.47 against double rows'
  // 16.43e9 DOF-stage updates/s (+18.5%). Session 47 (H200, 384,000 tetrahedra): at p = 3 (late
  // Runge-Kutta loads: tensor_late_rk) float rows 23.72, 23.88 against double rows' 20.75, 20.83.
  return asked >= 0 ? asked == 1 : true;
}

bool tensor_prefetch(int order, bool float_rows) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_PREFETCH", "0", "1",
                                           "the tensor-core element kernel's A fragments loaded k steps ahead at p = 3, 4");
  if (order != 3 && order != 4) return false;
  // Session 48 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, two
  // rounds, the same bits; docs/performance.md): double p = 4 (four steps ahead) 13.55, 13.56e9
  // DSU/s against 13.34, 13.37 (+1.5%; long-scoreboard stalls 19-22% -> 15-16%); lost elsewhere:
  // double p = 3 (two ahead) 16.96 against 17.19-17.25, float rows p = 4 20.06-20.07 against
  // 20.79-20.91, p = 3 23.23-23.36 against 23.68-23.72.
  return asked >= 0 ? asked == 1 : order == 4 && !float_rows;
}

bool tensor_compact(int order) {
  // Read once (every set-up asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_COMPACT", "0", "1",
                                           "the tensor-core element kernel's coefficients inside the flux rows at p = 3, 4 (double rows)");
  if (order != 3 && order != 4) return false;
  if (asked >= 0) return asked == 1;
  // Session 60 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 3, `flowdg run`, one
  // binary, two calls, five rounds, the same bits; docs/performance.md): double rows (three blocks an
  // SM either way: the registers bound them) 20.24-20.35e9 DSU/s against the plain layout's
  // 20.13-20.19 (+0.5-1.0% in every round). (Narrow blocks, tensor_row_groups 1, need it: five of
  // 40 KB an SM, where the plain layout's 46 KB fit four.)
  // Session 47 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 4, `flowdg run`, one
  // binary, the same bits): at two blocks an SM 13.38, 13.38e9 DSU/s against the plain layout's
  // 13.32, 13.33 (+0.4%: 71 instead of 83 KB of shared memory a block, more of the SM's 256 KB left
  // to L1 for the tables); three blocks (which it fits) 13.32-13.38 with late loads.
  return true;
}

bool tensor_late_rk(int order, bool float_rows, bool compact) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_RK", "early", "late",
                                           "when the tensor-core element kernel loads its Runge-Kutta registers at p = 3, 4");
  if (order != 3 && order != 4) return false;
  // Session 47 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary,
  // the same bits; docs/performance.md): where the registers are bounded for three blocks or more
  // the late loads spill nothing (ptxas) and win — float rows at p = 4, four blocks, 20.90 against
  // 19.47-19.48e9 DSU/s (+7.3%); double p = 4 compact, three blocks, 13.32-13.38 against 12.16-12.22;
  // double p = 3, three blocks, 17.27 against two early blocks' 15.82 — and at two blocks lose:
  // double p = 4 13.30 against 13.32-13.33, p = 3 (m16n8k4) 15.21 against 15.82.
  return asked >= 0 ? asked == 1 : tensor_blocks(order, float_rows, compact) >= 3;
}

bool tensor_wide(int order) {
  // Session 44 (H100, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary,
  // docs/performance.md): mma.m16n8k4 (two row tiles an instruction; the H100's FP64 tensor rate 66
  // against m8n8k4's 33 TFLOP/s) at p = 3 14.10e9 DSU/s against 13.80 (element kernel 1.87 against
  // 2.01 ms a stage), at p = 4 12.67-12.69 against 12.91-12.93.
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_WIDE", "0", "1", "the tensor-core element kernel's mma shape: 0 m8n8k4, 1 m16n8k4");
  // Session 47 (H200, same case): at p = 3 in three blocks (tensor_blocks) m8n8k4 17.26-17.28
  // against m16n8k4's 16.88-16.96 (16 bytes spilled at 64 registers). Session 53 (H200, same case,
  // two calls, five rounds): at p = 3 with the sizes compiled in and the late loads right after the
  // partial sums (tensor_fixed_layout, tensor_rk_after_sums: 64 registers, none spilled) m16n8k4
  // 19.09-19.19 against 18.94-19.03 (+0.8% in every round). At p = 4 (the fused traces, two blocks)
  // m16n8k4 in phases 1 and 3 lost (14.44 with the loads after the partial sums, against 14.82-14.86):
  // ncu put phase 3 at 23% of the samples instead of 45%, but phase 1 at 20% instead of 12%; with
  // m16n8k4 in phase 3 alone (core_tensor_kernels.hpp Wide since) 15.59, 15.62 against 14.81, 14.84
  // (+5.3%), and at p = 3 19.19-19.21 against 19.13-19.17 with it in both (the same bits). Float rows
  // keep m8n8k4 in four blocks (m16n8k4 needs three: 21.86-21.92 against 24.16-24.27).
  return asked >= 0 ? asked == 1 : order == 3 || order == 4;
}

bool tensor_fixed_layout(int order, bool float_rows) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_FIXED", "0", "1",
                                           "the tensor-core element kernel's layout sizes at compile time at p = 3, 4");
  return tensor_fixed_layout_for(asked, order, float_rows);
}

bool tensor_fixed_layout_for(int asked, int order, bool float_rows) {
  if (order != 3 && order != 4) return false;
  if (asked >= 0) return asked == 1;
  // Session 52 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, two
  // rounds, the same bits; docs/performance.md): double p = 3 18.03, 18.05e9 DSU/s against 17.34,
  // 17.37 (+3.9%), float rows p = 4 24.15, 24.25 against 22.71, 22.74 (+6.5%), p = 3 25.98, 26.08
  // against 23.85, 23.96 (+8.9%); double p = 4 14.74, 14.66 against 14.77, 14.73 (-0.4%). Session 55
  // (same case): double p = 4's shape of the time (m16n8k4 in phase 3, the fused traces at the face
  // points, the loads after the partial sums) 17.43, 17.43 against 17.07, 17.09 (+2.1%; 17.48, 17.49
  // with tensor_rk_u's coefficients): every default shape at p = 3, 4.
  (void)float_rows;
  return true;
}

bool tensor_rk_after_sums(int order) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_RK_SUMS", "0", "1",
                                           "the tensor-core element kernel's late Runge-Kutta loads right after the products' partial sums");
  if (order != 3 && order != 4) return false;
  // Session 52 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, two
  // rounds, the same bits; docs/performance.md): double p = 3 18.92, 18.92e9 DSU/s against 18.10,
  // 18.13 (+4.4%); float rows p = 3 26.19, 26.21 against 26.23, 26.06 (+0.2%), p = 4 24.32, 24.31
  // against 24.12, 24.27 (+0.5%, within the rounds' spread; double p = 4 loads them early): p = 3.
  return asked >= 0 ? asked == 1 : order == 3;
}

bool tensor_rk_u(int order) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_TENSOR_RK_U", "0", "1",
                                           "the tensor-core element kernel's coefficients loaded with the late Runge-Kutta registers");
  if (order != 3 && order != 4) return false;
  // Session 55 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 4, `flowdg run`, one
  // binary, two rounds, the same bits; docs/performance.md): double p = 4's fused-traces shape
  // 17.24, 17.23e9 DSU/s against 17.07, 17.09 (+1.0%), with the sizes compiled in 17.48, 17.49
  // against their 17.43, 17.43. Only p = 4 has the compact layout.
  return asked >= 0 ? asked == 1 : order == 4;
}

int tensor_variant(int order, bool float_rows) {
  // Read once (every launch asks): -1 unset, else the value asked for.
  static const int asked =
      shape_variable("FLOWDG_TENSOR_VARIANT", {0, 1, 2, 3, 7, 10, 23, 66, 151}, "the tensor-core element kernel's variant at p = 3, 4", -1);
  return tensor_variant_for(asked, order, float_rows);
}

int tensor_variant_for(int asked, int order, bool float_rows) {
  if (order != 3 && order != 4) return 0;
  if (asked >= 0) return asked;
  // (p = 3, the same case: variant 2, phase 1 unpredicated, double 19.87, 19.92 against 19.10,
  // 19.22 (+3.9%), float rows 28.01, 27.96 against 26.07, 26.13 (+7.2%), the same bits.)
  // (Session 57, same case, two rounds, the same bits: float rows variant 10 (+ the splits' sums in
  // the update) 28.00, 28.02 against 2's 27.78, 27.60 (+1.1%); double 10 19.72, 19.82 against 19.67,
  // 19.70 (+0.4%, within the rounds' spread: 2 kept).)
  // Session 62 (the same case, the same bits): double rows 66 (2 + the update two threads an (element,
  // mode) pair, each with half the variables: all ten warps in it instead of five) 20.72-20.77 against
  // 2's 20.45-20.55 (+1.3%, three rounds; ncu: the element kernel 1.41 ms against 1.445), 20.96-21.04
  // against 20.56-20.65 (+1.9%, two rounds, the next build); 66 + the plus sides kept (below) 20.99-21.04
  // (equal: not built since), 66 + the splits' sums in the update 20.29-20.36 (-3%: not built since).
  if (order == 3) return float_rows ? 10 : 66;
  // Session 55 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 4, `flowdg run`, one
  // binary, two rounds, the same bits; docs/performance.md): double rows (the fused traces at the
  // face points, the sizes compiled in, u with the late loads) variant 3 18.76, 18.73e9 DSU/s against
  // 0's 17.34, 17.38 (+8.0%; 2 alone 18.20, 18.18, 1 alone 17.51, 17.42), 7 19.10, 19.02 against 3's
  // 18.81, 18.87 (+1.2%); float rows 2 25.54, 25.37 against 0's 24.57, 24.56 (+3.6%; 1 does not fit
  // their 48 registers). A plan balancing phase 3's k steps over the four schedulers lost (18.07,
  // 17.99 against 18.81, 18.87: docs/results/session55/balanced_phase3.patch).
  // Session 57: double rows 23 (7 + phase 0's face codes and plus-side points loaded before the
  // copies) 19.35, 19.43 against 7's 19.06, 19.07 (+1.7%); 15 (7 + the splits' sums in the update)
  // 18.97, 18.93 (-0.6%), 31 (both) 19.36, 19.37; float rows 10 / 18 / 26 within 0.4% of 2's 25.64,
  // 25.63 (2 kept). The same bits in every pair.
  // Session 62: double rows 151 (23 + phase 0's plus sides kept for phase 2's negation pass instead of
  // the face codes loaded again there) 19.89, 19.84 against 23's 19.76, 19.76 (+0.5%), the same bits.
  return float_rows ? 2 : 151;
}

bool tensor_element_major_runs(int order, bool double_storage, bool float_rows, bool compact, int Nq, int Nfq) {
  if (order != 3 || Nq != tensor_fixed_volume_points(order) || Nfq != face_moment_nodes(order) || !tensor_fixed_layout(order, float_rows))
    return false;
  if (float_rows) return !double_storage && tensor_row_groups(order, true) == 1 && tensor_variant(order, true) == 10;
  return double_storage && tensor_row_groups(order, false) == core_tensor_row_groups && tensor_variant(order, false) == 66 &&
         tensor_blocks(order, false, compact) == 3 && tensor_late_rk(order, false, compact) && tensor_wide(order);
}

bool tensor_staged_element_major() {
  static const int asked = switch_variable("FLOWDG_TENSOR_STAGING", "0", "1",
                                           "0: an element-major group's coefficients in the tensor-core element kernel's rows, 1: element-major there too");
  if (asked >= 0) return asked == 1;
  // Session 63 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra at p = 3, `flowdg run`, one binary,
  // two rounds, the same bits; docs/performance.md): double 23.23-23.33e9 DSU/s against the rows' 22.94-22.97
  // (+1.4%; ncu: the element kernel 1.386 ms a launch against 1.436-1.471), float 34.19-34.22 against
  // 32.64-32.78 (+4.5%).
  return true;
}

bool tensor_row_swizzle(int order, bool float_rows) {
  static const int asked = switch_variable("FLOWDG_TENSOR_SWIZZLE", "0", "1",
                                           "0: the tensor-core element kernel's rows in order, 1: (0, 2, 1, 3) within each four");
  return tensor_row_swizzle_for(asked, order, float_rows);
}

bool tensor_row_swizzle_for(int asked, int order, bool float_rows) {
  if (asked >= 0) return asked == 1;
  // Session 61 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, two
  // rounds, the same bits; docs/performance.md): double rows p = 3 20.62, 20.66e9 DSU/s against 20.30,
  // 20.42 (+1.4%), p = 4 19.78, 19.80 against 19.53, 19.51 (+1.4%); float rows p = 3 30.31, 30.64
  // against 30.42, 30.69 and p = 4 25.75, 25.85 against 25.91, 25.91 (no gain: their rows' stride differs).
  return !float_rows && (order == 3 || order == 4);
}

int tensor_row_groups(int order, bool float_rows) {
  static const int asked = shape_variable("FLOWDG_TENSOR_ROW_GROUPS", {1, 2}, "the tensor-core element kernel's warps a column tile at p = 3, 4");
  return tensor_row_groups_for(asked, order, float_rows);
}

int tensor_row_groups_for(int asked, int order, bool float_rows) {
  if (order != 3 && order != 4) return 2;
  if (asked != 0) return asked;
  // Session 60 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, two
  // calls; docs/performance.md): float rows at p = 3 (eight blocks of five warps an SM, 48 registers,
  // none spilled) 29.66-29.90e9 DSU/s against ten warps' 27.91-27.99 (+6.6%; final states within the
  // float path's rounding: the k range split in two instead of four); lost elsewhere — double p = 3
  // (compact, five blocks, 72 registers) 17.85-17.87 against 20.13-20.16, double p = 4 (three blocks,
  // 124 registers) 13.36 against 19.35-19.39, float rows p = 4 (five blocks, 64 registers) 24.28-24.35
  // against 25.50-25.55.
  return order == 3 && float_rows ? 1 : 2;
}

bool runge_kutta_update_tested() {
  // Read once (every stage asks): -1 unset, else the value asked for.
  static const int asked = switch_variable("FLOWDG_RK_UPDATE", "tested", "plain", "the device kernels' Runge-Kutta update");
  // Session 60 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, `flowdg run`, one binary, three
  // rounds, the same bits; docs/performance.md): the plain products at p = 3 double 20.29-20.44e9
  // DSU/s against the tests' 20.24-20.26 (+0.6%), float rows 30.43-30.61 against 30.28-30.35 (+0.6%);
  // double p = 4 19.41-19.49 against 19.35-19.49 (the same within the rounds' spread).
  return asked >= 0 ? asked == 0 : false;
}

Br2FaceShape br2_face_shape(Shape shape, int order) {
  const int threads = shape_variable("FLOWDG_BR2_FACE_THREADS", {64, 128, 256}, "the BR2 face kernel's threads a block");
  const int blocks = shape_variable("FLOWDG_BR2_FACE_BLOCKS", {2, 3, 4, 5, 6, 8, 10, 12}, "the BR2 face kernel's blocks an SM");
  if (threads == 0 && blocks == 0) return br2_face_default_shape(shape, order);
  Br2FaceShape asked;
  asked.threads = threads != 0 ? threads : 256;
  asked.blocks = blocks != 0 ? blocks : (asked.threads == 256 ? 3 : asked.threads == 128 ? 5 : 10);
  if (!br2_face_shape_compiled(asked, order))
    throw InputError(cat("FLOWDG_BR2_FACE_THREADS / FLOWDG_BR2_FACE_BLOCKS: ", asked.blocks, " blocks of ", asked.threads,
                         " threads are not compiled at p = ", order,
                         " (256 x 3 at every order, 256 x 2 from p = 2, 128 x 4..6 and 64 x 8, 10, 12 at p = 3, 4)"));
  return asked;
}

}  // namespace flowdg::dg
