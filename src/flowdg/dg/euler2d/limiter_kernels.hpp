#pragma once
// 2D Euler solver, internal: the slope limiter and positivity kernel and its launcher. Device
// code: included only by *_kernels.cpp files (compiled by nvcc when CUDA is on).
#include <algorithm>
#include <type_traits>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d/common.hpp"

namespace flowdg::euler2d::impl {

/// Slope limiting and positivity of one element, after a stage (2015 paper, section 4.3.5).
/// Barth-Jespersen: per variable, alpha = the largest factor on the element's slope such that no
/// value at an edge quadrature point leaves [min, max] of the centroid values of the element and
/// its edge neighbours; the linear coefficients are multiplied by alpha. For p > 1 the element is
/// left untouched while its full polynomial stays, at the edge points, inside the bounds of the
/// means of every element sharing a vertex with it (the wider stencil keeps smooth data from being
/// flagged, so smooth regions keep high order); otherwise its higher modes are dropped and the
/// linear part is limited as for p = 1.
/// Zhang-Shu positivity then scales the element's deviation from its mean so that density and
/// pressure are at least epsilon at every volume and edge quadrature point.
/// Only an element's own non-constant coefficients change, so the means it reads are never
/// written during the kernel: all loads go through the read-only path, a thread loads its
/// element's coefficients once into registers (all loads in flight together), works there, and
/// writes back only the variables that changed (most elements of a shock problem: none).
template <int P, bool Slopes, bool Characteristic, bool Positivity>
struct LimiterKernel {
  View<double> u;
  View<const index_t> element_neighbours;  ///< [l * K + e]: the element across face l (e itself on a boundary)
  View<const index_t> vertex_neighbour_offsets, vertex_neighbours;  ///< CSR, elements sharing a vertex
  PointTables<P> tables;
  index_t K;
  Gas gas;
  // Slopes: Barth-Jespersen; Characteristic: limit characteristic instead of conserved variables;
  // Positivity: Zhang-Shu scaling afterwards.

  static constexpr int Np = basis_count(P);
  static constexpr double phi0 = 0.70710678118654752440;  // phi_0 on the reference triangle

  /// One element's coefficients and which variables have changed.
  struct Element {
    double c[NV][Np];
    bool changed[NV];
  };

  /// The mean of variable v on element n.
  FLOWDG_HD double mean_of(int v, index_t n) const { return load_unchanging(&u.data[static_cast<index_t>(v) * Np * K + n]) * phi0; }

  /// The largest alpha <= 1 keeping mean + alpha (s1 phi_1 + s2 phi_2) inside [low, high] at every
  /// edge point; 1 where no edge deviation exceeds `noise` (rounding noise of a uniform state, which
  /// would otherwise be scaled by an arbitrary factor, and the element rewritten, everywhere).
  FLOWDG_HD double barth_jespersen_factor(double mean, double low, double high, double s1, double s2, double noise = 0.0) const {
    // min over the points of bound / deviation: the bound is the same for every positive (every
    // negative) deviation and a correctly rounded quotient is monotone in its divisor, so the
    // smallest quotient is the one by the largest positive (most negative) deviation: two
    // divisions instead of one per point, the same value.
    double largest = 0.0, most_negative = 0.0;
FLOWDG_UNROLL
    for (int point = 0; point < PointTables<P>::n_edge_points; ++point) {
      const double deviation = s1 * tables.phi[point * Np + 1] + s2 * tables.phi[point * Np + 2];
      largest = deviation > largest ? deviation : largest;
      most_negative = deviation < most_negative ? deviation : most_negative;
    }
    if (largest <= noise && most_negative >= -noise) return 1.0;
    double alpha = 1.0;
    if (largest > 0 && (high - mean) / largest < alpha) alpha = (high - mean) / largest;
    if (most_negative < 0 && (low - mean) / most_negative < alpha) alpha = (low - mean) / most_negative;
    return alpha < 0 ? 0 : alpha;
  }

