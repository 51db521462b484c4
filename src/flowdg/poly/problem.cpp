#include "flowdg/poly/problem.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>

#include "flowdg/core/error.hpp"

#ifdef FLOWDG_HAVE_MUPARSER
#include <muParser.h>
#endif

namespace flowdg::poly {

namespace {

constexpr double pi = std::numbers::pi;
/// c - div(b)/2 below this at a node gives a warning (rounding of the central differences aside).
constexpr double reaction_warning_limit = -1e-12;

// ---- built-in problems: constant a, b, c and u = prod_r sin(k_r x_r + phi_r) --------------------

struct Manufactured {
  int d = 2;
  std::array<double, 3> k{pi, pi, pi}, phi{0, 0, 0};
  std::array<double, 9> a{};  // row-major 3 x 3 (the d x d block is used)
  std::array<double, 3> b{};
  double c = 0;

  double coordinate(Point3 x, int r) const { return r == 0 ? x.x : r == 1 ? x.y : x.z; }
  double s(Point3 x, int r) const { return std::sin(k[r] * coordinate(x, r) + phi[r]); }
  double ds(Point3 x, int r) const { return k[r] * std::cos(k[r] * coordinate(x, r) + phi[r]); }
  double u(Point3 x) const {
    double v = 1;
    for (int r = 0; r < d; ++r) v *= s(x, r);
    return v;
  }
  /// d/dx_r of u.
  double grad(Point3 x, int r) const {
    double v = 1;
    for (int t = 0; t < d; ++t) v *= t == r ? ds(x, t) : s(x, t);
    return v;
  }
  /// d^2 u / dx_r dx_t.
  double hessian(Point3 x, int r, int t) const {
    if (r == t) return -k[r] * k[r] * u(x);
    double v = 1;
    for (int m = 0; m < d; ++m) v *= (m == r || m == t) ? ds(x, m) : s(x, m);
    return v;
  }
  double f(Point3 x) const {
    double v = c * u(x);
    for (int r = 0; r < d; ++r) {
      v += b[r] * grad(x, r);
      for (int t = 0; t < d; ++t) v -= a[3 * r + t] * hessian(x, r, t);
    }
    return v;
  }
  double flux(Point3 x, Point3 n) const {  // (a grad u) . n
    const double nv[3] = {n.x, n.y, n.z};
    double v = 0;
    for (int r = 0; r < d; ++r)
      for (int t = 0; t < d; ++t) v += nv[r] * a[3 * r + t] * grad(x, t);
    return v;
  }
};

template <class F>
BulkField bulk(F f) {
  return [f](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = f(x[q]);
  };
}

/// The d values of `key` (a d-vector), d * d (a tensor), or `fallback`.
std::array<double, 9> read_numbers(const Config& table, const char* key, int count, int d, std::array<double, 9> fallback,
                                   bool tensor) {
  const auto values = table.get_doubles(key);
  if (!values) return fallback;
  if (static_cast<int>(values->size()) != count)
    throw InputError(cat(table.where(), " ", key, ": expected ", count, " numbers (", tensor ? "a d x d tensor, row-major" : "one per dimension",
                         ", d = ", d, "), got ", values->size()));
  std::array<double, 9> out{};
  if (tensor) {
    for (int r = 0; r < d; ++r)
      for (int t = 0; t < d; ++t) out[3 * r + t] = (*values)[d * r + t];
  } else {
    for (int r = 0; r < count; ++r) out[r] = (*values)[r];
  }
  return out;
}

/// Throws unless the d x d block of `a` (row-major 3 x 3) is symmetric positive semi-definite.
void check_diffusion(const double* a, int d, int stride, const std::string& where) {
  const auto at = [&](int r, int t) { return a[stride * r + t]; };
  double scale = 0;
  for (int r = 0; r < d; ++r)
    for (int t = 0; t < d; ++t) scale = std::max(scale, std::abs(at(r, t)));
  const double tolerance = 1e-12 * std::max(scale, 1.0);
  for (int r = 0; r < d; ++r)
    for (int t = 0; t < d; ++t)
      if (!std::isfinite(at(r, t)) || std::abs(at(r, t) - at(t, r)) > tolerance)
        throw InputError(cat(where, ": the diffusion tensor must be symmetric (entries ", r, ",", t, " and ", t, ",", r,
                             " are ", at(r, t), " and ", at(t, r), ")"));
  // leading principal minors are not enough for semi-definiteness: check all principal minors
  bool ok = true;
  for (int r = 0; r < d; ++r) ok = ok && at(r, r) >= -tolerance;
  for (int r = 0; r < d; ++r)
    for (int t = r + 1; t < d; ++t) ok = ok && at(r, r) * at(t, t) - at(r, t) * at(r, t) >= -tolerance * scale;
  if (d == 3) {
    const double det = at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1)) - at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0)) +
                       at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
    ok = ok && det >= -tolerance * scale * scale;
  }
  if (!ok) throw InputError(cat(where, ": the diffusion tensor must be positive semi-definite (a negative eigenvalue found)"));
}

