// Checking a method's output against an expected .npy file (e.g. ExecuTorch's own output for the same
// program and inputs) bit for bit: dtype, shape and every byte. No heap, so firmware checks with it too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace pte {

struct OutputComparison {
  bool same;
  // Where they differ, when they do: "element 17 is 0x3f800000, expected 0x3f800001".
  char difference[160];
};

// kInvalidArgument when `expected_npy` is not a .npy file; otherwise whether `output` holds the same
// array. Elements are compared as raw bits, so -0.0 and NaN payloads count.
Result<OutputComparison> compare_with_npy(const Tensor& output, Span<const uint8_t> expected_npy);

}  // namespace pte
