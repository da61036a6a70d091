// The reference implementation of inner_loops.h: portable C++, one element at a time.
#include <cstring>

#include "runtime/inner_loops/inner_loops.h"
#include "runtime/kernels/quantization.h"

namespace pte {
namespace inner_loops {

void quantize_float_to_int8(const float* in, int8_t* out, size_t count, float inverse_scale, int32_t zero_point,
                            int32_t quant_min, int32_t quant_max) {
  for (size_t i = 0; i < count; ++i) {
    out[i] = quantize_value<int8_t>(in[i], inverse_scale, zero_point, quant_min, quant_max);
  }
}

void dequantize_int8_to_float(const int8_t* in, float* out, size_t count, int32_t zero_point, float scale) {
  for (size_t i = 0; i < count; ++i) out[i] = dequantize_value<int8_t>(in[i], zero_point, scale);
}

void copy_bytes(void* destination, const void* source, size_t count) {
  if (count != 0) std::memcpy(destination, source, count);
}

const char* implementation_name() { return "scalar"; }

}  // namespace inner_loops
}  // namespace pte