  /// For p > 1: whether variable v's polynomial leaves, at an edge point, the range of the means of
  /// the element and every element sharing a vertex with it.
  FLOWDG_HD bool troubled(const Element& x, int v, index_t e) const {
    const double mean = x.c[v][0] * phi0;
    double low = mean, high = mean;
    for (index_t k = vertex_neighbour_offsets[e]; k < vertex_neighbour_offsets[e + 1]; ++k) {
      const double other = mean_of(v, vertex_neighbours[k]);
      low = other < low ? other : low;
      high = other > high ? other : high;
    }
    bool outside = false;
FLOWDG_UNROLL
    for (int point = 0; point < PointTables<P>::n_edge_points; ++point) {
      double value = 0;
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) value += x.c[v][j] * tables.phi[point * Np + j];
      outside = outside || value < low || value > high;
    }
    return outside;
  }

  /// The element's face neighbours (no kernel writes them): loaded before a chained launch waits
  /// for the element kernel (for_each_prefetching).
  struct Prefetched {
    index_t neighbours[3] = {};
  };
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t e) const {
    Prefetched r;
    for (int l = 0; l < 3; ++l) r.neighbours[l] = element_neighbours[l * K + e];
    return r;
  }

  FLOWDG_HD void limit(Element& x, index_t e, const index_t (&neighbours)[3]) const {
    bool limit_variable[NV] = {true, true, true, true};
    if constexpr (P > 1) {
      bool any = false;
      for (int v = 0; v < NV; ++v) any = (limit_variable[v] = troubled(x, v, e)) || any;
      if (!any) return;
      if constexpr (Characteristic)  // the characteristic fields mix all variables: reduce them all
        for (int v = 0; v < NV; ++v) limit_variable[v] = true;
      for (int v = 0; v < NV; ++v)
        if (limit_variable[v]) {
          for (int j = 3; j < Np; ++j) x.c[v][j] = 0.0;
          x.changed[v] = true;
        }
    }
    // The neighbours' means, all loads issued before any is used.
    double others[3][NV];
FLOWDG_UNROLL
    for (int l = 0; l < 3; ++l)
FLOWDG_UNROLL
      for (int v = 0; v < NV; ++v) others[l][v] = mean_of(v, neighbours[l]);
    if constexpr (!Characteristic) {
      // Deviations below 1e-13 of the element's state size are rounding noise (Barth-Jespersen is
      // undefined for a zero deviation; codes take alpha = 1 there).
      double size = 0;
      for (int v = 0; v < NV; ++v) size += fabs(x.c[v][0]);
      const double noise = 1e-13 * phi0 * size;
      for (int v = 0; v < NV; ++v) {
        if (!limit_variable[v]) continue;
        const double mean = x.c[v][0] * phi0;
        double low = mean, high = mean;
        for (int l = 0; l < 3; ++l) {
          const double other = others[l][v];
          low = other < low ? other : low;
          high = other > high ? other : high;
        }
        const double alpha = barth_jespersen_factor(mean, low, high, x.c[v][1], x.c[v][2], noise);
        if (alpha < 1.0) {
          for (int j = 1; j < 3; ++j) x.c[v][j] *= alpha;
          x.changed[v] = true;
        }
      }
    } else {
      // Characteristic variables of the flux Jacobian at the element mean, along the mean velocity.
      State mean;
      for (int v = 0; v < NV; ++v) mean[v] = x.c[v][0] * phi0;
      if (!is_admissible(mean, gas)) return;
      double nx = mean[1], ny = mean[2];
      const double length = sqrt(nx * nx + ny * ny);
      if (length > 1e-12 * mean[0]) {
        nx /= length;
        ny /= length;
      } else {
        nx = 1.0;
        ny = 0.0;
      }
      double right[4][4], left[4][4];
      characteristic_matrices(mean, nx, ny, gas, right, left);
      double alpha[4], slopes[4][2];
      bool limited = false;
      for (int k = 0; k < NV; ++k) {
        double w_mean = 0, low = 0, high = 0;
        for (int v = 0; v < NV; ++v) w_mean += left[k][v] * mean[v];
        low = high = w_mean;
        for (int l = 0; l < 3; ++l) {
          double other = 0;
          for (int v = 0; v < NV; ++v) other += left[k][v] * others[l][v];
          low = other < low ? other : low;
          high = other > high ? other : high;
        }
        for (int j = 0; j < 2; ++j) {
          slopes[k][j] = 0;
          for (int v = 0; v < NV; ++v) slopes[k][j] += left[k][v] * x.c[v][j + 1];
        }
        alpha[k] = barth_jespersen_factor(w_mean, low, high, slopes[k][0], slopes[k][1]);
        limited = limited || alpha[k] < 1.0;
      }
      if (!limited) return;  // leave the coefficients exactly as they are
      for (int v = 0; v < NV; ++v) {
        for (int j = 0; j < 2; ++j) {
          double value = 0;
          for (int k = 0; k < NV; ++k) value += right[v][k] * alpha[k] * slopes[k][j];
          x.c[v][j + 1] = value;
        }
        x.changed[v] = true;
      }
    }
  }

  /// State at point `point` of the 3 (p + 1) edge points followed by the volume points.
  FLOWDG_HD FLOWDG_FORCEINLINE State point_state(const Element& x, int point) const {
    const double* phi = &tables.phi[point * Np];
    State state;
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v) {
      double value = 0;
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) value += x.c[v][j] * phi[j];
      state[v] = value;
    }
    return state;
  }

  /// pressure(U) >= epsilon && U[0] >= epsilon for epsilon > 0, without pressure()'s division where
  /// the answer is clear: (gamma - 1)(E rho - |m|^2 / 2) >= epsilon rho with a margin of 1e-12 of the
  /// terms' size (far above the rounding of either form); otherwise pressure() itself decides.
  FLOWDG_HD bool at_least(const State& U, double epsilon) const {
    if (!(U[0] >= epsilon)) return false;
    const double g = gas.gamma - 1.0, kinetic = 0.5 * (U[1] * U[1] + U[2] * U[2]);
    const double scaled = g * (U[3] * U[0] - kinetic), margin = 1e-12 * g * (fabs(U[3]) * U[0] + kinetic);
    if (scaled - margin >= epsilon * U[0] * (1.0 + 1e-12)) return true;
    return pressure(U, gas) >= epsilon;
  }

  FLOWDG_HD void enforce_positivity(Element& x) const {
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = x.c[v][0] * phi0;
    if (!is_admissible(mean, gas)) return;  // nothing to scale towards; the time-step check reports it
    const double epsilon = fmin(1e-13, fmin(mean[0], pressure(mean, gas)));
    constexpr int n_points = PointTables<P>::n_points;
    // Density: one factor for the density's own deviation.
    double lowest = mean[0];
FLOWDG_UNROLL
    for (int point = 0; point < n_points; ++point) {
      const double rho = point_state(x, point)[0];
      lowest = rho < lowest ? rho : lowest;
    }
    if (lowest < epsilon) {
      const double theta = (mean[0] - epsilon) / (mean[0] - lowest);
      for (int j = 1; j < Np; ++j) x.c[0][j] *= theta;
      x.changed[0] = true;
    }
    // Pressure: p is concave in U, so p(mean + t (U - mean)) >= epsilon on [0, t*] with t* found by
    // bisection per point; all variables' deviations are scaled by the smallest t*.
    double theta = 1.0;
FLOWDG_UNROLL
    for (int point = 0; point < n_points; ++point) {
      const State state = point_state(x, point);
      if (at_least(state, epsilon)) continue;
      double good = 0.0, bad = 1.0;
      for (int iteration = 0; iteration < 50; ++iteration) {
        const double middle = 0.5 * (good + bad);
        const State trial = mean + middle * (state - mean);
        if (trial[0] >= epsilon && pressure(trial, gas) >= epsilon) {
          good = middle;
        } else {
          bad = middle;
        }
      }
      theta = good < theta ? good : theta;
    }
    if (theta < 1.0)
      for (int v = 0; v < NV; ++v) {
        for (int j = 1; j < Np; ++j) x.c[v][j] *= theta;
        x.changed[v] = true;
      }
  }

  FLOWDG_HD void operator()(index_t e) const { (*this)(e, prefetch(e)); }
  FLOWDG_HD void operator()(index_t e, const Prefetched& pre) const {
    Element x;
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v) {
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) x.c[v][j] = load_unchanging(&u.data[(static_cast<index_t>(v) * Np + j) * K + e]);
      x.changed[v] = false;
    }
    if constexpr (Slopes) limit(x, e, pre.neighbours);
    if constexpr (Positivity) enforce_positivity(x);
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v)
      if (x.changed[v])
