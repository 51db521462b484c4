#pragma once
// Seeded random admissible states, unit normals and rotations for the dimension-generic Euler
// physics (physics/euler/), and the flux-scaled differences its tests measure with.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics::test_support {

/// A uniformly distributed unit vector in Dim dimensions (normalised Gaussian sample).
template <int Dim, class Real = double>
Vector<Real, Dim> random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  double values[Dim];
  double length = 0.0;
  do {
    length = 0.0;
    for (int d = 0; d < Dim; ++d) {
      values[d] = gaussian(rng);
      length += values[d] * values[d];
    }
  } while (length < 1e-6);
  length = std::sqrt(length);
  Vector<Real, Dim> unit;
  for (int d = 0; d < Dim; ++d) unit[d] = static_cast<Real>(values[d] / length);
  return unit;
}

/// Density and pressure over two decades, Mach 0 to 3 in any direction (as the 2D helper).
template <int Dim>
typename Euler<Dim>::State random_state(std::mt19937_64& rng, const Euler<Dim>& physics) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double rho = std::pow(10.0, 2.0 * unit(rng) - 1.0);
  const double p = std::pow(10.0, 2.0 * unit(rng) - 1.0);
  const double speed = 3.0 * unit(rng) * std::sqrt(physics.gamma * p / rho);
  const Vector<double, Dim> direction = random_unit<Dim>(rng);
  typename Euler<Dim>::State primitive;
  primitive[0] = rho;
  for (int d = 0; d < Dim; ++d) primitive[1 + d] = speed * direction[d];
  primitive[Dim + 1] = p;
  return physics.to_conservative(primitive);
}

/// A random 3D rotation matrix (from a uniformly distributed unit quaternion).
struct Rotation {
  double matrix[3][3];

  static Rotation random(std::mt19937_64& rng) {
    const Vector<double, 4> q = random_unit<4>(rng);
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    return {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
             {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
             {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
  }

  Vector<double, 3> operator()(const Vector<double, 3>& a) const {
    Vector<double, 3> rotated;
    for (int i = 0; i < 3; ++i) rotated[i] = matrix[i][0] * a[0] + matrix[i][1] * a[1] + matrix[i][2] * a[2];
    return rotated;
  }

  /// A 3D state with its momentum rotated (density and energy are scalars).
  Vector<double, 5> operator()(const Vector<double, 5>& u) const {
    const Vector<double, 3> momentum = (*this)(Vector<double, 3>{{u[1], u[2], u[3]}});
    return {{u[0], momentum[0], momentum[1], momentum[2], u[4]}};
  }
};

/// Per component, a bound on |f(u).n| and on the dissipation s |u| of a flux between u_m and u_p,
/// with s the larger of their |v| + c: rho s for mass, rho s^2 for momentum, (E + p) s for energy,
/// each with the larger side's rho and E + p. Flux tolerances are relative to it, since a single
/// component may vanish.
template <class Physics>
typename Physics::State flux_scale(const Physics& physics, const typename Physics::State& um,
                                   const typename Physics::State& up) {
  constexpr int energy = Physics::energy;
  const double speed = std::max<double>(physics.max_wave_speed(um), physics.max_wave_speed(up));
  const double rho = std::max<double>(um[0], up[0]);
  const double enthalpy = std::max<double>(um[energy] + physics.pressure(um), up[energy] + physics.pressure(up));
  typename Physics::State scale;
  scale[0] = static_cast<typename Physics::real>(rho * speed);
  for (int d = 0; d < Physics::dim; ++d) scale[1 + d] = static_cast<typename Physics::real>(rho * speed * speed);
  scale[energy] = static_cast<typename Physics::real>(enthalpy * speed);
  return scale;
}

/// max_i |a_i - b_i| / scale_i, in double whatever the precision of the arguments.
template <class RealA, class RealB, class RealS, int N>
double scaled_difference(const Vector<RealA, N>& a, const Vector<RealB, N>& b, const Vector<RealS, N>& scale) {
  double largest = 0.0;
  for (int i = 0; i < N; ++i) {
    const double difference =
        std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) / static_cast<double>(scale[i]);
    if (!(difference <= largest)) largest = difference;  // NaN is the largest
  }
  return largest;
}

/// max_i |a_i - b_i| / max_i |b_i|: for ghost states and flow values.
template <class RealA, class RealB, int N>
double relative_difference(const Vector<RealA, N>& a, const Vector<RealB, N>& b) {
  double largest = 0.0, size = 0.0;
  for (int i = 0; i < N; ++i) {
    const double difference = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (!(difference <= largest)) largest = difference;
    size = std::max(size, std::abs(static_cast<double>(b[i])));
  }
  return largest / size;
}

}  // namespace flowdg::physics::test_support
