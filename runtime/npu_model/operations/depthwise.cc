// NPU_OP_DEPTHWISE: like a convolution, but OFM channel c only sees IFM channel c.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/output_stage.h"
#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {

Status run_depthwise(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const int depth = registers.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1;
  const KernelGeometry geometry = kernel_geometry(registers, depth);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  FeatureMap ofm = FeatureMap::from_registers(registers, FeatureMapSlot::kOfm, geometry.ofm);
  PTE_RETURN_IF_ERROR(ifm.bind(context.memory));
  PTE_RETURN_IF_ERROR(ofm.bind(context.memory));
  const OfmPrecision output = ofm_precision(registers);
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
  PTE_ASSIGN_OR_RETURN(const IfmVolume volume, gather_ifm(ifm, geometry.upscale, context.scratch));

  const Scale global = ofm_scale(registers);
  for (int oy = 0; oy < geometry.ofm.height; ++oy) {
    for (int ox = 0; ox < geometry.ofm.width; ++ox) {
      for (int c = 0; c < depth; ++c) {
        int64_t accumulator = weights.scales[c].bias;
        for (int ky = 0; ky < layout.kernel_height; ++ky) {
          const int iy = oy * kernel.stride_y - geometry.padding.top + ky * kernel.dilation_y;
          for (int kx = 0; kx < layout.kernel_width; ++kx) {
            const int ix = ox * kernel.stride_x - geometry.padding.left + kx * kernel.dilation_x;
            if (!volume.contains(iy, ix)) continue;
            accumulator += static_cast<int64_t>(volume.at(iy, ix)[c]) * weights.filter(c, ky, kx)[0];
          }
        }
        const Scale scale = output.global_scale ? global : weights.scales[c].scale;
        ofm.write(oy, ox, c, stage.finish(apply_scale(accumulator, scale, output.round_mode)));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
