// NPU_OP_DEPTHWISE on the U55: like a convolution, but OFM channel c only sees IFM channel c.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/operations.h"
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
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.generation = NpuProduct::kEthosU55;
  layout.traversal = WeightTraversal::kDepthwise;
  layout.ofm_depth = depth;
  layout.ifm_depth = 1;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.ifm_bits = ifm.precision().bits;
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights,
                       load_weights(context, layout, WeightEncoding{false, ScaleEntryFormat::kU55}));
  PTE_ASSIGN_OR_RETURN(const int16_t* by_position, weights_by_position(weights, context.scratch));
  PTE_ASSIGN_OR_RETURN(int64_t * accumulators, context.scratch.allocate_array<int64_t>(depth, "accumulators"));
  const OfmPrecision output = ofm_precision(registers);
  const Scale global = ofm_scale(registers);
  auto store = [&](int oy, int ox, int c, int64_t accumulator) {
    const Scale scale = output.global_scale ? global : weights.scales[c].scale;
    ofm.store(ofm.pixel(oy, ox) + ofm.channel_offset(c), stage.finish(apply_scale(accumulator, scale, output.round_mode)));
  };
  return with_ifm_volume(ifm, geometry.upscale, context.scratch, [&](const auto& volume) {
    depthwise_convolve(geometry, volume, weights, by_position, accumulators, store);
  });
}

}  // namespace npu_model
}  // namespace pte
