#pragma once
#include <gtest/gtest.h>

#include "flowdg/backend/backend.hpp"

/// Skips the current test, visibly, when there is no CUDA backend or no device.
#define FLOWDG_REQUIRE_CUDA_DEVICE()                                                        \
  do {                                                                                      \
    if (!::flowdg::cuda_compiled()) GTEST_SKIP() << "built without CUDA (FLOWDG_CUDA=OFF)"; \
    if (::flowdg::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device present";       \
  } while (0)
