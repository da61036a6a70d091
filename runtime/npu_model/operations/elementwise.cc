// NPU_OP_ELEMENTWISE on the U55: a binary (IFM op IFM2) or unary (op IFM) function per element, zero points
// removed first. IFM2 may be broadcast along height, width or depth, or be a scalar register; when it
// is the operation's first operand (ifm2_first) the operands swap. Add and sub scale their operands:
// in 16-bit mode each is multiplied by its OPA/OPB multiplier; in 32-bit mode one operand is rescaled
// by OPA_SCALE (with the IFM round mode) and the other keeps a fixed weight. The result is then scaled
// by OFM_SCALE when the OFM scale is global, except for leaky ReLU, whose OFM_SCALE is its slope.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

enum class ElementwiseMode : uint32_t {
  kMul = 0,
  kAdd = 1,
  kSub = 2,
  kMin = 3,
  kMax = 4,
  kLeakyRelu = 5,
  kAbs = 6,
  kClz = 7,
  kShr = 8,
  kShl = 9,
};

bool is_unary(ElementwiseMode mode) {
  return mode == ElementwiseMode::kAbs || mode == ElementwiseMode::kClz || mode == ElementwiseMode::kLeakyRelu;
}

// In 32-bit scale mode the operand OPA_SCALE does not rescale is weighted by 2^19 (8-bit inputs) or
// 2^14 (16-bit), the half of the input shift (20 or 15) that TFLite-style add/sub applies to the
// operand with the larger scale.
int64_t unscaled_operand_weight(int ifm_bits) { return ifm_bits == 8 ? int64_t{1} << 19 : int64_t{1} << 14; }

int64_t count_leading_zeros(int64_t value) {
  uint32_t bits = static_cast<uint32_t>(value);
  int64_t count = 0;
  for (uint32_t mask = 0x80000000u; mask != 0 && (bits & mask) == 0; mask >>= 1) ++count;
  return count;
}

struct Operands {
  IfmPrecision ifm;
  Scale opa;
  Scale opb;
};

int64_t add_or_subtract(ElementwiseMode mode, int64_t a, int64_t b, const Operands& operands) {
  switch (operands.ifm.scale_mode) {
    case IfmScaleMode::kOperandA32:
      a = apply_scale(a, operands.opa, operands.ifm.round_mode);
      b *= unscaled_operand_weight(operands.ifm.precision.bits);
      break;
    case IfmScaleMode::kOperandB32:
      b = apply_scale(b, operands.opa, operands.ifm.round_mode);
      a *= unscaled_operand_weight(operands.ifm.precision.bits);
      break;
    case IfmScaleMode::kBoth16:
    default:
      a *= operands.opa.multiplier;
      b *= operands.opb.multiplier;
      break;
  }
  return mode == ElementwiseMode::kAdd ? a + b : a - b;
}

}  // namespace

Status run_elementwise(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const auto mode = static_cast<ElementwiseMode>(bit_field(context.command.param, 0, 6));
  if (static_cast<uint32_t>(mode) > static_cast<uint32_t>(ElementwiseMode::kShl)) {
    return Status::failure(Error::kDelegateFailed, "unknown elementwise mode %lu",
                           static_cast<unsigned long>(context.command.param));
  }
  const Extent extent{registers.get(Cmd0::NPU_SET_OFM_HEIGHT_M1) + 1, registers.get(Cmd0::NPU_SET_OFM_WIDTH_M1) + 1,
                      registers.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1};
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, extent);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, extent);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));

  const bool binary = !is_unary(mode);
  const Ifm2Broadcast broadcast = ifm2_broadcast(registers);
  const Extent ifm2_extent{broadcast.height ? 1 : extent.height, broadcast.width ? 1 : extent.width,
                           broadcast.depth ? 1 : extent.depth};
  FeatureMap ifm2 = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm2, ifm2_extent);
  const bool scalar = binary && broadcast.scalar;
  if (binary && !scalar) PTE_RETURN_IF_ERROR(ifm2.bind(context.memory));
  const int64_t scalar_value = (ifm2.precision().is_signed ? registers.get_signed(Cmd0::NPU_SET_IFM2_SCALAR)
                                                           : registers.get(Cmd0::NPU_SET_IFM2_SCALAR)) -
                               ifm2.zero_point();

  const OfmPrecision output = ofm_precision(registers);
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));
  const Operands operands{ifm_precision(registers), opa_scale(registers), opb_scale(registers)};
  const Scale global = ofm_scale(registers);
  const Scale unit{1, 0};

  for (int y = 0; y < extent.height; ++y) {
    for (int x = 0; x < extent.width; ++x) {
      for (int c = 0; c < extent.depth; ++c) {
        int64_t first = ifm.read(y, x, c) - ifm.zero_point();
        int64_t second = 0;
        if (binary) {
          second = scalar ? scalar_value
                          : ifm2.read(broadcast.height ? 0 : y, broadcast.width ? 0 : x, broadcast.depth ? 0 : c) -
                                ifm2.zero_point();
          if (broadcast.ifm2_first) {
            const int64_t swapped = first;
            first = second;
            second = swapped;
          }
        }
        int64_t result = 0;
        Scale scale = output.global_scale ? global : unit;
        switch (mode) {
          case ElementwiseMode::kAdd:
          case ElementwiseMode::kSub:
            result = add_or_subtract(mode, first, second, operands);
            break;
          case ElementwiseMode::kMul:
            result = first * second;
            break;
          case ElementwiseMode::kMin:
            result = first < second ? first : second;
            break;
          case ElementwiseMode::kMax:
            result = first > second ? first : second;
            break;
          case ElementwiseMode::kAbs:
            result = first < 0 ? -first : first;
            break;
          case ElementwiseMode::kClz:
            result = count_leading_zeros(first);
            break;
          case ElementwiseMode::kShl:
            result = static_cast<int64_t>(static_cast<uint64_t>(first) << (second & 31));
            break;
          case ElementwiseMode::kShr:
            result = apply_scale(first, Scale{1, static_cast<int>(second & 31)}, operands.ifm.round_mode);
            break;
          case ElementwiseMode::kLeakyRelu:
            result = first < 0 ? apply_scale(first, global, output.round_mode) : first;
            scale = unit;
            break;
        }
        ofm.write(y, x, c, stage.finish(apply_scale(result, scale, output.round_mode)));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
