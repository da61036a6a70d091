// NPU_OP_POOL: max or average over the kernel window of each channel, or the sum over the window and
// all IFM channels (reduce-sum writes one OFM channel), zero point removed. Padding is not part of the
// window. The window's result is scaled by OFM_SCALE: for an unpadded average pool Vela folds
// 1/kernel-size into it. When the stripe has padding, windows cover different numbers of IFM elements
// and the NPU divides each average by its own count first (TOSA's reciprocal scale, rounded half up);
// Vela then programs a unit OFM_SCALE.
#include <algorithm>

#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
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
  const OfmPrecision output = ofm_precision(registers);
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));
  PTE_ASSIGN_OR_RETURN(const IfmVolume volume, gather_ifm(ifm, geometry.upscale, context.scratch));

  const Kernel& kernel = geometry.kernel;
  const Padding& pad = geometry.padding;
  const bool padded = pad.top != 0 || pad.left != 0 || pad.bottom != 0 || pad.right != 0;
  const Scale global = ofm_scale(registers);
  for (int oy = 0; oy < geometry.ofm.height; ++oy) {
    for (int ox = 0; ox < geometry.ofm.width; ++ox) {
      for (int c = 0; c < depth; ++c) {
        int64_t result = mode == PoolingMode::kMax ? INT64_MIN : 0;
        int count = 0;
        for (int ky = 0; ky < kernel.dilated_height; ky += kernel.dilation_y) {
          const int iy = oy * kernel.stride_y - geometry.padding.top + ky;
          for (int kx = 0; kx < kernel.dilated_width; kx += kernel.dilation_x) {
            const int ix = ox * kernel.stride_x - geometry.padding.left + kx;
            if (!volume.contains(iy, ix)) continue;
            const int32_t* input = volume.at(iy, ix);
            if (reduce_depth) {
              for (int i = 0; i < volume.depth; ++i) result += input[i];
            } else {
              result = mode == PoolingMode::kMax ? std::max(result, int64_t{input[c]}) : result + input[c];
            }
            ++count;
          }
        }
        if (count == 0) result = 0;
        if (mode == PoolingMode::kAverage && padded && count > 0) {
          result = apply_scale(result, reciprocal_scale(count), RoundMode::kNatural);
        }
        const Scale scale = output.global_scale ? global : Scale{1, 0};
        ofm.write(oy, ox, c, stage.finish(apply_scale(result, scale, output.round_mode)));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
