#include "runtime/npu_model/trace.h"

#include <cstdarg>
#include <cstdio>

#include "runtime/core/decimal_text.h"
#include "runtime/npu_model/operation_registers.h"
#include "runtime/npu_model/u55_commands.h"

namespace pte {
namespace npu_model {

LineWriter::LineWriter(char* line, size_t capacity) : line_(line), capacity_(capacity) { line_[0] = '\0'; }

void LineWriter::add(const char* format, ...) {
  if (length_ + 1 >= capacity_) return;
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(line_ + length_, capacity_ - length_, format, args);
  va_end(args);
  if (written > 0) length_ = length_ + static_cast<size_t>(written) < capacity_ ? length_ + written : capacity_ - 1;
}

const char* precision_text(const Precision& precision) {
  static const char* const kNames[2][4] = {{"u8", "u16", "u32", "u64"}, {"s8", "s16", "s32", "s64"}};
  const int size = precision.bits == 8 ? 0 : precision.bits == 16 ? 1 : precision.bits == 32 ? 2 : 3;
  return kNames[precision.is_signed ? 1 : 0][size];
}

const char* format_text(const Precision& precision) {
  return precision.format == DataFormat::kNhcwb16 ? "NHCWB16" : "NHWC";
}

const char* round_text(RoundMode mode) {
  switch (mode) {
    case RoundMode::kDouble:
      return "double";
    case RoundMode::kTruncate:
      return "truncate";
    case RoundMode::kNatural:
      return "natural";
    case RoundMode::kDoubleAsymmetric:
      return "double-asymmetric";
    case RoundMode::kSymmetric:
      return "symmetric";
    case RoundMode::kTruncateToLower:
      return "floor";
  }
  return "?";
}

namespace {

void add_ifm(LineWriter& out, const RegisterFile& r) {
  const Precision p = ifm_precision(r).precision;
  out.add(" ifm r%u+%s %s %s zp=%ld depth=%u", r.get(Cmd0::NPU_SET_IFM_REGION) & 7,
          DecimalText(r.address(Cmd1::NPU_SET_IFM_BASE0)).c_str(), precision_text(p), format_text(p),
          static_cast<long>(p.is_signed ? r.get_signed(Cmd0::NPU_SET_IFM_ZERO_POINT) : r.get(Cmd0::NPU_SET_IFM_ZERO_POINT)),
          r.get(Cmd0::NPU_SET_IFM_DEPTH_M1) + 1u);
}

void add_ofm(LineWriter& out, const RegisterFile& r) {
  const OfmPrecision o = ofm_precision(r);
  out.add(" -> ofm r%u+%s %ux%ux%u %s %s zp=%d scale=%s round=%s", r.get(Cmd0::NPU_SET_OFM_REGION) & 7,
          DecimalText(r.address(Cmd1::NPU_SET_OFM_BASE0)).c_str(), r.get(Cmd0::NPU_SET_OFM_HEIGHT_M1) + 1u,
          r.get(Cmd0::NPU_SET_OFM_WIDTH_M1) + 1u, r.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1u,
          precision_text(o.precision), format_text(o.precision), static_cast<int>(r.get_signed(Cmd0::NPU_SET_OFM_ZERO_POINT)),
          o.global_scale ? "global" : "per-channel", round_text(o.round_mode));
  if (o.global_scale) {
    const Scale s = ofm_scale(r);
    out.add(" ofm_scale=%lu>>%d", static_cast<unsigned long>(s.multiplier), s.shift);
  }
  const Activation a = activation(r, o.precision);
  out.add(" act=%lu clamp=[%ld,%ld]", static_cast<unsigned long>(a.function), static_cast<long>(a.min),
          static_cast<long>(a.max));
}

void add_kernel(LineWriter& out, const RegisterFile& r) {
  const Kernel k = kernel(r);
  const Padding p = padding(r);
  out.add(" kernel %dx%d stride %dx%d dilation %dx%d pad t%d l%d b%d r%d upscale=%u%s", k.dilated_height,
          k.dilated_width, k.stride_y, k.stride_x, k.dilation_y, k.dilation_x, p.top, p.left, p.bottom, p.right,
          r.get(Cmd0::NPU_SET_IFM_UPSCALE) & 3u, k.part_kernel_first ? " part-kernel-first" : "");
}

void add_weights(LineWriter& out, const RegisterFile& r) {
  out.add(" weights r%u+%s (%s B) scales r%u+%s (%s B) ofm_block_depth=%u", r.get(Cmd0::NPU_SET_WEIGHT_REGION) & 7,
          DecimalText(r.address(Cmd1::NPU_SET_WEIGHT_BASE)).c_str(),
          DecimalText(r.address(Cmd1::NPU_SET_WEIGHT_LENGTH)).c_str(), r.get(Cmd0::NPU_SET_SCALE_REGION) & 7,
          DecimalText(r.address(Cmd1::NPU_SET_SCALE_BASE)).c_str(),
          DecimalText(r.address(Cmd1::NPU_SET_SCALE_LENGTH)).c_str(), r.get(Cmd0::NPU_SET_OFM_BLK_DEPTH_M1) + 1u);
}

void add_u55_operation(LineWriter& out, const Command& command, const RegisterFile& r) {
  static const char* const kPoolModes[] = {"max", "average", "reduce_sum"};
  static const char* const kElementwiseModes[] = {"mul", "add", "sub", "min", "max", "lrelu", "abs", "clz", "shr", "shl"};
  switch (static_cast<Cmd0>(command.opcode)) {
    case Cmd0::NPU_OP_CONV:
    case Cmd0::NPU_OP_DEPTHWISE:
      add_ifm(out, r);
      add_ofm(out, r);
      add_kernel(out, r);
      add_weights(out, r);
      break;
    case Cmd0::NPU_OP_POOL:
      out.add(" %s", command.param < 3 ? kPoolModes[command.param] : "?");
      add_ifm(out, r);
      add_ofm(out, r);
      add_kernel(out, r);
      break;
    case Cmd0::NPU_OP_ELEMENTWISE: {
      out.add(" %s", command.param < 10 ? kElementwiseModes[command.param] : "?");
      add_ifm(out, r);
      const Ifm2Broadcast b = ifm2_broadcast(r);
      if (b.scalar) {
        out.add(" ifm2 scalar=%d", static_cast<int>(r.get_signed(Cmd0::NPU_SET_IFM2_SCALAR)));
      } else {
        out.add(" ifm2 r%u+%s zp=%d broadcast=%s%s%s", r.get(Cmd0::NPU_SET_IFM2_REGION) & 7,
                DecimalText(r.address(Cmd1::NPU_SET_IFM2_BASE0)).c_str(), static_cast<int>(r.get_signed(Cmd0::NPU_SET_IFM2_ZERO_POINT)),
                b.height ? "h" : "", b.width ? "w" : "", b.depth ? "c" : "");
      }
      if (b.ifm2_first) out.add(" ifm2-first");
      const IfmPrecision i = ifm_precision(r);
      const Scale a = opa_scale(r);
      out.add(" scale_mode=%d opa=%lu>>%d opb=%lu round=%s", static_cast<int>(i.scale_mode),
              static_cast<unsigned long>(a.multiplier), a.shift, static_cast<unsigned long>(opb_scale(r).multiplier),
              round_text(i.round_mode));
      add_ofm(out, r);
      break;
    }
    case Cmd0::NPU_OP_DMA_START:
      out.add(" r%u%s+%s -> r%u%s+%s (%s B)", r.get(Cmd0::NPU_SET_DMA0_SRC_REGION) & 7,
              (r.get(Cmd0::NPU_SET_DMA0_SRC_REGION) & 0x100) ? "(shram)" : "",
              DecimalText(r.address(Cmd1::NPU_SET_DMA0_SRC)).c_str(), r.get(Cmd0::NPU_SET_DMA0_DST_REGION) & 7,
              (r.get(Cmd0::NPU_SET_DMA0_DST_REGION) & 0x100) ? "(shram)" : "",
              DecimalText(r.address(Cmd1::NPU_SET_DMA0_DST)).c_str(),
              DecimalText(r.address(Cmd1::NPU_SET_DMA0_LEN)).c_str());
      break;
    default:
      out.add(" %u", command.param);
      break;
  }
}

}  // namespace

void describe_u55_operation(const Command& command, const RegisterFile& registers, char* line, size_t capacity) {
  LineWriter out(line, capacity);
  add_u55_operation(out, command, registers);
}

void describe_command(const Command& command, const RegisterFile& registers, const CommandSet& commands, char* line,
                      size_t capacity) {
  LineWriter out(line, capacity);
  out.add("%6lu %s", as_ulong(command.offset), command.name);
  if (command.is_operation()) {
    char operands[384];
    commands.describe_operation(command, registers, operands, sizeof(operands));
    out.add("%s", operands);
  } else if (command.is_cmd1) {
    out.add(" %lu", static_cast<unsigned long>(command.data));
    if (command.param != 0) out.add(" (param %u)", command.param);
  } else {
    out.add(" %u", command.param);
    if (command.param & 0x8000) out.add(" (%d)", static_cast<int16_t>(command.param));
  }
}

}  // namespace npu_model
}  // namespace pte
