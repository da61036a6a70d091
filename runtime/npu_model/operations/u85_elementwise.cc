// NPU_OP_ELEMENTWISE on the U85. Each operand (IFM, IFM2) is broadcast along the axes its broadcast
// register names, or is the OP_SCALAR register; its zero point is removed and, for arithmetic, it is
// rescaled by its own IFM_SCALE/IFM2_SCALE. The result is scaled by OFM_SCALE (leaky ReLU instead
// scales each side of zero by its own input scale; shifts round by OFM_SCALE's round mode).
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

enum class Mode : uint32_t {
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
  kLsr = 10,
  kDiv = 11,
  kCmpEq = 16,
  kCmpNe = 17,
  kCmpGe = 18,
  kCmpGt = 19,
  kAnd = 33,
  kOr = 34,
  kXor = 35,
  kNot = 36,
  kAndNot = 42,
};

// Comparisons produce all ones for true, so that AND/AND_NOT with the result selects (Vela builds
// TOSA's SELECT that way).
constexpr int64_t kTrue = -1;

bool known(uint32_t mode) {
  return mode <= 11 || (mode >= 16 && mode <= 19) || (mode >= 33 && mode <= 36) || mode == 42;
}

bool unary(Mode mode) {
  return mode == Mode::kAbs || mode == Mode::kClz || mode == Mode::kLeakyRelu || mode == Mode::kNot;
}

// Operands rescaled by their input scales before the operation. The bitwise operations are among them:
// Vela folds a RESCALE that feeds SELECT into the IFM scale of the AND_NOT it builds SELECT from (int16
// SELECTs after an int16 comparison), and its streams set identity scales for every other bitwise use.
bool rescales_operands(Mode mode) {
  return mode == Mode::kAdd || mode == Mode::kSub || mode == Mode::kMul || mode == Mode::kMin || mode == Mode::kMax ||
         mode == Mode::kAbs || mode == Mode::kDiv || (mode >= Mode::kCmpEq && mode <= Mode::kCmpGt) || mode == Mode::kAnd ||
         mode == Mode::kOr || mode == Mode::kXor || mode == Mode::kAndNot;
}

// An operand: a broadcast feature map or a scalar.
struct Operand {
  FeatureMap map;
  u85::Broadcast broadcast;
  int64_t scalar;
  u85::ScaleRegister scale;

  int64_t at(int y, int x, int c) const {
    if (broadcast.scalar) return scalar;
    return map.read(broadcast.height ? 0 : y, broadcast.width ? 0 : x, broadcast.depth ? 0 : c) - map.zero_point();
  }
  int64_t rescaled(int64_t value) const {
    return apply_scale(value, scale.scale, scale.round_mode, scale.double_round);
  }
};

Status bind_operand(const OperationContext& context, FeatureMapSlot slot, u85::Broadcast broadcast,
                    u85::ScaleRegister scale, const Extent& extent, Operand* operand) {
  const Extent operand_extent{broadcast.height ? 1 : extent.height, broadcast.width ? 1 : extent.width,
                              broadcast.depth ? 1 : extent.depth};
  operand->map = FeatureMap::from_registers(context.registers, slot, operand_extent);
  operand->broadcast = broadcast;
  operand->scale = scale;
  const u85::Storage storage =
      slot == FeatureMapSlot::kIfm ? u85::ifm_storage(context.registers) : u85::ifm2_storage(context.registers);
  const int64_t scalar_bits = static_cast<int32_t>(context.registers.data(u85::Cmd1::NPU_SET_OP_SCALAR));
  operand->scalar = scalar_bits - operand->map.zero_point();
  return broadcast.scalar ? Status() : bind_u85_input(context, operand->map, storage);
}

int64_t count_leading_zeros(int64_t value) {
  uint32_t bits = static_cast<uint32_t>(value);
  int64_t count = 0;
  for (uint32_t mask = 0x80000000u; mask != 0 && (bits & mask) == 0; mask >>= 1) ++count;
  return count;
}

}  // namespace

