#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {
namespace {

int precision_bits(uint32_t code) { return 8 << code; }

Precision precision(uint32_t payload, int size_lsb) {
  return Precision{bit_field(payload, 0, 1) != 0, precision_bits(bit_field(payload, size_lsb, 2)),
                   static_cast<DataFormat>(bit_field(payload, 6, 2))};
}

}  // namespace

IfmPrecision ifm_precision(const RegisterFile& registers) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_IFM_PRECISION);
  return IfmPrecision{precision(payload, 2), static_cast<IfmScaleMode>(bit_field(payload, 8, 2)),
                      static_cast<RoundMode>(bit_field(payload, 14, 2))};
}

Precision ifm2_precision(const RegisterFile& registers) {
  return precision(registers.get(Cmd0::NPU_SET_IFM2_PRECISION), 2);
}

OfmPrecision ofm_precision(const RegisterFile& registers) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_OFM_PRECISION);
  return OfmPrecision{precision(payload, 1), bit_field(payload, 8, 1) != 0,
                      static_cast<RoundMode>(bit_field(payload, 14, 2))};
}

Kernel kernel(const RegisterFile& registers) {
  const uint32_t stride = registers.get(Cmd0::NPU_SET_KERNEL_STRIDE);
  Kernel result;
  result.dilated_width = registers.get(Cmd0::NPU_SET_KERNEL_WIDTH_M1) + 1;
  result.dilated_height = registers.get(Cmd0::NPU_SET_KERNEL_HEIGHT_M1) + 1;
  result.stride_x = static_cast<int>(bit_field(stride, 0, 1) | bit_field(stride, 6, 1) << 1) + 1;
  result.stride_y = static_cast<int>(bit_field(stride, 1, 1) | bit_field(stride, 9, 1) << 1) + 1;
  result.part_kernel_first = bit_field(stride, 2, 1) != 0;
  result.dilation_x = static_cast<int>(bit_field(stride, 3, 1)) + 1;
  result.dilation_y = static_cast<int>(bit_field(stride, 4, 1)) + 1;
  return result;
}

Padding padding(const RegisterFile& registers) {
  return Padding{registers.get(Cmd0::NPU_SET_IFM_PAD_TOP) & 0x7f, registers.get(Cmd0::NPU_SET_IFM_PAD_LEFT) & 0x7f,
                 registers.get(Cmd0::NPU_SET_IFM_PAD_BOTTOM) & 0xff, registers.get(Cmd0::NPU_SET_IFM_PAD_RIGHT) & 0xff};
}

Upscale upscale(const RegisterFile& registers) {
  return static_cast<Upscale>(bit_field(registers.get(Cmd0::NPU_SET_IFM_UPSCALE), 0, 2));
}

Activation activation(const RegisterFile& registers, const Precision& ofm) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_ACTIVATION);
  Activation result;
  result.function = bit_field(payload, 0, 5);
  result.clip_range = static_cast<ClipRange>(bit_field(payload, 12, 3));
  if (ofm.is_signed) {
    result.min = registers.get_signed(Cmd0::NPU_SET_ACTIVATION_MIN);
    result.max = registers.get_signed(Cmd0::NPU_SET_ACTIVATION_MAX);
  } else {
    result.min = registers.get(Cmd0::NPU_SET_ACTIVATION_MIN);
    result.max = registers.get(Cmd0::NPU_SET_ACTIVATION_MAX);
  }
  return result;
}

Scale ofm_scale(const RegisterFile& registers) {
  return Scale{registers.data(Cmd1::NPU_SET_OFM_SCALE), registers.param(Cmd1::NPU_SET_OFM_SCALE) & 0x3f};
}

Scale opa_scale(const RegisterFile& registers) {
  return Scale{registers.data(Cmd1::NPU_SET_OPA_SCALE), registers.param(Cmd1::NPU_SET_OPA_SCALE) & 0x3f};
}

Scale opb_scale(const RegisterFile& registers) { return Scale{registers.data(Cmd1::NPU_SET_OPB_SCALE) & 0xffff, 0}; }

Ifm2Broadcast ifm2_broadcast(const RegisterFile& registers) {
  const uint32_t payload = registers.get(Cmd0::NPU_SET_IFM2_BROADCAST);
  return Ifm2Broadcast{bit_field(payload, 0, 1) != 0, bit_field(payload, 1, 1) != 0, bit_field(payload, 2, 1) != 0,
                       bit_field(payload, 7, 1) != 0, bit_field(payload, 6, 1) != 0};
}

}  // namespace npu_model
}  // namespace pte
