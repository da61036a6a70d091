// NPU_OP_CONV on the U55: the convolution's accumulators, then the channel's multiplier and shift (the
// OFM round mode), then the output stage.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/operations.h"
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
  PTE_ASSIGN_OR_RETURN(const OutputStage stage, OutputStage::create(context, ofm));

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.generation = NpuProduct::kEthosU55;
  layout.traversal = kernel.part_kernel_first ? WeightTraversal::kPartKernelFirst : WeightTraversal::kDepthFirst;
  layout.ofm_depth = geometry.ofm.depth;
  layout.ifm_depth = geometry.ifm.depth;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.ifm_bits = ifm.precision().bits;
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights,
                       load_weights(context, layout, WeightEncoding{false, ScaleEntryFormat::kU55}));
  const OfmPrecision output = ofm_precision(registers);
  const Scale global = ofm_scale(registers);
  auto store = [&](int oy, int ox, int o, int64_t accumulator) {
    const Scale scale = output.global_scale ? global : weights.scales[o].scale;
    ofm.store(ofm.pixel(oy, ox) + ofm.channel_offset(o), stage.finish(apply_scale(accumulator, scale, output.round_mode)));
  };
  return with_ifm_volume(ifm, geometry.upscale, context.scratch,
                         [&](const auto& volume) { convolve(geometry, volume, weights, store); });
}

}  // namespace npu_model
}  // namespace pte
