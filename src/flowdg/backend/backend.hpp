#pragma once
// Run-time choice of where kernels execute. The CPU backend (OpenMP) is always built; the CUDA
// backend exists when the library was compiled with nvcc (FLOWDG_HAVE_CUDA) and a device is present.
#include <string>

namespace flowdg {

enum class Backend { cpu, cuda };

/// True when this build contains the CUDA backend.
bool cuda_compiled() noexcept;
/// Number of usable CUDA devices (0 when not compiled with CUDA or no driver/device).
int cuda_device_count() noexcept;
/// cuda when a device is present, else cpu.
/// 10 x major + minor of the current CUDA device (90 for an H100); 0 without one.
int device_compute_capability() noexcept;
/// Threads the current CUDA device holds resident at once (multiprocessors x threads each: 270,336 on
/// an H100 SXM); 0 without one.
long long device_resident_threads() noexcept;
/// Makes device index % cuda_device_count() the current one (a distributed run: one GPU per rank by
/// its node-local rank); nothing without CUDA or a device. Call it before any other CUDA work.
void select_cuda_device(int index);
Backend default_backend() noexcept;
/// Parses "cpu", "cuda" or "auto"; throws InputError otherwise, or if cuda is asked for but absent.
Backend parse_backend(const std::string& name);
std::string to_string(Backend backend);
/// One line naming the hardware: "cuda: NVIDIA H100 80GB HBM3 (132 SMs, 79.2 GiB)" or "cpu: 2 OpenMP threads".
std::string describe(Backend backend);
/// Number of OpenMP threads the CPU backend uses.
int cpu_threads() noexcept;

}  // namespace flowdg
