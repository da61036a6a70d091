#include "runtime/kernels/ops/matmul.h"

namespace pte {
namespace ops {

void matmul(const float* x, const float* y, float* z, size_t m, size_t n, size_t p, bool y_transposed) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < p; ++j) {
      float sum = 0.0f;
      for (size_t k = 0; k < n; ++k) sum += x[i * n + k] * (y_transposed ? y[j * n + k] : y[k * p + j]);
      z[i * p + j] = sum;
    }
  }
}

}  // namespace ops
}  // namespace pte
