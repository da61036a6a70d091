// The Ethos-U85 registers its operations read, decoded (Arm's U85 interface layouts; bit positions in
// the 16-bit cmd0 payload, or the cmd1 parameter field). Precision fields share the U55's positions
// (operation_registers.h); these are the registers and fields the U85 adds or lays out differently.
#pragma once

#include <cstdint>

#include "runtime/npu_model/operation_registers.h"
#include "runtime/npu_model/register_file.h"
#include "runtime/npu_model/u85_commands.h"

namespace pte {
namespace npu_model {
namespace u85 {

// Where a feature map lives: tiles in memory, an on-chip chaining buffer (REGION names it), or
// nowhere (a scalar operand; an OFM that only feeds the accumulator).
enum class Storage : uint8_t { kTile2x2 = 0, kTile3x1 = 1, kChained = 2, kNone = 3 };

Storage ifm_storage(const RegisterFile& registers);
Storage ifm2_storage(const RegisterFile& registers);

// OFM_PRECISION's write-side permutation: the OFM registers describe the shape before it; tiles and
// strides the shape after.
enum class Transpose : uint8_t { kHwc = 0, kWhc = 1, kHcw = 2, kWch = 3, kChw = 6, kCwh = 7 };
enum class Reverse : uint8_t { kNone = 0, kHeight = 1, kWidth = 2, kDepth = 3 };

struct OfmLayout {
  Precision precision;
  bool global_scale;
  Reverse reverse;
  Transpose transpose;
  Storage storage;
};
OfmLayout ofm_layout(const RegisterFile& registers);

// OFM_SCALE, IFM_SCALE, IFM2_SCALE: a 31-bit multiplier, a shift, a round mode and the bit position of
// double rounding.
struct ScaleRegister {
  Scale scale;
  RoundMode round_mode;
  int double_round;
};
ScaleRegister ofm_scale_register(const RegisterFile& registers);
ScaleRegister ifm_scale_register(const RegisterFile& registers);
ScaleRegister ifm2_scale_register(const RegisterFile& registers);

// NPU_SET_ACTIVATION's function (a lookup table kind or none) and table slot; the clamp applies to
// outputs of up to 16 bits unless disabled.
constexpr uint32_t kLutNone = 0;
constexpr uint32_t kLutU8ToU8 = 1;
constexpr uint32_t kLutS8ToS8 = 4;
constexpr uint32_t kLutS8ToS16 = 5;
constexpr uint32_t kLutS8ToS32 = 7;
constexpr uint32_t kLutS16ToS16 = 8;
constexpr uint32_t kLutS16ToS32 = 9;
constexpr uint32_t kLutTanh = 10;
constexpr uint32_t kLutSigmoid = 11;

struct ActivationRegister {
  uint32_t function;
  uint32_t table;
  bool clamp;
  int64_t min;
  int64_t max;
};
ActivationRegister activation(const RegisterFile& registers, const Precision& ofm);

// Where the accumulators start from: zero (reset), the previous operation's (keep) or IFM2.
enum class AccumulatorInput : uint8_t { kReset = 0, kKeep = 1, kIfm2 = 2 };

struct AccFormat {
  bool wide;  // 48-bit accumulators (bias entries are 48-bit too)
  AccumulatorInput input;
  bool output_enabled;
  // The MAC array's micro-block: its height and width; its depth is MACs / (8 * height * width).
  int ublock_height;
  int ublock_width;
};
AccFormat acc_format(const RegisterFile& registers);

struct WeightFormat {
  bool fast;    // FWD: one header and fixed-width codes, instead of the U55's compressed format
  bool sparse;  // 2:4 sparsity
};
WeightFormat weight_format(const RegisterFile& registers);

// IFM_BROADCAST/IFM2_BROADCAST: axes of size 1 repeated to the OFM's, or a scalar in OP_SCALAR.
struct Broadcast {
  bool height;
  bool width;
  bool depth;
  bool scalar;
};
Broadcast ifm_broadcast(const RegisterFile& registers);
Broadcast ifm2_broadcast(const RegisterFile& registers);

// One axis of NPU_OP_RESIZE: output position o samples the input at (o * step + offset) / denominator
// (TOSA's scale_n, scale_d and offset; the step is stored as whole and remainder parts).
struct ResizeAxis {
  int denominator;
  int step;
  int offset;
};
ResizeAxis resize_x(const RegisterFile& registers);
ResizeAxis resize_y(const RegisterFile& registers);

}  // namespace u85
}  // namespace npu_model
}  // namespace pte
