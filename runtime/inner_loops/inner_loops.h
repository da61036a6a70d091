// The element loops that dominate the CPU's share of a delegated model: quantizing a float input onto
// int8, dequantizing an int8 output, and copying tensors in and out of the NPU's scratch memory.
//
// One interface, two implementations chosen at build time (BUILD.bazel): a scalar reference, the
// arithmetic of runtime/kernels/quantization.h element by element, and a Helium (MVE) variant for
// Cortex-M55 that gives the same bits four or sixteen lanes at a time. inner_loops_test checks the
// chosen variant against the reference on every platform, so the QEMU run checks the Helium one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pte {
namespace inner_loops {

// out[i] = quantize_value<int8_t>(in[i], inverse_scale, zero_point, quant_min, quant_max)
// (runtime/kernels/quantization.h, which follows ExecuTorch's quantize_per_tensor bit for bit).
void quantize_float_to_int8(const float* in, int8_t* out, size_t count, float inverse_scale, int32_t zero_point,
                            int32_t quant_min, int32_t quant_max);

// out[i] = dequantize_value<int8_t>(in[i], zero_point, scale).
void dequantize_int8_to_float(const int8_t* in, float* out, size_t count, int32_t zero_point, float scale);

// memcpy: the C library's may copy a byte at a time (newlib-nano does: it is built for size).
void copy_bytes(void* destination, const void* source, size_t count);

// Which implementation this build has: "scalar" or "helium", for logs and benchmarks.
const char* implementation_name();

}  // namespace inner_loops
}  // namespace pte