void set_neumann_tags(PolyProblem& problem, const Config& table, const PolyMesh& mesh) {
  const Config boundary = table.table("boundary");
  boundary.allow_only({"neumann"});
  problem.neumann_tags = boundary.get_strings("neumann").value_or(std::vector<std::string>{});
  problem.coefficients.neumann_tag.assign(mesh.boundary_names.size(), false);
  for (const std::string& name : problem.neumann_tags) {
    const auto found = std::find(mesh.boundary_names.begin(), mesh.boundary_names.end(), name);
    if (found == mesh.boundary_names.end()) {
      std::string known;
      for (const auto& tag : mesh.boundary_names) known += (known.empty() ? "" : ", ") + tag;
      throw InputError(cat(boundary.where(), " neumann: the mesh has no boundary tag '", name, "' (its tags: ", known, ")"));
    }
    problem.coefficients.neumann_tag[found - mesh.boundary_names.begin()] = true;
  }
}

/// The manufactured problem of a built-in type with the table's overrides.
Manufactured manufactured_from(const std::string& type, const Config& table, int d) {
  Manufactured m;
  m.d = d;
  if (type == "poisson") {
    m.a = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  } else if (type == "advection-diffusion-reaction") {
    m.a = {1, 0.25, 0, 0.25, 0.5, 0, 0, 0, 0.75};
    m.b = {1, -0.5, 0.25};
    m.c = 1;
    m.k = {2, 3, 2.5};
    m.phi = {0.3, 0.7, 0.2};
  } else if (type == "hyperbolic") {
    m.b = {1, 0.5, 0.25};
    m.c = 1;
    m.k = {2, 3, 2.5};
    m.phi = {0.3, 0.7, 0.2};
  } else {  // degenerate
    m.a = {1, 0, 0, 0, 0, 0, 0, 0, 1};
    m.b = {0, 1, 0};
    m.c = 1;
    m.k = {2, 3, 2.5};
    m.phi = {0.3, 0.7, 0.2};
  }
  m.a = read_numbers(table, "diffusion", d * d, d, m.a, true);
  const auto b = read_numbers(table, "advection", d, d, {m.b[0], m.b[1], m.b[2]}, false);
  const auto k = read_numbers(table, "wavenumbers", d, d, {m.k[0], m.k[1], m.k[2]}, false);
  const auto phi = read_numbers(table, "phases", d, d, {m.phi[0], m.phi[1], m.phi[2]}, false);
  for (int r = 0; r < 3; ++r) {
    m.b[r] = r < d ? b[r] : 0;
    m.k[r] = k[r];
    m.phi[r] = phi[r];
  }
  m.c = table.double_or("reaction", m.c);
  if (d == 2) m.a[2] = m.a[5] = m.a[6] = m.a[7] = m.a[8] = 0;
  check_diffusion(m.a.data(), d, 3, table.where());
  return m;
}

