// NPU_OP_DEPTHWISE: like a convolution, but OFM channel c only sees IFM channel c.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

struct Depthwise {
  KernelGeometry geometry;
  const FeatureMap& ofm;
  OfmPrecision output;
  Scale global_scale;
  const OutputStage& stage;
  const KernelWeights& weights;
  // The weights as [ky][kx][c], so a kernel position's weights for all channels are contiguous.
  const int16_t* by_position;
};

template <typename T>
void depthwise(const Depthwise& op, const IfmVolume<T>& volume, int64_t* accumulators) {
  const KernelGeometry& g = op.geometry;
  const Kernel& kernel = g.kernel;
  const int depth = g.ofm.depth;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      for (int c = 0; c < depth; ++c) accumulators[c] = op.weights.scales[c].bias;
      for (int ky = 0; ky < op.weights.layout.kernel_height; ++ky) {
        const int iy = g.window_y(oy) + ky * kernel.dilation_y;
        for (int kx = 0; kx < op.weights.layout.kernel_width; ++kx) {
          const int ix = g.window_x(ox) + kx * kernel.dilation_x;
          if (!volume.contains(iy, ix)) continue;
          const T* input = volume.at(iy, ix);
          const int16_t* weight = op.by_position + static_cast<size_t>(ky * op.weights.layout.kernel_width + kx) * depth;
          for (int c = 0; c < depth; ++c) accumulators[c] += int64_t{input[c]} * weight[c];
        }
      }
      uint8_t* out = op.ofm.pixel(oy, ox);
      for (int c = 0; c < depth; ++c) {
        const Scale scale = op.output.global_scale ? op.global_scale : op.weights.scales[c].scale;
        op.ofm.store(out + op.ofm.channel_offset(c),
                     op.stage.finish(apply_scale(accumulators[c], scale, op.output.round_mode)));
      }
    }
  }
}

}  // namespace

Status run_depthwise(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const int depth = registers.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1;
  const KernelGeometry geometry = kernel_geometry(registers, depth);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, geometry.ofm);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.traversal = WeightTraversal::kDepthwise;
  layout.ofm_depth = depth;
  layout.ifm_depth = 1;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.ifm_bits = ifm.precision().bits;
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights, load_weights(context, layout));
  const int positions = layout.kernel_height * layout.kernel_width;
  PTE_ASSIGN_OR_RETURN(int16_t * by_position,
                       context.scratch.allocate_array<int16_t>(static_cast<size_t>(positions) * depth, "weights"));
  for (int c = 0; c < depth; ++c) {
    for (int k = 0; k < positions; ++k) by_position[static_cast<size_t>(k) * depth + c] = weights.ohwi[c * positions + k];
  }
  PTE_ASSIGN_OR_RETURN(int64_t * accumulators, context.scratch.allocate_array<int64_t>(depth, "accumulators"));
  const Depthwise op{geometry, ofm, ofm_precision(registers), ofm_scale(registers), stage, weights, by_position};
  if (ifm.precision().bits == 8) {
    PTE_ASSIGN_OR_RETURN(const IfmVolume<int16_t> volume, gather_ifm<int16_t>(ifm, geometry.upscale, context.scratch));
    depthwise(op, volume, accumulators);
  } else {
    PTE_ASSIGN_OR_RETURN(const IfmVolume<int32_t> volume, gather_ifm<int32_t>(ifm, geometry.upscale, context.scratch));
    depthwise(op, volume, accumulators);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
