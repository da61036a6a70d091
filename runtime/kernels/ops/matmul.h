// The float32 matrix product the matrix kernels share: z[i][j] = sum over k of x[i][k] * y[k][j], summed
// from zero in k order (ExecuTorch's portable vec_matmul), so results match it bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/kernel.h"

namespace pte {
namespace ops {

// x: m x n, y: n x p (or p x n when y_transposed), z: m x p; all row-major.
void matmul(const float* x, const float* y, float* z, size_t m, size_t n, size_t p, bool y_transposed);

// mm.out (rank 2) and bmm.out (rank 3): `self`, `mat2`, then out, all float32 in the default dim order;
// out[b] = self[b] @ mat2[b], a rank-2 product being one batch.
Status batched_matmul_out(const KernelArgs& args, uint32_t rank);

}  // namespace ops
}  // namespace pte