PolyProblem builtin_problem(const std::string& type, const Config& table, const PolyMesh& mesh) {
  table.allow_only({"type", "diffusion", "advection", "reaction", "wavenumbers", "phases", "boundary"});
  const int d = mesh.dimension;
  const Manufactured m = manufactured_from(type, table, d);

  PolyProblem problem;
  problem.type = type;
  Coefficients& co = problem.coefficients;
  co.dimension = d;
  co.constant_diffusion = m.a;
  co.constant_advection = m.b;
  co.constant_reaction = m.c;
  co.source = bulk([m](Point3 x) { return m.f(x); });
  co.dirichlet = bulk([m](Point3 x) { return m.u(x); });
  co.neumann = [m](std::span<const Point3> x, std::span<const Point3> n, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = m.flux(x[q], n[q]);
  };
  co.thread_safe = true;
  problem.exact = co.dirichlet;
  problem.exact_gradient = [m](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < m.d; ++r) out[m.d * q + r] = m.grad(x[q], r);
  };
  set_neumann_tags(problem, table, mesh);
  if (m.c < 0)
    problem.warnings.push_back(cat(table.where(), ": the reaction c = ", m.c,
                                   " is negative (the theory assumes c - div(b)/2 >= c0 > 0; the problem may be ill-posed)"));
  std::string waves;
  for (int r = 0; r < d; ++r) waves += cat(r == 0 ? "" : " ", "sin(", m.k[r], " ", "xyz"[r], " + ", m.phi[r], ")");
  std::string av, bv;
  for (int r = 0; r < d; ++r) {
    bv += cat(r == 0 ? "" : ", ", m.b[r]);
    for (int t = 0; t < d; ++t) av += cat(r + t == 0 ? "" : ", ", m.a[3 * r + t]);
  }
  problem.description = cat(type, ": a = [", av, "], b = (", bv, "), c = ", m.c, ", u = ", waves);
  return problem;
}

// ---- built-in parabolic problems: u = prod_r sin(k_r x_r + phi_r) T(t) --------------------------

ParabolicProblem builtin_parabolic(const std::string& type, const Config& table, const PolyMesh& mesh) {
  table.allow_only({"type", "diffusion", "advection", "reaction", "wavenumbers", "phases", "boundary", "frequency", "oscillation"});
  const int d = mesh.dimension;
  const Manufactured m = manufactured_from(type == "heat" ? "poisson" : type, table, d);
  const double omega = table.double_or("frequency", 2.0), delta = table.double_or("oscillation", 0.0);
  if (!std::isfinite(omega)) throw InputError(cat(table.where(), " frequency = ", omega, ": must be finite"));
  if (!(std::abs(delta) < 1))
    throw InputError(cat(table.where(), " oscillation = ", delta, ": must be in (-1, 1) (the diffusion (1 + oscillation sin(frequency t)) a "
                                        "must stay positive)"));
  PolyProblem tags;
  set_neumann_tags(tags, table, mesh);
  ParabolicProblem problem;
  problem.type = type;
  problem.neumann_tags = tags.neumann_tags;
  problem.operator_depends_on_time = delta != 0;
  const std::vector<bool> neumann = tags.coefficients.neumann_tag;
  const auto T = [omega](double t) { return std::cos(omega * t) + 0.5 * std::sin(2 * omega * t); };
  const auto dT = [omega](double t) { return -omega * std::sin(omega * t) + omega * std::cos(2 * omega * t); };
  problem.coefficients = [m, d, T, dT, omega, delta, neumann](double t) {
    Manufactured mt = m;  // a(t) = (1 + delta sin(omega t)) a
    for (double& v : mt.a) v *= 1 + delta * std::sin(omega * t);
    const double time = T(t), rate = dT(t);
    Coefficients co;
    co.dimension = d;
    co.constant_diffusion = mt.a;
    co.constant_advection = mt.b;
    co.constant_reaction = mt.c;
    co.source = bulk([mt, time, rate](Point3 x) { return mt.f(x) * time + mt.u(x) * rate; });
    co.dirichlet = bulk([mt, time](Point3 x) { return mt.u(x) * time; });
    co.neumann = [mt, time](std::span<const Point3> x, std::span<const Point3> n, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = mt.flux(x[q], n[q]) * time;
    };
    co.neumann_tag = neumann;
    co.thread_safe = true;
    return co;
  };
  problem.exact = [m, T](double t) -> BulkField {
    const double time = T(t);
    return bulk([m, time](Point3 x) { return m.u(x) * time; });
  };
  problem.exact_gradient = [m, T](double t) -> BulkField {
    const double time = T(t);
    return [m, time](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q)
        for (int r = 0; r < m.d; ++r) out[m.d * q + r] = m.grad(x[q], r) * time;
    };
  };
  problem.initial = problem.exact;
  std::string waves, av, bv;
  for (int r = 0; r < d; ++r) waves += cat(r == 0 ? "" : " ", "sin(", m.k[r], " ", "xyz"[r], " + ", m.phi[r], ")");
  for (int r = 0; r < d; ++r) {
    bv += cat(r == 0 ? "" : ", ", m.b[r]);
    for (int k = 0; k < d; ++k) av += cat(r + k == 0 ? "" : ", ", m.a[3 * r + k]);
  }
  problem.description = cat(type, " (parabolic): a = ", delta != 0 ? cat("(1 + ", delta, " sin(", omega, " t)) ") : std::string(), "[", av,
                            "], b = (", bv, "), c = ", m.c, ", u = ", waves, " (cos(", omega, " t) + sin(", 2 * omega, " t)/2)");
  if (m.c < 0) problem.warnings.push_back(cat(table.where(), ": the reaction c = ", m.c, " is negative"));
  return problem;
}