Status run_u85_elementwise(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const uint32_t raw_mode = bit_field(context.command.param, 0, 6);
  if (!known(raw_mode)) {
    return Status::failure(Error::kNotSupported, "elementwise mode %lu is not modelled", static_cast<unsigned long>(raw_mode));
  }
  const auto mode = static_cast<Mode>(raw_mode);
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  const Extent& extent = output.extent();
  Operand a, b;
  PTE_RETURN_IF_ERROR(bind_operand(context, FeatureMapSlot::kIfm, u85::ifm_broadcast(registers),
                                   u85::ifm_scale_register(registers), extent, &a));
  if (!unary(mode) || mode == Mode::kLeakyRelu) {
    // Leaky ReLU's IFM2 scale is its negative slope; it reads no IFM2.
    const u85::Broadcast broadcast = mode == Mode::kLeakyRelu ? u85::Broadcast{false, false, false, true}
                                                              : u85::ifm2_broadcast(registers);
    PTE_RETURN_IF_ERROR(bind_operand(context, FeatureMapSlot::kIfm2, broadcast, u85::ifm2_scale_register(registers),
                                     extent, &b));
  }
  PTE_RETURN_IF_ERROR(output.bind(context));
  const bool rescale = rescales_operands(mode);
  const Scale unit{1, 0};
  for (int y = 0; y < extent.height; ++y) {
    for (int x = 0; x < extent.width; ++x) {
      for (int c = 0; c < extent.depth; ++c) {
        int64_t first = a.at(y, x, c);
        int64_t second = unary(mode) ? 0 : b.at(y, x, c);
        if (rescale) {
          first = a.rescaled(first);
          second = unary(mode) ? 0 : b.rescaled(second);
        }
        int64_t result = 0;
        Scale scale = output.scale().scale;
        switch (mode) {
          case Mode::kAdd:
            result = first + second;
            break;
          case Mode::kSub:
            result = first - second;
            break;
          case Mode::kMul:
            result = first * second;
            break;
          case Mode::kMin:
            result = first < second ? first : second;
            break;
          case Mode::kMax:
            result = first > second ? first : second;
            break;
          case Mode::kAbs:
            result = first < 0 ? -first : first;
            break;
          case Mode::kClz:
            result = count_leading_zeros(first);
            break;
          case Mode::kLeakyRelu:
            result = first < 0 ? b.rescaled(first) : a.rescaled(first);
            scale = unit;
            break;
          case Mode::kShr:
            result = apply_scale(first, Scale{1, static_cast<int>(second & 31)}, output.scale().round_mode);
            scale = unit;
            break;
          case Mode::kShl:
            result = static_cast<int32_t>(static_cast<uint32_t>(first) << (second & 31));
            break;
          case Mode::kLsr:
            result = static_cast<uint32_t>(first) >> (second & 31);
            break;
          case Mode::kDiv:
            // TOSA INTDIV (Vela's only use of the mode): rounds towards zero, as C++ does. A zero
            // divisor is unpredictable in TOSA, so the model stops instead of inventing a value.
            if (second == 0) {
              return Status::failure(Error::kDelegateFailed, "NPU_OP_ELEMENTWISE DIV by zero at (%d, %d, %d)", y, x, c);
            }
            result = first / second;
            break;
          case Mode::kCmpEq:
            result = first == second ? kTrue : 0;
            break;
          case Mode::kCmpNe:
            result = first != second ? kTrue : 0;
            break;
          case Mode::kCmpGe:
            result = first >= second ? kTrue : 0;
            break;
          case Mode::kCmpGt:
            result = first > second ? kTrue : 0;
            break;
          case Mode::kAnd:
            result = first & second;
            break;
          case Mode::kOr:
            result = first | second;
            break;
          case Mode::kXor:
            result = first ^ second;
            break;
          case Mode::kNot:
            result = ~first;
            break;
          case Mode::kAndNot:
            result = first & ~second;
            break;
        }
        output.store(y, x, c, result, scale);
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
