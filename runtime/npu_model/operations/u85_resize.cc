// NPU_OP_RESIZE on the U85: TOSA's RESIZE. Output (oy, ox) samples the IFM at
// y = oy * step_y + offset_y (in units of 1/denominator_y, likewise x), clamped to the IFM, which the
// kernel size registers give. Nearest picks the closer neighbour (ties up), replicate the one below;
// bilinear weighs the four neighbours by (denominator - fraction) and fraction per axis, unnormalised.
// The result carries 16 fractional bits, which OFM_SCALE's shift (16 + the graph's rescale) removes.
#include <algorithm>

#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"

namespace pte {
namespace npu_model {
namespace {

enum class ResizeMode : uint32_t { kBilinear = 0, kReplicate = 1, kNearest = 2 };

constexpr int kFractionBits = 16;

// Floor division for a positive divisor.
int floor_divide(int value, int divisor) { return value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor); }

// Where output position `o` samples: the lower neighbour (unclamped), the fraction above it.
struct Sample {
  int index;
  int fraction;
};

Sample sample(const u85::ResizeAxis& axis, int o) {
  const int position = o * axis.step + axis.offset;
  const int index = floor_divide(position, axis.denominator);
  return Sample{index, position - index * axis.denominator};
}

}  // namespace

Status run_u85_resize(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const auto mode = static_cast<ResizeMode>(bit_field(context.command.param, 0, 2));
  if (mode != ResizeMode::kBilinear && mode != ResizeMode::kReplicate && mode != ResizeMode::kNearest) {
    return Status::failure(Error::kDelegateFailed, "unknown resize mode %lu",
                           static_cast<unsigned long>(context.command.param));
  }
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  const Extent& extent = output.extent();
  const Extent ifm_extent{registers.get(u85::Cmd0::NPU_SET_KERNEL_HEIGHT_M1) + 1,
                          registers.get(u85::Cmd0::NPU_SET_KERNEL_WIDTH_M1) + 1, extent.depth};
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, ifm_extent);
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm, u85::ifm_storage(registers)));
  PTE_RETURN_IF_ERROR(output.bind(context));
  const u85::ResizeAxis x_axis = u85::resize_x(registers);
  const u85::ResizeAxis y_axis = u85::resize_y(registers);
  auto value = [&](int y, int x, int c) { return ifm.read(y, x, c) - ifm.zero_point(); };
  for (int oy = 0; oy < extent.height; ++oy) {
    const Sample sy = sample(y_axis, oy);
    const int y0 = std::max(sy.index, 0);
    const int y1 = std::min(sy.index + 1, ifm_extent.height - 1);
    for (int ox = 0; ox < extent.width; ++ox) {
      const Sample sx = sample(x_axis, ox);
      const int x0 = std::max(sx.index, 0);
      const int x1 = std::min(sx.index + 1, ifm_extent.width - 1);
      for (int c = 0; c < extent.depth; ++c) {
        int64_t result = 0;
        switch (mode) {
          case ResizeMode::kNearest:
            result = value(sy.fraction >= y_axis.denominator / 2 ? y1 : y0,
                           sx.fraction >= x_axis.denominator / 2 ? x1 : x0, c);
            break;
          case ResizeMode::kReplicate:
            result = value(y0, x0, c);
            break;
          case ResizeMode::kBilinear: {
            const int64_t wy1 = sy.fraction, wy0 = y_axis.denominator - sy.fraction;
            const int64_t wx1 = sx.fraction, wx0 = x_axis.denominator - sx.fraction;
            result = value(y0, x0, c) * wy0 * wx0 + value(y0, x1, c) * wy0 * wx1 + value(y1, x0, c) * wy1 * wx0 +
                     value(y1, x1, c) * wy1 * wx1;
            break;
          }
        }
        output.store(oy, ox, c, result * (int64_t{1} << kFractionBits));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
