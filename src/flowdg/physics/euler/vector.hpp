#pragma once
// A small fixed-size array with value semantics for point-wise physics in kernels: conserved
// states (Dim + 2 entries), normals and positions (Dim entries). Registers, no heap; arithmetic in
// Real only, so a float instantiation does no double arithmetic.
#include "flowdg/core/hd.hpp"

namespace flowdg::physics {

template <class Real, int N>
struct Vector {
  static constexpr int size = N;
  Real v[N];
  FLOWDG_HD Real& operator[](int i) { return v[i]; }
  FLOWDG_HD Real operator[](int i) const { return v[i]; }
};

template <class Real, int N>
FLOWDG_HD inline Vector<Real, N> operator+(const Vector<Real, N>& a, const Vector<Real, N>& b) {
  Vector<Real, N> sum;
  for (int i = 0; i < N; ++i) sum[i] = a[i] + b[i];
  return sum;
}

template <class Real, int N>
FLOWDG_HD inline Vector<Real, N> operator-(const Vector<Real, N>& a, const Vector<Real, N>& b) {
  Vector<Real, N> difference;
  for (int i = 0; i < N; ++i) difference[i] = a[i] - b[i];
  return difference;
}

template <class Real, int N>
FLOWDG_HD inline Vector<Real, N> operator-(const Vector<Real, N>& a) {
  Vector<Real, N> negated;
  for (int i = 0; i < N; ++i) negated[i] = -a[i];
  return negated;
}

template <class Real, int N>
FLOWDG_HD inline Vector<Real, N> operator*(Real s, const Vector<Real, N>& a) {
  Vector<Real, N> scaled;
  for (int i = 0; i < N; ++i) scaled[i] = s * a[i];
  return scaled;
}

template <class Real, int N>
FLOWDG_HD inline Vector<Real, N> operator*(const Vector<Real, N>& a, Real s) {
  return s * a;
}

/// a . b, summed in index order (a[0] b[0] + a[1] b[1] + ...), the order the 2D code writes.
template <class Real, int N>
FLOWDG_HD inline Real dot(const Vector<Real, N>& a, const Vector<Real, N>& b) {
  Real sum = a[0] * b[0];
  for (int i = 1; i < N; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace flowdg::physics
