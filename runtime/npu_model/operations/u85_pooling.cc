// NPU_OP_POOL on the U85: per channel, the window's max, min, sum or average (the NPU divides by the
// number of IFM elements the window covers, with TOSA's reciprocal scale), the sum over the window and
// all IFM channels (reduce-sum), or the IFM as it is (none); then OFM_SCALE. Accumulators may start
// from IFM2 (how Vela passes 32-bit tensors through a pool); a per-channel OFM scale takes each
// channel's bias and multiplier from the scale stream. Arg-max (along X or Y) finds each channel's
// first maximum in the window (see arg_max).
#include <algorithm>

#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

enum class PoolingMode : uint32_t {
  kMax = 0,
  kAverage = 1,
  kReduceSum = 2,
  kSum = 3,
  kNone = 4,
  kMin = 5,
  kArgMaxX = 6,
  kArgMaxY = 7,
};

// TOSA's reciprocal_scale: multiplier and shift with count * multiplier / 2^shift ~= 1.
Scale reciprocal_scale(int count) {
  int k = 0;
  while ((uint32_t{1} << k) < static_cast<uint32_t>(count)) ++k;
  const int64_t numerator = ((int64_t{1} << 30) + 1) << k;
  return Scale{static_cast<uint32_t>(numerator / count), 30 + k};
}

struct Pooling {
  PoolingMode mode;
  KernelGeometry geometry;
  const U85Output& output;
  // IFM2 holds the accumulators' starting values (nullptr: they start at zero).
  const FeatureMap* start;
  // Per-channel bias and scale (nullptr: OFM_SCALE for every channel).
  const ChannelScale* channel_scales;
};

template <typename T>
void pool(const Pooling& op, const IfmVolume<T>& volume) {
  const KernelGeometry& g = op.geometry;
  const Kernel& kernel = g.kernel;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      for (int c = 0; c < g.ofm.depth; ++c) {
        int64_t result = op.mode == PoolingMode::kMax ? INT64_MIN : (op.mode == PoolingMode::kMin ? INT64_MAX : 0);
        int count = 0;
        for (int ky = 0; ky < kernel.dilated_height; ky += kernel.dilation_y) {
          const int iy = g.window_y(oy) + ky;
          for (int kx = 0; kx < kernel.dilated_width; kx += kernel.dilation_x) {
            const int ix = g.window_x(ox) + kx;
            if (!volume.contains(iy, ix)) continue;
            const T* input = volume.at(iy, ix);
            ++count;
            switch (op.mode) {
              case PoolingMode::kMax:
                result = std::max(result, int64_t{input[c]});
                break;
              case PoolingMode::kMin:
                result = std::min(result, int64_t{input[c]});
                break;
              case PoolingMode::kReduceSum:
                for (int i = 0; i < volume.depth; ++i) result += input[i];
                break;
              case PoolingMode::kNone:
              case PoolingMode::kArgMaxX:  // arg_max
              case PoolingMode::kArgMaxY:
                break;
              case PoolingMode::kAverage:
              case PoolingMode::kSum:
                result += input[c];
                break;
            }
          }
        }
        if (count == 0 && (op.mode == PoolingMode::kMax || op.mode == PoolingMode::kMin)) result = 0;
        if (op.mode == PoolingMode::kAverage && count > 0) {
          result = apply_scale(result, reciprocal_scale(count), RoundMode::kNatural);
        }
        if (op.start != nullptr) result += op.start->read(oy, ox, c) - op.start->zero_point();
        if (op.channel_scales != nullptr) {
          op.output.store(oy, ox, c, result + op.channel_scales[c].bias, op.channel_scales[c].scale);
        } else {
          op.output.store(oy, ox, c, result);
        }
      }
    }
  }
}