// ---- expression problems (muparser) -----------------------------------------------------------

#ifdef FLOWDG_HAVE_MUPARSER
/// One formula of x, y, z (and nx, ny, nz), evaluated point after point. Shared by the functions
/// that use it (the parser keeps pointers to the variables, so it lives in one place).
class Formula {
 public:
  Formula(const std::string& text, const std::string& where, bool time = false) : text_(text) {
    try {
      parser_.DefineConst("pi", pi);
      if (time) parser_.DefineVar("t", &t_);
      parser_.DefineVar("x", &x_);
      parser_.DefineVar("y", &y_);
      parser_.DefineVar("z", &z_);
      parser_.DefineVar("nx", &nx_);
      parser_.DefineVar("ny", &ny_);
      parser_.DefineVar("nz", &nz_);
      parser_.SetExpr(text);
      const auto used = parser_.GetUsedVar();  // parses the formula: syntax errors are thrown here
      for (const auto& [name, pointer] : used) {
        if (name == "t" && time) {
          uses_time_ = true;
          continue;
        }
        if (name != "x" && name != "y" && name != "z" && name != "nx" && name != "ny" && name != "nz")
          throw InputError(cat(where, ": the formula '", text, "' uses '", name, "': the variables are x, y, z",
                               time ? ", t" : "", " (and nx, ny, nz in the Neumann data)",
                               name == "t" ? " (t only in time-dependent cases: give a [time] table)" : ""));
        if (name == "nx" || name == "ny" || name == "nz") uses_normal_ = true;
      }
      constant_ = used.empty();
      value_ = parser_.Eval();  // also catches what parsing alone lets through
    } catch (const mu::Parser::exception_type& error) {
      throw InputError(cat(where, ": the formula '", text, "' is not valid: ", error.GetMsg()));
    }
    where_ = where;
  }
  bool constant() const { return constant_; }
  bool uses_normal() const { return uses_normal_; }
  bool uses_time() const { return uses_time_; }
  double value() const { return value_; }
  double operator()(Point3 x, Point3 n = {}, double t = 0) {
    t_ = t;
    x_ = x.x;
    y_ = x.y;
    z_ = x.z;
    nx_ = n.x;
    ny_ = n.y;
    nz_ = n.z;
    try {
      return parser_.Eval();
    } catch (const mu::Parser::exception_type& error) {
      throw InputError(cat(where_, ": the formula '", text_, "' failed at (", x.x, ", ", x.y, ", ", x.z, "): ", error.GetMsg()));
    }
  }

