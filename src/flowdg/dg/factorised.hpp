#pragma once
// The sum-factorised kernels' sizes (factorised_kernels.hpp, CUDA): shared values per element and the
// block, for the operator's set-up (host code of every build).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/dg/lifting.hpp"

namespace flowdg::dg {

/// Values one element holds in the factorised kernels' shared memory.
template <class Physics>
constexpr index_t factorised_lifting_values(int n) {
  constexpr index_t NV = Physics::n_variables, T = Physics::dim * Physics::n_variables;
  const index_t Np = static_cast<index_t>(n) * n, faces = 4 * static_cast<index_t>(n) * T;
  // coefficients / U, point factors, line temporaries / face integrand, gradient / z / flux, the
  // bilinear Jacobian (six numbers)
  return NV * Np + Np + (2 * NV * Np > faces ? 2 * NV * Np : faces) + T * Np + 6;
}
template <class Physics>
constexpr index_t factorised_element_values(int n) {
  constexpr index_t NV = Physics::n_variables, dim = Physics::dim;
  const index_t Np = static_cast<index_t>(n) * n;
  const index_t viscous = Physics::has_viscous_flux ? NV * Np : 0;
  // coefficients / U / result, viscous moments, line temporaries or reference fluxes, face fluxes, 1 / det J,
  // the bilinear Jacobian (2D: the reference fluxes, dim NV Np values, share the line temporaries' 2 NV Np)
  return NV * Np + viscous + (dim > 2 ? dim : 2) * NV * Np + 4 * static_cast<index_t>(n) * NV + Np + 6;
}
/// The factorised face kernel: shared bytes per face (both sides' element and local face, their
/// coefficients and their traces at the face's n points), and faces per block: 256 / n rounded down
/// to a warp (at least 32): the trace phase has a thread per (face, side, variable), the numerical
/// flux one per (face, point), so that at p = 1 a block of 32 faces left three quarters of its
/// threads idle in the flux; threadIdx.x the face, so a warp reads whole shared rows of 32.
/// FLOWDG_FACTORISED_FACES=Fb replaces it (for measurements; a malformed value is an InputError).
constexpr std::size_t face_factorised_index_bytes = 2 * (sizeof(index_t) + sizeof(int));
template <class Physics>
constexpr std::size_t factorised_face_bytes(int n) {
  return face_factorised_index_bytes + sizeof(typename Physics::real) * 2 * Physics::n_variables * (static_cast<std::size_t>(n) * n + n);
}
template <class Physics>
inline int factorised_faces(int n) {
  int faces = std::max(32, 256 / n / 32 * 32);
  if (const char* text = std::getenv("FLOWDG_FACTORISED_FACES"); text != nullptr && *text != 0) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != 0 || value < 1 || value > 256)
      throw InputError(cat("FLOWDG_FACTORISED_FACES='", text, "': expected the faces per block, 1 to 256"));
    faces = static_cast<int>(value);
  }
  const std::size_t fit = block_shared_limit / factorised_face_bytes<Physics>(n);
  return static_cast<int>(static_cast<std::size_t>(faces) < fit ? faces : fit);
}
/// A factorised kernel's block: E elements, `threads` threads (a multiple of 32, at most 256; the
/// kernels run (E, threads / E) of them: factorised_threads).
struct FactorisedBlock {
  int E = 0, threads = 0;
};
/// The block for n points per direction: E = 32 elements up to n = 3 and 16 from n = 4, within the
/// block budget, and min(256, E n^2 rounded up to a warp) threads. E a multiple of 16: the warps'
/// threads run over the elements first, so that a warp reads two whole rows of 16 (or one of 32) of
/// the shared rows [row E + el] in every phase, free of bank conflicts, and the global rows
/// [row Ks + e] in whole sectors. Measured on 640,000 quadrilaterals (Navier-Stokes, H200,
/// FLOWDG_FACTORISED_BLOCK): session 31, at p = 4 16 elements 14.2e9 DOF-stage updates/s against
/// 13.5e9 for 10 (a thread per point: a third of the shared wavefronts were bank conflicts, ncu),
/// at p = 2 32 elements 13.4e9 against 12.7e9 for 28; session 30, at p = 1 32 elements (128 threads)
/// 4.8% faster than 64 (256).
template <class Physics>
inline FactorisedBlock factorised_block(index_t values_per_element, int n) {
  const std::size_t per_element = sizeof(typename Physics::real) * static_cast<std::size_t>(values_per_element);
  int E = n <= 3 ? 32 : 16;
  E = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(E), block_shared_limit / per_element));
  if (E < 1) return {};
  return {E, std::min(256, (E * n * n + 31) / 32 * 32)};
}
/// The sum-factorised face kernel's automatic choice on collocated quadrilaterals (the element and
/// lifting ones are automatic at every order): from p = 2 (640,000 quadrilaterals, Navier-Stokes,
/// H200, whole runs: session 30 at p = 4 +6% over the block face kernel, at p = 3 +1%; session 31
/// with blocks of 256 / (p + 1) faces at p = 2 14.07, 14.09e9 DOF-stage updates/s against the point
/// kernel's 13.92, 13.88, at p = 1 12.66, 12.64 against 13.15, 13.18).
constexpr bool automatic_factorised_faces(int order) { return order >= 2; }
/// Whether the factorised kernels go as programmatic dependent launches (with
/// OperatorOptions::chained_launches): at p = 1 and 2, where they were 0.7% and 0.2% faster than
/// plain launches; at p = 3 and 4 0.6% and 2.2% slower (640,000 quadrilaterals, Navier-Stokes, H200,
/// session 31, two rounds each).
constexpr bool automatic_chained_factorised(int order) { return order <= 2; }
/// FLOWDG_FACTORISED_BLOCK="E_element,threads_element,E_lifting,threads_lifting" replaces the blocks
/// of both kernels (for measurements: a sweep in one GPU call); a malformed value is an InputError.
inline bool factorised_block_override(FactorisedBlock& element, FactorisedBlock& lifting) {
  const char* text = std::getenv("FLOWDG_FACTORISED_BLOCK");
  if (text == nullptr || *text == 0) return false;
  int values[4] = {};
  if (std::sscanf(text, "%d,%d,%d,%d", &values[0], &values[1], &values[2], &values[3]) != 4 || values[0] < 1 || values[2] < 1 ||
      values[1] < 32 || values[1] > 256 || values[1] % 32 != 0 || values[3] < 32 || values[3] > 256 || values[3] % 32 != 0 ||
      values[0] > values[1] || values[2] > values[3])
    throw InputError(cat("FLOWDG_FACTORISED_BLOCK='", text,
                         "': expected E_element,threads_element,E_lifting,threads_lifting (threads a multiple of 32 up to 256, E at most threads)"));
  element = {values[0], values[1]};
  lifting = {values[2], values[3]};
  return true;
}

