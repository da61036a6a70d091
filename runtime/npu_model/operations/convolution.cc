// NPU_OP_CONV: acc = bias + sum over the kernel window and IFM depth of (ifm - ifm_zero_point) * weight,
// then the channel's multiplier and shift (the OFM round mode), then the output stage.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/kernel_math.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

struct Convolution {
  KernelGeometry geometry;
  const FeatureMap& ofm;
  OfmPrecision output;
  Scale global_scale;
  const OutputStage& stage;
  const KernelWeights& weights;
};

template <typename T>
void convolve(const Convolution& op, const IfmVolume<T>& volume) {
  const KernelGeometry& g = op.geometry;
  const Kernel& kernel = g.kernel;
  const WeightLayout& layout = op.weights.layout;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      uint8_t* out = op.ofm.pixel(oy, ox);
      for (int o = 0; o < g.ofm.depth; ++o) {
        int64_t accumulator = op.weights.scales[o].bias;
        for (int ky = 0; ky < layout.kernel_height; ++ky) {
          const int iy = g.window_y(oy) + ky * kernel.dilation_y;
          for (int kx = 0; kx < layout.kernel_width; ++kx) {
            const int ix = g.window_x(ox) + kx * kernel.dilation_x;
            if (!volume.contains(iy, ix)) continue;  // padding holds the zero point: it adds nothing
            accumulator += dot(volume.at(iy, ix), op.weights.filter(o, ky, kx), volume.depth);
          }
        }
        const Scale scale = op.output.global_scale ? op.global_scale : op.weights.scales[o].scale;
        op.ofm.store(out + op.ofm.channel_offset(o), op.stage.finish(apply_scale(accumulator, scale, op.output.round_mode)));
      }
    }
  }
}

}  // namespace

Status run_convolution(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const KernelGeometry geometry = kernel_geometry(registers, registers.get(Cmd0::NPU_SET_IFM_DEPTH_M1) + 1);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, geometry.ofm);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.traversal = kernel.part_kernel_first ? WeightTraversal::kPartKernelFirst : WeightTraversal::kDepthFirst;
  layout.ofm_depth = geometry.ofm.depth;
  layout.ifm_depth = geometry.ifm.depth;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.ifm_bits = ifm.precision().bits;
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights, load_weights(context, layout));
  const Convolution op{geometry, ofm, ofm_precision(registers), ofm_scale(registers), stage, weights};
  if (ifm.precision().bits == 8) {
    PTE_ASSIGN_OR_RETURN(const IfmVolume<int16_t> volume, gather_ifm<int16_t>(ifm, geometry.upscale, context.scratch));
    convolve(op, volume);
  } else {
    PTE_ASSIGN_OR_RETURN(const IfmVolume<int32_t> volume, gather_ifm<int32_t>(ifm, geometry.upscale, context.scratch));
    convolve(op, volume);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
