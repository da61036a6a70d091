// The float32 matrix product the matrix kernels share: z[i][j] = sum over k of x[i][k] * y[k][j], summed
// from zero in k order (ExecuTorch's portable vec_matmul), so results match it bit for bit.
#pragma once

#include <cstddef>

namespace pte {
namespace ops {

// x: m x n, y: n x p (or p x n when y_transposed), z: m x p; all row-major.
void matmul(const float* x, const float* y, float* z, size_t m, size_t n, size_t p, bool y_transposed);

}  // namespace ops
}  // namespace pte