 private:
  mu::Parser parser_;
  std::string text_, where_;
  double x_ = 0, y_ = 0, z_ = 0, nx_ = 0, ny_ = 0, nz_ = 0, t_ = 0;
  double value_ = 0;
  bool constant_ = false, uses_normal_ = false, uses_time_ = false;
};
using FormulaPtr = std::shared_ptr<Formula>;

/// The formulas of `key`: strings, or numbers (taken as constant formulas).
std::vector<std::string> read_formulas(const Config& table, const char* key) {
  try {
    return table.get_strings(key).value_or(std::vector<std::string>{});
  } catch (const InputError&) {
  }
  std::vector<double> numbers;
  try {
    if (const auto one = table.get_double(key)) numbers = {*one};
  } catch (const InputError&) {
    try {
      numbers = table.get_doubles(key).value_or(std::vector<double>{});
    } catch (const InputError&) {
      throw InputError(cat(table.where(), " ", key, ": expected a formula (a string), a number, or an array of either"));
    }
  }
  std::vector<std::string> out;
  for (double value : numbers) out.push_back(cat(value));
  return out;
}

std::vector<FormulaPtr> parse_all(const Config& table, const char* key, const std::vector<std::size_t>& counts,
                                  const std::string& fallback, const char* shape, bool time = false) {
  std::vector<std::string> texts = read_formulas(table, key);
  if (texts.empty() && !fallback.empty()) texts = {fallback};
  if (texts.empty()) return {};
  if (std::find(counts.begin(), counts.end(), texts.size()) == counts.end())
    throw InputError(cat(table.where(), " ", key, ": expected ", shape, ", got ", texts.size(), " formulas"));
  std::vector<FormulaPtr> out;
  for (std::size_t i = 0; i < texts.size(); ++i)
    out.push_back(std::make_shared<Formula>(texts[i], cat(table.where(), " ", key, texts.size() > 1 ? cat("[", i, "]") : ""), time));
  return out;
}

bool all_constant(const std::vector<FormulaPtr>& formulas) {
  return std::all_of(formulas.begin(), formulas.end(), [](const FormulaPtr& f) { return f->constant(); });
}

void refuse_normal(const std::vector<FormulaPtr>& formulas, const Config& table, const char* key) {
  for (const auto& f : formulas)
    if (f->uses_normal())
      throw InputError(cat(table.where(), " ", key, ": nx, ny, nz are defined only in the Neumann data"));
}