FLOWDG_UNROLL
        for (int j = 1; j < Np; ++j) u[(static_cast<index_t>(v) * Np + j) * K + e] = x.c[v][j];
  }
};

/// What the limiter launch reads: the coefficients, the face and vertex neighbours, the point tables.
struct LimiterData {
  Backend backend{};
  View<double> u;
  index_t K = 0, Ks = 0;
  int Nq = 0;
  View<const index_t> element_neighbours, vertex_neighbour_offsets, vertex_neighbours;
  const std::vector<double>* point_phi = nullptr;
  bool chained = false;
};

template <int P>
void launch_limiter(const LimiterData& d, const SolverOptions& options) {
  if constexpr (P >= 1) {  // a constant per element has nothing to limit
    // One instantiation per combination of options, so each keeps only the registers it needs;
    // 4 blocks of 256 threads per SM (<= 64 registers): at 82 registers (2 blocks, 25% occupancy)
    // ncu showed the p = 1 limiter latency-bound at 20% of DRAM bandwidth.
    PointTables<P> tables;
    if (d.Nq != PointTables<P>::Nq)
      throw Error(cat("limiter at p = ", P, ": the volume rule has ", d.Nq, " points, the kernel was compiled for ",
                      PointTables<P>::Nq));
    std::copy(d.point_phi->begin(), d.point_phi->end(), tables.phi);
    auto launch = [&](auto slopes, auto characteristic, auto positivity) {
      for_each_prefetching<FLOWDG_LIMITER_MIN_BLOCKS>(
          d.backend, d.K,
          LimiterKernel<P, decltype(slopes)::value, decltype(characteristic)::value, decltype(positivity)::value>{
              d.u, d.element_neighbours, d.vertex_neighbour_offsets, d.vertex_neighbours, tables, d.Ks, options.gas},
          d.chained);
    };
    using yes = std::true_type;
    using no = std::false_type;
    const bool slopes = options.limiter == Limiter::barth_jespersen;
    if (slopes && options.characteristic_limiting) {
      options.positivity ? launch(yes{}, yes{}, yes{}) : launch(yes{}, yes{}, no{});
    } else if (slopes) {
      options.positivity ? launch(yes{}, no{}, yes{}) : launch(yes{}, no{}, no{});
    } else if (options.positivity) {
      launch(no{}, no{}, yes{});
    }
  }
}

template <int P>
void launch_limiter(Solver::Data& d, const SolverOptions& options) {
  launch_limiter<P>(LimiterData{d.backend, d.u.view(), d.K, d.Ks, d.Nq, d.element_neighbours.view(), d.vertex_neighbour_offsets.view(),
                                d.vertex_neighbours.view(), &d.basis.point_phi, d.chained},
                    options);
}

}  // namespace flowdg::euler2d::impl
