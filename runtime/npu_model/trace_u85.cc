// Trace lines for U85 operations (trace.h).
#include "runtime/core/decimal_text.h"
#include "runtime/npu_model/trace.h"
#include "runtime/npu_model/u85_registers.h"

namespace pte {
namespace npu_model {
namespace {

void add_scale(LineWriter& out, const char* name, const u85::ScaleRegister& s) {
  out.add(" %s=%lu>>%d(%s", name, static_cast<unsigned long>(s.scale.multiplier), s.scale.shift,
          round_text(s.round_mode));
  if (s.double_round != 0) out.add(",dbl%d", s.double_round);
  out.add(")");
}

}  // namespace

void describe_u85_operation(const Command& command, const RegisterFile& r, char* line, size_t capacity) {
  static const char* const kPoolModes[] = {"max", "average", "reduce_sum", "sum", "none", "min", "argmax_x", "argmax_y"};
  LineWriter out(line, capacity);
  const auto opcode = static_cast<u85::Cmd0>(command.opcode);
  if (command.is_cmd1 || opcode == u85::Cmd0::NPU_OP_STOP || opcode == u85::Cmd0::NPU_OP_DMA_WAIT ||
      opcode == u85::Cmd0::NPU_OP_KERNEL_WAIT || opcode == u85::Cmd0::NPU_OP_IRQ || opcode == u85::Cmd0::NPU_OP_PMU_MASK) {
    out.add(" %u", command.param);
    return;
  }
  if (opcode == u85::Cmd0::NPU_OP_DMA_START) {
    out.add(" r%u%s+%s -> r%u%s+%s (%s B)", r.get(u85::Cmd0::NPU_SET_DMA0_SRC_REGION) & 7,
            (r.get(u85::Cmd0::NPU_SET_DMA0_SRC_REGION) & 0x100) ? "(internal)" : "",
            DecimalText(r.address(u85::Cmd1::NPU_SET_DMA0_SRC)).c_str(), r.get(u85::Cmd0::NPU_SET_DMA0_DST_REGION) & 7,
            (r.get(u85::Cmd0::NPU_SET_DMA0_DST_REGION) & 0x100) ? "(internal)" : "",
            DecimalText(r.address(u85::Cmd1::NPU_SET_DMA0_DST)).c_str(), DecimalText(r.address(u85::Cmd1::NPU_SET_DMA0_LEN)).c_str());
    return;
  }
  if (opcode == u85::Cmd0::NPU_OP_POOL) out.add(" %s", command.param < 8 ? kPoolModes[command.param] : "?");
  if (opcode == u85::Cmd0::NPU_OP_ELEMENTWISE) out.add(" mode=%u", command.param);
  const Precision ifm = ifm_precision(r).precision;
  out.add(" ifm r%u+%s %s %s zp=%d depth=%u storage=%d", r.get(u85::Cmd0::NPU_SET_IFM_REGION) & 7,
          DecimalText(r.address(u85::Cmd1::NPU_SET_IFM_BASE0)).c_str(), precision_text(ifm), format_text(ifm),
          static_cast<int>(r.get_signed(u85::Cmd0::NPU_SET_IFM_ZERO_POINT)), r.get(u85::Cmd0::NPU_SET_IFM_DEPTH_M1) + 1u,
          static_cast<int>(u85::ifm_storage(r)));
  if (opcode == u85::Cmd0::NPU_OP_ELEMENTWISE) {
    const Precision ifm2 = ifm2_precision(r);
    out.add(" ifm2 r%u+%s %s zp=%d broadcast=%u/%u", r.get(u85::Cmd0::NPU_SET_IFM2_REGION) & 7,
            DecimalText(r.address(u85::Cmd1::NPU_SET_IFM2_BASE0)).c_str(), precision_text(ifm2),
            static_cast<int>(r.get_signed(u85::Cmd0::NPU_SET_IFM2_ZERO_POINT)), r.get(u85::Cmd0::NPU_SET_IFM_BROADCAST) & 15u,
            r.get(u85::Cmd0::NPU_SET_IFM2_BROADCAST) & 15u);
    add_scale(out, "ifm_scale", u85::ifm_scale_register(r));
    add_scale(out, "ifm2_scale", u85::ifm2_scale_register(r));
  }
  const u85::OfmLayout o = u85::ofm_layout(r);
  out.add(" -> ofm r%u+%s %ux%ux%u %s %s zp=%d %s transpose=%d reverse=%d storage=%d", r.get(u85::Cmd0::NPU_SET_OFM_REGION) & 7,
          DecimalText(r.address(u85::Cmd1::NPU_SET_OFM_BASE0)).c_str(), r.get(u85::Cmd0::NPU_SET_OFM_HEIGHT_M1) + 1u,
          r.get(u85::Cmd0::NPU_SET_OFM_WIDTH_M1) + 1u, r.get(u85::Cmd0::NPU_SET_OFM_DEPTH_M1) + 1u, precision_text(o.precision),
          format_text(o.precision), static_cast<int>(r.get_signed(u85::Cmd0::NPU_SET_OFM_ZERO_POINT)), o.global_scale ? "global" : "per-channel",
          static_cast<int>(o.transpose), static_cast<int>(o.reverse), static_cast<int>(o.storage));
  add_scale(out, "ofm_scale", u85::ofm_scale_register(r));
  const u85::ActivationRegister a = u85::activation(r, o.precision);
  out.add(" lut=%lu/%lu clamp=%s[%ld,%ld]", static_cast<unsigned long>(a.function), static_cast<unsigned long>(a.table),
          a.clamp ? "" : "off", static_cast<long>(a.min), static_cast<long>(a.max));
  if (opcode == u85::Cmd0::NPU_OP_CONV || opcode == u85::Cmd0::NPU_OP_DEPTHWISE || opcode == u85::Cmd0::NPU_OP_POOL) {
    const Kernel k = kernel(r);
    const Padding p = padding(r);
    out.add(" kernel %dx%d stride %dx%d dilation %dx%d pad t%d l%d b%d r%d", k.dilated_height, k.dilated_width,
            k.stride_y, k.stride_x, k.dilation_y, k.dilation_x, p.top, p.left, p.bottom, p.right);
  }
  if (opcode == u85::Cmd0::NPU_OP_CONV || opcode == u85::Cmd0::NPU_OP_DEPTHWISE) {
    const u85::WeightFormat w = u85::weight_format(r);
    const u85::AccFormat acc = u85::acc_format(r);
    out.add(" weights r%u+%s (%s B, %s%s) scales r%u+%s acc%d ublock %dx%d",
            r.get(u85::Cmd0::NPU_SET_WEIGHT_REGION) & 7, DecimalText(r.address(u85::Cmd1::NPU_SET_WEIGHT_BASE)).c_str(),
            DecimalText(r.address(u85::Cmd1::NPU_SET_WEIGHT_LENGTH)).c_str(), w.fast ? "fast" : "compressed",
            w.sparse ? ", 2:4 sparse" : "",
            r.get(u85::Cmd0::NPU_SET_SCALE_REGION) & 7, DecimalText(r.address(u85::Cmd1::NPU_SET_SCALE_BASE)).c_str(),
            acc.wide ? 48 : 32, acc.ublock_height, acc.ublock_width);
  }
}

}  // namespace npu_model
}  // namespace pte