PolyProblem expression_problem(const Config& table, const PolyMesh& mesh) {
  table.allow_only({"type", "diffusion", "advection", "reaction", "source", "dirichlet", "neumann", "exact", "exact_gradient",
                    "boundary"});
  const int d = mesh.dimension;
  const std::size_t dd = static_cast<std::size_t>(d);
  PolyProblem problem;
  problem.type = "expression";
  Coefficients& co = problem.coefficients;
  co.dimension = d;
  const auto a = parse_all(table, "diffusion", {1, dd * dd}, "0", d == 2 ? "1 (a scalar times I) or 4" : "1 (a scalar times I) or 9");
  const auto b = parse_all(table, "advection", {dd}, "", d == 2 ? "2" : "3");
  const auto c = parse_all(table, "reaction", {1}, "0", "1");
  const auto f = parse_all(table, "source", {1}, "0", "1");
  const auto g = parse_all(table, "dirichlet", {1}, "0", "1");
  const auto gn = parse_all(table, "neumann", {1}, "0", "1");
  const auto u = parse_all(table, "exact", {1}, "", "1");
  const auto grad = parse_all(table, "exact_gradient", {dd}, "", d == 2 ? "2" : "3");
  refuse_normal(a, table, "diffusion");
  refuse_normal(b, table, "advection");
  refuse_normal(c, table, "reaction");
  refuse_normal(f, table, "source");
  refuse_normal(g, table, "dirichlet");
  refuse_normal(u, table, "exact");
  refuse_normal(grad, table, "exact_gradient");
  if (u.empty() != grad.empty())
    throw InputError(cat(table.where(), ": give both exact and exact_gradient (for the L2 and DG-norm errors), or neither"));

  // a: d x d per point, row-major; one formula = that times I
  const auto a_entry = [a, d](int r, int t) -> FormulaPtr {
    if (a.size() == 1) return r == t ? a[0] : nullptr;
    return a[static_cast<std::size_t>(d * r + t)];
  };
  if (all_constant(a)) {
    std::array<double, 9> m{};
    for (int r = 0; r < d; ++r)
      for (int t = 0; t < d; ++t)
        if (const FormulaPtr e = a_entry(r, t)) m[3 * r + t] = e->value();
    check_diffusion(m.data(), d, 3, cat(table.where(), " diffusion"));
    co.constant_diffusion = m;
  } else {
    const std::string where = cat(table.where(), " diffusion");
    co.diffusion = [a_entry, d, where](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) {
        double* m = out + d * d * q;
        for (int r = 0; r < d; ++r)
          for (int t = 0; t < d; ++t) {
            const FormulaPtr e = a_entry(r, t);
            m[d * r + t] = e ? (*e)(x[q]) : 0.0;
          }
        check_diffusion(m, d, d, where);
      }
    };
  }
  if (b.empty() || all_constant(b)) {
    std::array<double, 3> v{};
    for (std::size_t r = 0; r < b.size(); ++r) v[r] = b[r]->value();
    co.constant_advection = v;
  } else {
    co.advection = [b, d](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q)
        for (int r = 0; r < d; ++r) out[d * q + r] = (*b[r])(x[q]);
    };
  }
  const auto scalar = [](const FormulaPtr& formula) -> BulkField {
    return [formula](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = (*formula)(x[q]);
    };
  };
  if (c[0]->constant()) co.constant_reaction = c[0]->value();
  else co.reaction = scalar(c[0]);
  co.source = scalar(f[0]);
  co.dirichlet = scalar(g[0]);
  const FormulaPtr flux = gn[0];
  co.neumann = [flux](std::span<const Point3> x, std::span<const Point3> n, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = (*flux)(x[q], n[q]);
  };
  if (!u.empty()) {
    problem.exact = scalar(u[0]);
    problem.exact_gradient = [grad, d](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q)
        for (int r = 0; r < d; ++r) out[d * q + r] = (*grad[r])(x[q]);
    };
  }
  set_neumann_tags(problem, table, mesh);

  // c - div(b)/2 >= 0 at the fine vertices and centroids (div b by central differences, a step of
  // 1e-6 of the mesh's extent)
  double extent = 0;
  Point3 lo = mesh.nodes.empty() ? Point3{} : mesh.nodes.front(), hi = lo;
  for (const Point3& p : mesh.nodes) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  extent = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-300});
  const double step = 1e-6 * extent;
  double worst = INFINITY;
  Point3 where_worst{};
  for (const Point3& p : mesh.nodes) {
    double value = c[0]->constant() ? c[0]->value() : (*c[0])(p);
    if (!b.empty() && !all_constant(b))
      for (int r = 0; r < d; ++r) {
        Point3 plus = p, minus = p;
        (r == 0 ? plus.x : r == 1 ? plus.y : plus.z) += step;
        (r == 0 ? minus.x : r == 1 ? minus.y : minus.z) -= step;
        value -= 0.5 * ((*b[r])(plus) - (*b[r])(minus)) / (2 * step);
      }
    if (value < worst) {
      worst = value;
      where_worst = p;
    }
  }
  problem.smallest_reaction = worst;
  problem.smallest_reaction_at = where_worst;
  problem.reaction_where = table.where();
  if (worst < reaction_warning_limit) {
    problem.reaction_warning = static_cast<int>(problem.warnings.size());
    problem.warnings.push_back(reaction_warning_text(table.where(), worst, where_worst, d));
  }
  problem.description = cat("expression: diffusion ", a.size() == 1 ? "scalar" : "tensor", b.empty() ? ", no advection" : ", advection",
                            u.empty() ? ", no exact solution" : ", with an exact solution");
  return problem;
}
ParabolicProblem expression_parabolic(const Config& table, const PolyMesh& mesh) {
  table.allow_only({"type", "diffusion", "advection", "reaction", "source", "dirichlet", "neumann", "exact", "exact_gradient",
                    "initial", "boundary"});
  const int d = mesh.dimension;
  const std::size_t dd = static_cast<std::size_t>(d);
  const auto a = parse_all(table, "diffusion", {1, dd * dd}, "0", d == 2 ? "1 (a scalar times I) or 4" : "1 (a scalar times I) or 9", true);
  const auto b = parse_all(table, "advection", {dd}, "", d == 2 ? "2" : "3", true);
  const auto c = parse_all(table, "reaction", {1}, "0", "1", true);
  const auto f = parse_all(table, "source", {1}, "0", "1", true);
  const auto g = parse_all(table, "dirichlet", {1}, "0", "1", true);
  const auto gn = parse_all(table, "neumann", {1}, "0", "1", true);
  const auto u = parse_all(table, "exact", {1}, "", "1", true);
  const auto grad = parse_all(table, "exact_gradient", {dd}, "", d == 2 ? "2" : "3", true);
  const auto u0 = parse_all(table, "initial", {1}, "", "1", true);
  refuse_normal(a, table, "diffusion");
  refuse_normal(b, table, "advection");
  refuse_normal(c, table, "reaction");
  refuse_normal(f, table, "source");
  refuse_normal(g, table, "dirichlet");
  refuse_normal(u, table, "exact");
  refuse_normal(grad, table, "exact_gradient");
  refuse_normal(u0, table, "initial");
  if (u.empty() != grad.empty())
    throw InputError(cat(table.where(), ": give both exact and exact_gradient (for the L2(L2) and energy errors), or neither"));
  if (u0.empty() && u.empty())
    throw InputError(cat(table.where(), ": give the initial condition `initial` (a formula of x, y, z) or an exact solution"));
  PolyProblem tags;
  set_neumann_tags(tags, table, mesh);
  ParabolicProblem problem;
  problem.type = "expression";
  problem.neumann_tags = tags.neumann_tags;
  const std::vector<bool> neumann = tags.coefficients.neumann_tag;
  const auto any_time = [](const std::vector<FormulaPtr>& formulas) {
    return std::any_of(formulas.begin(), formulas.end(), [](const FormulaPtr& x) { return x->uses_time(); });
  };
  problem.operator_depends_on_time = any_time(a) || any_time(b) || any_time(c);
  const std::string where = cat(table.where(), " diffusion");
  problem.coefficients = [a, b, c, f, g, gn, d, neumann, where](double t) {
    Coefficients co;
    co.dimension = d;
    co.neumann_tag = neumann;
    const auto a_entry = [a, d](int r, int k) -> FormulaPtr {
      if (a.size() == 1) return r == k ? a[0] : nullptr;
      return a[static_cast<std::size_t>(d * r + k)];
    };
    if (all_constant(a)) {
      std::array<double, 9> m{};
      for (int r = 0; r < d; ++r)
        for (int k = 0; k < d; ++k)
          if (const FormulaPtr e = a_entry(r, k)) m[3 * r + k] = e->value();
      check_diffusion(m.data(), d, 3, where);
      co.constant_diffusion = m;
    } else {
      co.diffusion = [a_entry, d, where, t](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q) {
          double* m = out + d * d * q;
          for (int r = 0; r < d; ++r)
            for (int k = 0; k < d; ++k) {
              const FormulaPtr e = a_entry(r, k);
              m[d * r + k] = e ? (*e)(x[q], {}, t) : 0.0;
            }
          check_diffusion(m, d, d, where);
        }
      };
    }
    if (b.empty() || all_constant(b)) {
      std::array<double, 3> v{};
      for (std::size_t r = 0; r < b.size(); ++r) v[r] = b[r]->value();
      co.constant_advection = v;
    } else {
      co.advection = [b, d, t](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q)
          for (int r = 0; r < d; ++r) out[d * q + r] = (*b[r])(x[q], {}, t);
      };
    }
    const auto scalar = [t](const FormulaPtr& formula) -> BulkField {
      return [formula, t](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q) out[q] = (*formula)(x[q], {}, t);
      };
    };
    if (c[0]->constant()) co.constant_reaction = c[0]->value();
    else co.reaction = scalar(c[0]);
    co.source = scalar(f[0]);
    co.dirichlet = scalar(g[0]);
    const FormulaPtr flux = gn[0];
    co.neumann = [flux, t](std::span<const Point3> x, std::span<const Point3> n, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = (*flux)(x[q], n[q], t);
    };
    return co;
  };
  const auto field = [](const FormulaPtr& formula) {
    return [formula](double t) -> BulkField {
      return [formula, t](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q) out[q] = (*formula)(x[q], {}, t);
      };
    };
  };
  if (!u.empty()) {
    problem.exact = field(u[0]);
    problem.exact_gradient = [grad, d](double t) -> BulkField {
      return [grad, d, t](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q)
          for (int r = 0; r < d; ++r) out[d * q + r] = (*grad[r])(x[q], {}, t);
      };
    };
  }
  problem.initial = u0.empty() ? problem.exact : field(u0[0]);
  problem.description = cat("expression (parabolic): diffusion ", a.size() == 1 ? "scalar" : "tensor", b.empty() ? ", no advection" : ", advection",
                            problem.operator_depends_on_time ? ", coefficients varying in time" : "",
                            u.empty() ? ", no exact solution" : ", with an exact solution");
  return problem;
}
#endif

}  // namespace

