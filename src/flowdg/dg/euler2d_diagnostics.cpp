// 2D Euler modal DG: projection of a flow, error norms, totals and the description of a
// non-admissible state (host, OpenMP, on the host copy of the coefficients).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"

namespace flowdg::euler2d {

namespace {
Point3 map_to_physical(const Point3* v, Point3 reference) {
  const double a = 0.5 * (1.0 + reference.x), b = 0.5 * (1.0 + reference.y);
  return v[0] + a * (v[1] - v[0]) + b * (v[2] - v[0]);
}
}  // namespace

// ---- projection, errors, totals (host, OpenMP) -----------------------------------------------

void Solver::project(const Flow& flow, double t) {
  const Data& d = *data_;
  const int Np = d.Np;
  const index_t K = d.K;
  const QuadratureRule rule = triangle_rule(2 * d.order + 2);
  std::vector<double> phi(rule.size() * Np);
  for (int k = 0; k < rule.size(); ++k) basis_values(Shape::triangle, d.order, rule.points[k], &phi[k * Np]);
  std::vector<double> coefficients(static_cast<std::size_t>(NV) * Np * K, 0.0);
  const Point3* vertices = d.vertices.data();
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < K; ++e) {
    for (int k = 0; k < rule.size(); ++k) {
      const Point3 x = map_to_physical(&vertices[3 * e], rule.points[k]);
      const State value = flow(x.x, x.y, t);
      for (int v = 0; v < NV; ++v)
        for (int j = 0; j < Np; ++j)
          coefficients[(static_cast<std::size_t>(v) * Np + j) * K + e] += rule.weights[k] * value[v] * phi[k * Np + j];
    }
  }
  data_->u.assign(pad_rows(coefficients, NV * Np, K, d.Ks));
  // A projected discontinuity over- and undershoots like any stage result does.
  if (options_.limiter != Limiter::none || options_.positivity) apply_limiter();
}

ErrorNorms Solver::errors(const Flow& exact, double t) const {
  const Data& d = *data_;
  const int Np = d.Np;
  const index_t K = d.K;
  const QuadratureRule rule = triangle_rule(std::min(2 * d.order + 6, 20));
  std::vector<double> phi(rule.size() * Np);
  for (int k = 0; k < rule.size(); ++k) basis_values(Shape::triangle, d.order, rule.points[k], &phi[k * Np]);
  const std::vector<double> c = coefficients();
  std::vector<std::array<double, 2 * NV>> per_element(K);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < K; ++e) {
    std::array<double, 2 * NV> acc{};
    for (int k = 0; k < rule.size(); ++k) {
      const Point3 x = map_to_physical(&d.vertices[3 * e], rule.points[k]);
      const State reference = exact(x.x, x.y, t);
      for (int v = 0; v < NV; ++v) {
        double value = 0;
        for (int j = 0; j < Np; ++j) value += c[(static_cast<std::size_t>(v) * Np + j) * K + e] * phi[k * Np + j];
        const double difference = value - reference[v];
        acc[v] += rule.weights[k] * d.det_jacobian[e] * difference * difference;
        acc[NV + v] = std::max(acc[NV + v], std::fabs(difference));
      }
    }
    per_element[e] = acc;
  }
  ErrorNorms norms;
  for (int v = 0; v < NV; ++v) {
    double sum = 0;
    for (index_t e = 0; e < K; ++e) {
      sum += per_element[e][v];
      norms.linf[v] = std::max(norms.linf[v], per_element[e][NV + v]);
    }
    norms.l2[v] = std::sqrt(sum);
  }
  return norms;
}

std::array<double, n_variables> Solver::totals() const {
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  // integral of phi_0 over the reference triangle is sqrt(2); Kahan sums keep the total to rounding.
  std::array<double, NV> totals{};
  for (int v = 0; v < NV; ++v) {
    double sum = 0, compensation = 0;
    for (index_t e = 0; e < d.K; ++e) {
      const double term = d.det_jacobian[e] * std::sqrt(2.0) * c[static_cast<std::size_t>(v) * d.Np * d.K + e] - compensation;
      const double next = sum + term;
      compensation = (next - sum) - term;
      sum = next;
    }
    totals[v] = sum;
  }
  return totals;
}

index_t Solver::first_bad_element() const {
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  std::vector<double> values(d.Np);
  // Element means first: they are what the time-step check sees.
  for (index_t e = 0; e < d.K; ++e) {
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = c[static_cast<std::size_t>(v) * d.Np * d.K + e] * 0.70710678118654752440;
    if (!is_admissible(mean, options_.gas)) return e;
  }
  const QuadratureRule rule = triangle_rule(2 * d.order);
  for (index_t e = 0; e < d.K; ++e)
    for (int k = 0; k < rule.size(); ++k) {
      basis_values(Shape::triangle, d.order, rule.points[k], values.data());
      State state;
      for (int v = 0; v < NV; ++v) {
        state[v] = 0;
        for (int j = 0; j < d.Np; ++j) state[v] += c[(static_cast<std::size_t>(v) * d.Np + j) * d.K + e] * values[j];
      }
      if (!is_admissible(state, options_.gas)) return e;
    }
  return -1;
}

std::string Solver::describe_bad_state() const {
  const index_t bad = first_bad_element();
  if (bad < 0) return "";
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  State mean;
  for (int v = 0; v < NV; ++v) mean[v] = c[static_cast<std::size_t>(v) * d.Np * d.K + bad] * 0.70710678118654752440;
  const Point3* v = &d.vertices[3 * bad];
  const char* names[] = {"density", "x-momentum", "y-momentum", "energy"};
  std::string what;
  for (int k = 0; k < NV; ++k)
    if (!std::isfinite(mean[k])) what += cat(what.empty() ? "" : ", ", names[k], " is ", mean[k]);
  if (what.empty()) {
    what = cat("mean density ", mean[0], ", mean pressure ", pressure(mean, options_.gas));
    if (is_admissible(mean, options_.gas)) what += " (the mean is admissible; a quadrature-point state is not)";
  }
  return cat("element ", bad, " near (", (v[0].x + v[1].x + v[2].x) / 3, ", ", (v[0].y + v[1].y + v[2].y) / 3, "): ", what);
}

}  // namespace flowdg::euler2d
