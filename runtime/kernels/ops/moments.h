// The sums the normalization kernels (native_layer_norm, native_group_norm) start from, in ExecuTorch's
// float arithmetic: the sum and the sum of squares of a contiguous run, each folded from 0 in order.
#pragma once

#include <cstddef>

namespace pte {
namespace ops {

struct Moments {
  float sum = 0.0f;
  float square_sum = 0.0f;
};

inline Moments moments(const float* x, size_t n) {
  Moments result;
  for (size_t j = 0; j < n; ++j) result.sum = result.sum + x[j];
  for (size_t j = 0; j < n; ++j) result.square_sum += x[j] * x[j];
  return result;
}

}  // namespace ops
}  // namespace pte
