// inner_loops.h with Helium (M-profile Vector Extension) intrinsics for Cortex-M55: four float or int32
// lanes, sixteen byte lanes, and tail predication (vctp) instead of a scalar remainder loop. Every
// function gives the scalar reference's bits, including its treatment of NaN and of values beyond int64.
#include <arm_mve.h>

#include <cstring>

#include "runtime/inner_loops/inner_loops.h"
#include "runtime/kernels/quantization.h"

#if !defined(__ARM_FEATURE_MVE) || (__ARM_FEATURE_MVE & 2) == 0
#error "inner_loops_helium.cc needs MVE with floating point (e.g. -mcpu=cortex-m55)"
#endif

namespace pte {
namespace inner_loops {
namespace {

// quantize_value sends a rounded value outside (-9.2e18, 9.2e18), or NaN, to quant_min: the result
// x86 gives for an out-of-range float -> int64 conversion, which ExecuTorch's kernels rely on there.
constexpr float kInt64Limit = 9.2e18f;

}  // namespace

void quantize_float_to_int8(const float* in, int8_t* out, size_t count, float inverse_scale, int32_t zero_point,
                            int32_t quant_min, int32_t quant_max) {
  const float32x4_t zero = vdupq_n_f32(static_cast<float>(zero_point));
  const int32x4_t minimum = vdupq_n_s32(quant_min);
  const int32x4_t maximum = vdupq_n_s32(quant_max);
  for (size_t i = 0; i < count; i += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(count - i));
    const float32x4_t x = vldrwq_z_f32(in + i, lanes);
    // zero_point + nearbyint(inverse_scale * x), in the reference's order (round to nearest, ties to even).
    const float32x4_t rounded = vaddq_f32(zero, vrndnq_f32(vmulq_n_f32(x, inverse_scale)));
    // vcvt saturates at int32's range, which the clamp below makes the same as int64's.
    int32x4_t result = vminq_s32(vmaxq_s32(vcvtq_s32_f32(rounded), minimum), maximum);
    const mve_pred16_t beyond_int64 = vcmpgeq_n_f32(vabsq_f32(rounded), kInt64Limit) | vcmpneq_f32(rounded, rounded);
    result = vpselq_s32(minimum, result, beyond_int64);
    vstrbq_p_s32(out + i, result, lanes);
  }
}

void dequantize_int8_to_float(const int8_t* in, float* out, size_t count, int32_t zero_point, float scale) {
  // (q - zero_point) must be exact in int32 for the lanes to match the reference's int64 difference.
  if (zero_point < -(1 << 24) || zero_point > (1 << 24)) {
    for (size_t i = 0; i < count; ++i) out[i] = dequantize_value<int8_t>(in[i], zero_point, scale);
    return;
  }
  for (size_t i = 0; i < count; i += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(count - i));
    const int32x4_t q = vldrbq_z_s32(in + i, lanes);
    const float32x4_t x = vmulq_n_f32(vcvtq_f32_s32(vsubq_n_s32(q, zero_point)), scale);
    vstrwq_p_f32(out + i, x, lanes);
  }
}

void copy_bytes(void* destination, const void* source, size_t count) {
  auto* to = static_cast<uint8_t*>(destination);
  const auto* from = static_cast<const uint8_t*>(source);
  // 64 bytes per iteration keeps the loop overhead (pointer, compare, branch) to a fifth of the work;
  // byte lanes need no alignment. A predicated loop finishes the last 0-63 bytes.
  size_t i = 0;
  for (; i + 64 <= count; i += 64) {
    const uint8x16_t a = vldrbq_u8(from + i);
    const uint8x16_t b = vldrbq_u8(from + i + 16);
    const uint8x16_t c = vldrbq_u8(from + i + 32);
    const uint8x16_t d = vldrbq_u8(from + i + 48);
    vstrbq_u8(to + i, a);
    vstrbq_u8(to + i + 16, b);
    vstrbq_u8(to + i + 32, c);
    vstrbq_u8(to + i + 48, d);
  }
  for (; i < count; i += 16) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(count - i));
    vstrbq_p_u8(to + i, vldrbq_z_u8(from + i, lanes), lanes);
  }
}

const char* implementation_name() { return "helium"; }

}  // namespace inner_loops
}  // namespace pte
