#include "runtime/npu_model/u85_registers.h"

namespace pte {
namespace npu_model {
namespace u85 {
namespace {

constexpr RoundMode kOfmRoundModes[] = {RoundMode::kDouble,    RoundMode::kNatural,  RoundMode::kDoubleAsymmetric,
                                        RoundMode::kSymmetric, RoundMode::kTruncate, RoundMode::kTruncateToLower};

ScaleRegister scale_register(const RegisterFile& registers, Cmd1 reg, bool ofm) {
  const uint32_t param = registers.param(reg);
  const uint32_t mode = ofm ? bit_field(param, 13, 3) : bit_field(param, 13, 1);
  ScaleRegister result;
  result.scale = Scale{registers.data(reg) & 0x7fffffffu, static_cast<int>(bit_field(param, 0, 6))};
  result.round_mode = mode < 6 ? kOfmRoundModes[mode] : RoundMode::kDouble;
  result.double_round = static_cast<int>(bit_field(param, 6, 5));
  return result;
}

Broadcast broadcast(uint32_t payload) {
  const uint32_t mode = bit_field(payload, 0, 4);
  if (mode == 8) return Broadcast{false, false, false, true};
  return Broadcast{(mode & 1) != 0, (mode & 2) != 0, (mode & 4) != 0, false};
}

}  // namespace

Storage ifm_storage(const RegisterFile& registers) {
  return static_cast<Storage>(bit_field(registers.get(Cmd0::NPU_SET_IFM_PRECISION), 14, 2));
}

Storage ifm2_storage(const RegisterFile& registers) {
  return static_cast<Storage>(bit_field(registers.get(Cmd0::NPU_SET_IFM2_PRECISION), 14, 2));
}

OfmLayout ofm_layout(const RegisterFile& registers) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_OFM_PRECISION);
  OfmLayout layout;
  layout.precision = Precision{bit_field(payload, 0, 1) != 0, 8 << bit_field(payload, 1, 2),
                               static_cast<DataFormat>(bit_field(payload, 6, 2))};
  layout.global_scale = bit_field(payload, 8, 1) != 0;
  layout.reverse = static_cast<Reverse>(bit_field(payload, 9, 2));
  layout.transpose = static_cast<Transpose>(bit_field(payload, 11, 3));
  layout.storage = static_cast<Storage>(bit_field(payload, 14, 2));
  return layout;
}

ScaleRegister ofm_scale_register(const RegisterFile& registers) {
  return scale_register(registers, Cmd1::NPU_SET_OFM_SCALE, true);
}
ScaleRegister ifm_scale_register(const RegisterFile& registers) {
  return scale_register(registers, Cmd1::NPU_SET_IFM_SCALE, false);
}
ScaleRegister ifm2_scale_register(const RegisterFile& registers) {
  return scale_register(registers, Cmd1::NPU_SET_IFM2_SCALE, false);
}

ActivationRegister activation(const RegisterFile& registers, const Precision& ofm) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_ACTIVATION);
  ActivationRegister result;
  result.function = bit_field(payload, 0, 5);
  result.table = bit_field(payload, 5, 3);
  result.clamp = bit_field(payload, 12, 1) == 0;
  result.min = ofm.is_signed ? registers.get_signed(Cmd0::NPU_SET_ACTIVATION_MIN)
                             : registers.get(Cmd0::NPU_SET_ACTIVATION_MIN);
  result.max = ofm.is_signed ? registers.get_signed(Cmd0::NPU_SET_ACTIVATION_MAX)
                             : registers.get(Cmd0::NPU_SET_ACTIVATION_MAX);
  return result;
}

AccFormat acc_format(const RegisterFile& registers) {
  static constexpr int kMicroblocks[][2] = {{1, 1}, {1, 2}, {1, 4}, {2, 2}, {2, 4}, {4, 4}};
  const uint32_t payload = registers.get(Cmd0::NPU_SET_ACC_FORMAT);
  const uint32_t microblock = bit_field(payload, 8, 3);
  AccFormat result;
  result.wide = bit_field(payload, 0, 2) == 1;
  result.input = static_cast<AccumulatorInput>(bit_field(payload, 4, 2));
  result.output_enabled = bit_field(payload, 6, 1) == 0;
  result.ublock_height = microblock < 6 ? kMicroblocks[microblock][0] : 1;
  result.ublock_width = microblock < 6 ? kMicroblocks[microblock][1] : 1;
  return result;
}

WeightFormat weight_format(const RegisterFile& registers) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_WEIGHT_FORMAT);
  return WeightFormat{bit_field(payload, 0, 1) != 0, bit_field(payload, 4, 1) != 0};
}

Broadcast ifm_broadcast(const RegisterFile& registers) { return broadcast(registers.get(Cmd0::NPU_SET_IFM_BROADCAST)); }
Broadcast ifm2_broadcast(const RegisterFile& registers) {
  return broadcast(registers.get(Cmd0::NPU_SET_IFM2_BROADCAST));
}

namespace {

ResizeAxis resize_axis(const RegisterFile& registers, Cmd0 denominator_m1, Cmd1 step, Cmd0 offset) {
  const int denominator = static_cast<int>(bit_field(registers.get(denominator_m1), 0, 11)) + 1;
  const int whole = static_cast<int>(bit_field(registers.param(step), 0, 4));
  const int remainder = static_cast<int>(bit_field(registers.data(step), 0, 11));
  // A 12-bit two's complement offset.
  const int raw_offset = static_cast<int>(bit_field(registers.get(offset), 0, 12));
  return ResizeAxis{denominator, whole * denominator + remainder, raw_offset >= 2048 ? raw_offset - 4096 : raw_offset};
}

}  // namespace

ResizeAxis resize_x(const RegisterFile& registers) {
  return resize_axis(registers, Cmd0::NPU_SET_RESIZE_X_SCALE_N_M1, Cmd1::NPU_SET_RESIZE_X,
                     Cmd0::NPU_SET_RESIZE_X_OFFSET);
}

ResizeAxis resize_y(const RegisterFile& registers) {
  return resize_axis(registers, Cmd0::NPU_SET_RESIZE_Y_SCALE_N_M1, Cmd1::NPU_SET_RESIZE_Y,
                     Cmd0::NPU_SET_RESIZE_Y_OFFSET);
}

}  // namespace u85
}  // namespace npu_model
}  // namespace pte
