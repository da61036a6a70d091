// Cortex-M55 only: MVE intrinsics (arm_mve.h) through the toolchain, run on QEMU's M55. GCC 12 does not
// auto-vectorise int8 dot products, so kernels use these intrinsics; the tail-predicated loop is the
// pattern they follow.
#include <arm_mve.h>

#include <cinttypes>
#include <cstdio>

#include "toolchains/tests/dot_product.h"

#ifndef __ARM_FEATURE_MVE
#error "MVE is not enabled: the toolchain's -mcpu flags for this core are wrong"
#endif

namespace {

volatile int ramp_start = -50;

int32_t DotProductMve(const int8_t* a, const int8_t* b, int length) {
  int32_t sum = 0;
  for (int i = 0; i < length; i += 16) {
    // Lanes past the end are predicated off: loads yield 0 there and the accumulation skips them.
    const mve_pred16_t active = vctp8q(static_cast<uint32_t>(length - i));
    const int8x16_t va = vld1q_z_s8(a + i, active);
    const int8x16_t vb = vld1q_z_s8(b + i, active);
    sum = vmladavaq_p_s8(sum, va, vb, active);
  }
  return sum;
}

}  // namespace

int main() {
  using namespace toolchain_tests;
  const Int8Vector ramp = Ramp(ramp_start);
  const int32_t scalar = DotProduct(ramp, ramp);
  const int32_t vector = DotProductMve(ramp.data(), ramp.data(), static_cast<int>(kLength));
  const int32_t expected = SumOfSquares(-50);
  std::printf("MVE dot product %" PRId32 ", scalar %" PRId32 ", expected %" PRId32 "\n", vector, scalar, expected);
  return vector == expected && scalar == expected ? 0 : 1;
}