/// Faces a block of the factorised BR2 face kernel: a thread per (face, side, point) fills 256
/// threads (br2_block_faces: 128 / n, a boundary 256 / n).
/// Its shared memory a block: both sides' coefficients (NV Np; the jump and the flux, NV n each, in
/// their place once read), traces (NV n), face gradients and diagonal (dim NV + 1 a point), the
/// bilinear Jacobians (6 a side), the 1D tables L and dL (2 n^2): 69 KB at p = 4, three blocks an SM.
template <class Physics>
constexpr std::size_t br2_factorised_face_shared_bytes(int n, bool boundary, int threads = 256) {
  const std::size_t sides = boundary ? 1 : 2, NV = Physics::n_variables, dim = Physics::dim, Fb = br2_block_faces(n, boundary, threads);
  const std::size_t N = static_cast<std::size_t>(n);
  const std::size_t per_face = sides * (NV * N * N + NV * N + (dim * NV + 1) * N + 6);
  return sizeof(typename Physics::real) * (Fb * per_face + 2 * N * N);
}
/// The fused element kernel's values an element: coefficients / U / the sums (NV Np), the line
/// temporaries / reference derivatives / fluxes (2 NV Np), the faces' jumps and fluxes (NV n each a
/// face point), each face's unit normal and side, 1 / det J (Np), the bilinear Jacobian (6).
template <class Physics>
constexpr index_t br2_factorised_element_values(int n) {
  constexpr index_t NV = Physics::n_variables, dim = Physics::dim;
  const index_t Np = static_cast<index_t>(n) * n;
  return 3 * NV * Np + 2 * 4 * static_cast<index_t>(n) * NV + 4 * (dim + 1) + Np + 6;
}

/// The fused BR2 element kernel's block: factorised_block's for its values an element (its launch
/// bound: 256 threads, three blocks an SM, so 80 registers whatever the block; smaller blocks measured
/// slower, session 38); FLOWDG_FACTORISED_BLOCK's element part replaces it (A/B runs; one that does
/// not fit the block's shared memory is an InputError).
template <class Physics>
inline FactorisedBlock br2_factorised_block(int n) {
  const std::size_t per_element = sizeof(typename Physics::real) * static_cast<std::size_t>(br2_factorised_element_values<Physics>(n));
  FactorisedBlock element, lifting;
  if (factorised_block_override(element, lifting)) {
    if (static_cast<std::size_t>(element.E) * per_element > block_shared_limit)
      throw InputError(cat("FLOWDG_FACTORISED_BLOCK: ", element.E, " elements of the fused BR2 element kernel need ",
                           static_cast<std::size_t>(element.E) * per_element, " bytes of shared memory, more than a block's ", block_shared_limit));
    return element;
  }
  return factorised_block<Physics>(br2_factorised_element_values<Physics>(n), n);
}

/// Where "automatic" takes BR2 at the faces on collocated bilinear quadrilaterals (br2_factorised_kernels.hpp)
/// instead of the sum-factorised lifting pass: at every order (session 37; FLOWDG_BR2_FACES=0 gives
/// the lifting pass for A/B runs).
constexpr bool automatic_br2_factorised(int order) { return order >= 1; }

}  // namespace flowdg::dg