// Arg-max keeps, per channel, the window position of the first maximum along X (ARGMAX_X) or Y
// (ARGMAX_Y), counted in kernel elements from the window's first column or row. The accumulator packs
// that position above a 16-bit copy of the maximum (IFMs are at most 16 bits wide); Vela's OFM_SCALE
// for arg-max (multiplier 1, shift 16, rounding down) keeps only the position, which is TOSA ARGMAX's
// int32 index: Vela makes one window span the whole reduced axis, without padding. Ties keep the first
// position, as TOSA does.
template <typename T>
void arg_max(const Pooling& op, const IfmVolume<T>& volume) {
  const KernelGeometry& g = op.geometry;
  const Kernel& kernel = g.kernel;
  const bool along_y = op.mode == PoolingMode::kArgMaxY;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      for (int c = 0; c < g.ofm.depth; ++c) {
        int64_t maximum = INT64_MIN;
        int64_t position = 0;
        for (int ky = 0; ky < kernel.dilated_height; ky += kernel.dilation_y) {
          const int iy = g.window_y(oy) + ky;
          for (int kx = 0; kx < kernel.dilated_width; kx += kernel.dilation_x) {
            const int ix = g.window_x(ox) + kx;
            if (!volume.contains(iy, ix)) continue;
            const int64_t value = volume.at(iy, ix)[c];
            if (value > maximum) {
              maximum = value;
              position = along_y ? ky / kernel.dilation_y : kx / kernel.dilation_x;
            }
          }
        }
        if (maximum == INT64_MIN) maximum = 0;
        const int64_t packed = position * 65536 + (maximum & 0xFFFF);
        op.output.store(oy, ox, c, packed);
      }
    }
  }
}

bool is_arg_max(PoolingMode mode) { return mode == PoolingMode::kArgMaxX || mode == PoolingMode::kArgMaxY; }

}  // namespace

Status run_u85_pooling(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const auto mode = static_cast<PoolingMode>(bit_field(context.command.param, 0, 3));
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  const bool from_ifm2 = u85::acc_format(registers).input == u85::AccumulatorInput::kIfm2;
  if (is_arg_max(mode) && (from_ifm2 || !output.global_scale())) {
    // Vela gives arg-max neither: its OFM scale only separates the position from the maximum.
    return Status::failure(Error::kNotSupported,
                           "arg-max with accumulators from IFM2 or a per-channel OFM scale is not modelled");
  }
  const Extent& extent = output.extent();
  const bool reduce_depth = mode == PoolingMode::kReduceSum;
  const KernelGeometry geometry =
      kernel_geometry(registers, reduce_depth ? registers.get(u85::Cmd0::NPU_SET_IFM_DEPTH_M1) + 1 : extent.depth);
  FeatureMap start_values = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm2, extent);
  if (from_ifm2) PTE_RETURN_IF_ERROR(bind_u85_input(context, start_values, u85::ifm2_storage(registers)));
  const ChannelScale* channel_scales = nullptr;
  if (!output.global_scale()) {
    PTE_ASSIGN_OR_RETURN(channel_scales, load_scales(context, extent.depth,
                                                     u85::acc_format(registers).wide ? ScaleEntryFormat::kU85Bias48
                                                                                     : ScaleEntryFormat::kU85Bias32));
  }
  const Pooling op{mode, geometry, output, from_ifm2 ? &start_values : nullptr, channel_scales};
  if (mode == PoolingMode::kNone) {
    // Nothing is read from the IFM (Vela points it at a dummy): each result is its starting value.
    PTE_RETURN_IF_ERROR(output.bind(context));
    const IfmVolume<int32_t> nothing{0, 0, 0, nullptr};
    pool(op, nothing);
    return Status();
  }
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm, u85::ifm_storage(registers)));
  return with_ifm_volume(ifm, geometry.upscale, context.scratch, [&](const auto& volume) -> Status {
    // The volume is gathered before the OFM may replace a chaining buffer it came from.
    PTE_RETURN_IF_ERROR(output.bind(context));
    if (is_arg_max(mode)) {
      arg_max(op, volume);
    } else {
      pool(op, volume);
    }
    return Status();
  });
}

}  // namespace npu_model
}  // namespace pte
