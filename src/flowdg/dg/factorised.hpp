#pragma once
// The sum-factorised kernels' sizes (factorised_kernels.hpp, CUDA): shared values per element and the
// block, for the operator's set-up (host code of every build).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_kernels.hpp"

namespace flowdg::dg {

/// Values one element holds in the factorised kernels' shared memory.
template <class Physics>
constexpr index_t factorised_lifting_values(int n) {
  constexpr index_t NV = Physics::n_variables, T = Physics::dim * Physics::n_variables;
  const index_t Np = static_cast<index_t>(n) * n, faces = 4 * static_cast<index_t>(n) * T;
  // coefficients / U, point factors, line temporaries / face integrand, gradient / z / flux, the
  // weighted metric (read once, B3, for D)
  return NV * Np + Np + (2 * NV * Np > faces ? 2 * NV * Np : faces) + T * Np + Physics::dim * Physics::dim * Np;
}
template <class Physics>
constexpr index_t factorised_element_values(int n) {
  constexpr index_t NV = Physics::n_variables, dim = Physics::dim;
  const index_t Np = static_cast<index_t>(n) * n;
  const index_t viscous = Physics::has_viscous_flux ? NV * Np : 0;
  // coefficients / U / result, viscous moments, line temporaries or reference fluxes, face fluxes, 1 / det J
  // (2D: the reference fluxes, dim NV Np values, share the line temporaries' 2 NV Np)
  return NV * Np + viscous + (dim > 2 ? dim : 2) * NV * Np + 4 * static_cast<index_t>(n) * NV + Np;
}
/// The factorised face kernel: shared bytes per face (both sides' element and local face, their
/// coefficients and their traces at the face's n points), and faces per block (a thread per face,
/// side and variable in the trace phase: 256 / (2 NV); 32 for Navier-Stokes in 2D).
constexpr std::size_t face_factorised_index_bytes = 2 * (sizeof(index_t) + sizeof(int));
template <class Physics>
constexpr std::size_t factorised_face_bytes(int n) {
  return face_factorised_index_bytes + sizeof(typename Physics::real) * 2 * Physics::n_variables * (static_cast<std::size_t>(n) * n + n);
}
template <class Physics>
constexpr int factorised_faces(int n) {
  const int faces = 256 / (2 * Physics::n_variables);
  const std::size_t fit = block_shared_limit / factorised_face_bytes<Physics>(n);
  return static_cast<int>(static_cast<std::size_t>(faces) < fit ? faces : fit);
}
/// A factorised kernel's block: E elements, `threads` threads (a multiple of 32, at most 256).
struct FactorisedBlock {
  int E = 0, threads = 0;
};
/// The block for n points per direction: as many elements as give about a thread per point
/// (E n^2 <= 256 threads, at most 32 elements), within the block budget. Both kernels have a line or
/// a point per thread in every phase, and at most 78 registers (P <= 4), so that three or four
/// blocks share an SM. Measured on 640,000 quadrilaterals (Navier-Stokes, H200, session 30,
/// FLOWDG_FACTORISED_BLOCK): at p = 2, 3, 4 this block was 9-45% faster than halves or quarters of
/// it; at p = 1 32 elements (128 threads) 4.8% faster than 64 (256).
template <class Physics>
inline FactorisedBlock factorised_block(index_t values_per_element, int n) {
  const std::size_t per_element = sizeof(typename Physics::real) * static_cast<std::size_t>(values_per_element);
  int E = std::min(32, std::max(1, 256 / (n * n)));
  E = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(E), block_shared_limit / per_element));
  if (E < 1) return {};
  return {E, std::min(256, (E * n * n + 31) / 32 * 32)};
}
/// FLOWDG_FACTORISED_BLOCK="E_element,threads_element,E_lifting,threads_lifting" replaces the blocks
/// of both kernels (for measurements: a sweep in one GPU call); a malformed value is an InputError.
inline bool factorised_block_override(FactorisedBlock& element, FactorisedBlock& lifting) {
  const char* text = std::getenv("FLOWDG_FACTORISED_BLOCK");
  if (text == nullptr || *text == 0) return false;
  int values[4] = {};
  if (std::sscanf(text, "%d,%d,%d,%d", &values[0], &values[1], &values[2], &values[3]) != 4 || values[0] < 1 || values[2] < 1 ||
      values[1] < 32 || values[1] > 256 || values[1] % 32 != 0 || values[3] < 32 || values[3] > 256 || values[3] % 32 != 0)
    throw InputError(cat("FLOWDG_FACTORISED_BLOCK='", text,
                         "': expected E_element,threads_element,E_lifting,threads_lifting (threads a multiple of 32 up to 256)"));
  element = {values[0], values[1]};
  lifting = {values[2], values[3]};
  return true;
}

}  // namespace flowdg::dg
