// NPU_OP_CONV: acc = bias + sum over the kernel window and IFM depth of (ifm - ifm_zero_point) * weight,
// then the channel's multiplier and shift (the OFM round mode), then the output stage.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {

Status run_convolution(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const KernelGeometry geometry = kernel_geometry(registers, registers.get(Cmd0::NPU_SET_IFM_DEPTH_M1) + 1);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, geometry.ofm);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));
  const OfmPrecision output = ofm_precision(registers);
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
  PTE_ASSIGN_OR_RETURN(const IfmVolume volume, gather_ifm(ifm, geometry.upscale, context.scratch));
  PTE_ASSIGN_OR_RETURN(int64_t * accumulators,
                       context.scratch.allocate_array<int64_t>(static_cast<size_t>(geometry.ofm.depth), "accumulators"));

  const Scale global = ofm_scale(registers);
  const int depth = volume.depth;
  for (int oy = 0; oy < geometry.ofm.height; ++oy) {
    for (int ox = 0; ox < geometry.ofm.width; ++ox) {
      for (int o = 0; o < geometry.ofm.depth; ++o) accumulators[o] = weights.scales[o].bias;
      for (int ky = 0; ky < layout.kernel_height; ++ky) {
        const int iy = oy * kernel.stride_y - geometry.padding.top + ky * kernel.dilation_y;
        for (int kx = 0; kx < layout.kernel_width; ++kx) {
          const int ix = ox * kernel.stride_x - geometry.padding.left + kx * kernel.dilation_x;
          if (!volume.contains(iy, ix)) continue;  // padding contributes the zero point, i.e. nothing
          const int32_t* input = volume.at(iy, ix);
          for (int o = 0; o < geometry.ofm.depth; ++o) {
            const int16_t* filter = weights.filter(o, ky, kx);
            int64_t sum = 0;
            for (int i = 0; i < depth; ++i) sum += static_cast<int64_t>(input[i]) * filter[i];
            accumulators[o] += sum;
          }
        }
      }
      for (int o = 0; o < geometry.ofm.depth; ++o) {
        const Scale scale = output.global_scale ? global : weights.scales[o].scale;
        ofm.write(oy, ox, o, stage.finish(apply_scale(accumulators[o], scale, output.round_mode)));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
