// NPU_OP_POOL on the U55: max or average over the kernel window of each channel, or the sum over the window and
// all IFM channels (reduce-sum writes one OFM channel), zero point removed. Padding is not part of the
// window. The window's result is scaled by OFM_SCALE: for an unpadded average pool Vela folds
// 1/kernel-size into it. When the stripe has padding, windows cover different numbers of IFM elements
// and the NPU divides each average by its own count first (TOSA's reciprocal scale, rounded half up);
// Vela then programs a unit OFM_SCALE.
#include <algorithm>

#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

enum class PoolingMode : uint32_t { kMax = 0, kAverage = 1, kReduceSum = 2 };

// TOSA's reciprocal_scale: multiplier and shift with count * multiplier / 2^shift ~= 1.
Scale reciprocal_scale(int count) {
  int k = 0;
  while ((uint32_t{1} << k) < static_cast<uint32_t>(count)) ++k;  // 2^(k-1) < count <= 2^k
  const int64_t numerator = ((int64_t{1} << 30) + 1) << k;
  return Scale{static_cast<uint32_t>(numerator / count), 30 + k};
}

struct Pooling {
  PoolingMode mode;
  KernelGeometry geometry;
  const FeatureMap& ofm;
  OfmPrecision output;
  Scale global_scale;
  const OutputStage& stage;
  // Reduce-sum adds up all IFM channels into each OFM channel.
  bool reduce_depth;
  bool padded;
};

// Window results for every channel of one OFM pixel: running max or sum, and the number of IFM
// elements the window covered.
template <typename T>
int accumulate_window(const Pooling& op, const IfmVolume<T>& volume, int oy, int ox, int64_t* results) {
  const KernelGeometry& g = op.geometry;
  const Kernel& kernel = g.kernel;
  const int depth = g.ofm.depth;
  for (int c = 0; c < depth; ++c) results[c] = op.mode == PoolingMode::kMax ? INT64_MIN : 0;
  int count = 0;
  for (int ky = 0; ky < kernel.dilated_height; ky += kernel.dilation_y) {
    const int iy = g.window_y(oy) + ky;
    for (int kx = 0; kx < kernel.dilated_width; kx += kernel.dilation_x) {
      const int ix = g.window_x(ox) + kx;
      if (!volume.contains(iy, ix)) continue;
      const T* input = volume.at(iy, ix);
      ++count;
      if (op.reduce_depth) {
        int64_t sum = 0;
        for (int i = 0; i < volume.depth; ++i) sum += input[i];
        for (int c = 0; c < depth; ++c) results[c] += sum;
      } else if (op.mode == PoolingMode::kMax) {
        for (int c = 0; c < depth; ++c) results[c] = std::max(results[c], int64_t{input[c]});
      } else {
        for (int c = 0; c < depth; ++c) results[c] += input[c];
      }
    }
  }
  if (count == 0) {
    for (int c = 0; c < depth; ++c) results[c] = 0;
  }
  return count;
}

template <typename T>
void pool(const Pooling& op, const IfmVolume<T>& volume, int64_t* results) {
  const KernelGeometry& g = op.geometry;
  const Scale scale = op.output.global_scale ? op.global_scale : Scale{1, 0};
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      const int count = accumulate_window(op, volume, oy, ox, results);
      const bool divide = op.mode == PoolingMode::kAverage && op.padded && count > 0;
      const Scale reciprocal = divide ? reciprocal_scale(count) : Scale{1, 0};
      uint8_t* out = op.ofm.pixel(oy, ox);
      for (int c = 0; c < g.ofm.depth; ++c) {
        const int64_t result = divide ? apply_scale(results[c], reciprocal, RoundMode::kNatural) : results[c];
        op.ofm.store(out + op.ofm.channel_offset(c), op.stage.finish(apply_scale(result, scale, op.output.round_mode)));
      }
    }
  }
}

}  // namespace

Status run_pooling(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const auto mode = static_cast<PoolingMode>(bit_field(context.command.param, 0, 3));
  if (mode != PoolingMode::kMax && mode != PoolingMode::kAverage && mode != PoolingMode::kReduceSum) {
    return Status::failure(Error::kDelegateFailed, "unknown pooling mode %lu",
                           static_cast<unsigned long>(context.command.param));
  }
  const int depth = registers.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1;
  const bool reduce_depth = mode == PoolingMode::kReduceSum;
  const KernelGeometry geometry =
      kernel_geometry(registers, reduce_depth ? registers.get(Cmd0::NPU_SET_IFM_DEPTH_M1) + 1 : depth);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, geometry.ofm);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));
  const Padding& pad = geometry.padding;
  const bool padded = pad.top != 0 || pad.left != 0 || pad.bottom != 0 || pad.right != 0;
  const Pooling op{mode, geometry, ofm, ofm_precision(registers), ofm_scale(registers), stage, reduce_depth, padded};
  PTE_ASSIGN_OR_RETURN(int64_t * results, context.scratch.allocate_array<int64_t>(depth, "window results"));
  return with_ifm_volume(ifm, geometry.upscale, context.scratch,
                         [&](const auto& volume) { pool(op, volume, results); });
}

}  // namespace npu_model
}  // namespace pte
