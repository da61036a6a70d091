// The registers an operation reads, decoded into typed fields (Arm U55/U65 interface layouts; bit
// positions below are within the 16-bit cmd0 payload).
#pragma once

#include <cstdint>

#include "runtime/npu_model/register_file.h"

namespace pte {
namespace npu_model {

enum class DataFormat : uint8_t { kNhwc = 0, kNhcwb16 = 1 };

// How a scaled value is shifted down. The U55 has the first three (its register values); the U85 adds
// the others and a double-rounding position (see rescale.h).
enum class RoundMode : uint8_t {
  kDouble = 0,             // TOSA's double_round: half away from zero across a 31-bit boundary
  kTruncate = 1,           // towards zero
  kNatural = 2,            // half up
  kDoubleAsymmetric = 3,   // double rounding, ties up
  kSymmetric = 4,          // half away from zero
  kTruncateToLower = 5,    // floor
};

struct Precision {
  bool is_signed;
  int bits;  // 8, 16, 32 or 64
  DataFormat format;

  int bytes() const { return bits / 8; }
  int64_t min() const { return is_signed ? -(int64_t{1} << (bits - 1)) : 0; }
  int64_t max() const { return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1; }
};

// IFM_PRECISION's scale_mode: which elementwise operand gets the 32-bit OPA scale.
enum class IfmScaleMode : uint8_t { kBoth16 = 0, kOperandA32 = 1, kOperandB32 = 2 };

struct IfmPrecision {
  Precision precision;
  IfmScaleMode scale_mode;
  RoundMode round_mode;
};

struct OfmPrecision {
  Precision precision;
  // Per-channel scales come from the scale stream; global ones from OFM_SCALE.
  bool global_scale;
  RoundMode round_mode;
};

IfmPrecision ifm_precision(const RegisterFile& registers);
Precision ifm2_precision(const RegisterFile& registers);
OfmPrecision ofm_precision(const RegisterFile& registers);

struct Kernel {
  // Kernel extent including dilation, as the registers hold it.
  int dilated_width;
  int dilated_height;
  int stride_x;
  int stride_y;
  int dilation_x;
  int dilation_y;
  // NPU_SET_KERNEL_STRIDE's weight_order: the weight stream walks the kernel before the depth.
  bool part_kernel_first;

  int width() const { return (dilated_width - 1) / dilation_x + 1; }
  int height() const { return (dilated_height - 1) / dilation_y + 1; }
};
Kernel kernel(const RegisterFile& registers);

struct Padding {
  int top;
  int left;
  int bottom;
  int right;
};
Padding padding(const RegisterFile& registers);

// NPU_SET_IFM_UPSCALE: the IFM is read at twice its size, repeating (nearest) or zero-filling each
// element.
enum class Upscale : uint8_t { kNone = 0, kNearest = 1, kZeros = 2 };
Upscale upscale(const RegisterFile& registers);

// NPU_SET_ACTIVATION's function: 0 clamps only, 3 and 4 are the built-in tanh and sigmoid, 16-23 look
// the value up in LUT slot 0-7.
constexpr uint32_t kActivationClampOnly = 0;
constexpr uint32_t kActivationTanh = 3;
constexpr uint32_t kActivationSigmoid = 4;
constexpr uint32_t kActivationTableFirst = 16;
constexpr uint32_t kActivationTableLast = 23;

// NPU_SET_ACTIVATION's clip range: the OFM type's range, or a forced one.
enum class ClipRange : uint8_t { kOfmPrecision = 0, kForceUint8 = 2, kForceInt8 = 3, kForceInt16 = 5 };

struct Activation {
  uint32_t function;
  ClipRange clip_range;
  // NPU_SET_ACTIVATION_MIN/MAX, read with the OFM's signedness.
  int64_t min;
  int64_t max;
};
Activation activation(const RegisterFile& registers, const Precision& ofm);

// A multiplier and right shift (OFM_SCALE, OPA_SCALE, or one channel of the scale stream).
struct Scale {
  uint32_t multiplier;
  int shift;
};
Scale ofm_scale(const RegisterFile& registers);
Scale opa_scale(const RegisterFile& registers);
// OPB_SCALE has a 16-bit multiplier and no shift.
Scale opb_scale(const RegisterFile& registers);

struct Ifm2Broadcast {
  bool height;
  bool width;
  bool depth;
  // IFM2 is a scalar held in NPU_SET_IFM2_SCALAR.
  bool scalar;
  // The operation's first operand is IFM2 (Vela puts a broadcast or scalar operand in IFM2 even
  // when it comes first, e.g. 1 - x).
  bool ifm2_first;
};
Ifm2Broadcast ifm2_broadcast(const RegisterFile& registers);

}  // namespace npu_model
}  // namespace pte