std::string reaction_warning_text(const std::string& where, double value, Point3 at, int dimension) {
  return cat(where, ": c - div(b)/2 = ", value, " < 0 at (", at.x, ", ", at.y, dimension == 3 ? cat(", ", at.z) : std::string(),
             ") (the theory assumes c - div(b)/2 >= c0 > 0; the problem may be ill-posed)");
}

std::vector<std::string> warnings_with_reaction(const PolyProblem& problem, double value, Point3 at, int dimension) {
  std::vector<std::string> warnings;
  for (int i = 0; i < static_cast<int>(problem.warnings.size()); ++i)
    if (i != problem.reaction_warning) warnings.push_back(problem.warnings[static_cast<std::size_t>(i)]);
  if (value < reaction_warning_limit) warnings.push_back(reaction_warning_text(problem.reaction_where, value, at, dimension));
  return warnings;
}

const std::vector<std::string>& builtin_problem_types() {
  static const std::vector<std::string> types = {"poisson", "advection-diffusion-reaction", "hyperbolic", "degenerate"};
  return types;
}

bool have_expressions() {
#ifdef FLOWDG_HAVE_MUPARSER
  return true;
#else
  return false;
#endif
}

ParabolicProblem make_parabolic_problem(const Config& table, const PolyMesh& mesh) {
  const std::string type = table.string_or("type", "heat");
  if (type == "heat" || type == "advection-diffusion-reaction") return builtin_parabolic(type, table, mesh);
  if (type == "expression") {
#ifdef FLOWDG_HAVE_MUPARSER
    return expression_parabolic(table, mesh);
#else
    throw InputError(cat(table.where(), " type = \"expression\": this flowdg was built without muparser (Debian: libmuparser-dev; "
                         "install it and reconfigure)"));
#endif
  }
  throw InputError(cat(table.where(), " type = \"", type, "\": a time-dependent (parabolic) case takes heat, advection-diffusion-reaction "
                       "or expression"));
}

PolyProblem make_problem(const Config& table, const PolyMesh& mesh) {
  const std::string type = table.string_or("type", "poisson");
  const auto& builtins = builtin_problem_types();
  if (std::find(builtins.begin(), builtins.end(), type) != builtins.end()) return builtin_problem(type, table, mesh);
  if (type == "expression") {
#ifdef FLOWDG_HAVE_MUPARSER
    return expression_problem(table, mesh);
#else
    throw InputError(cat(table.where(), " type = \"expression\": this flowdg was built without muparser (Debian: libmuparser-dev; "
                         "install it and reconfigure)"));
#endif
  }
  std::string known;
  for (const auto& name : builtins) known += name + ", ";
  throw InputError(cat(table.where(), " type = \"", type, "\": expected one of ", known, "expression"));
}

}  // namespace flowdg::poly
