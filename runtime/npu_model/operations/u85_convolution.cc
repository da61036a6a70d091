// NPU_OP_CONV on the U85: the convolution's accumulators, scaled by each channel's multiplier and
// shift with OFM_SCALE's rounding. With weights_ifm2 set (Vela's matrix multiplications) a 1x1
// kernel's weights come from IFM2 instead — weight (o, i) at IFM2 column o, channel i, its zero point
// removed — with no bias and OFM_SCALE for every channel. Accumulators that start from IFM2 or a
// previous operation are not modelled.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"

namespace pte {
namespace npu_model {

namespace {

// Dense weights of a 1x1 kernel read from IFM2, and unit channel entries.
Result<KernelWeights> weights_from_ifm2(const OperationContext& context, const KernelGeometry& geometry,
                                        const Scale& scale) {
  const RegisterFile& registers = context.registers;
  if (geometry.kernel.dilated_width != 1 || geometry.kernel.dilated_height != 1) {
    return Status::failure(Error::kNotSupported, "weights from IFM2 for a %dx%d kernel are not modelled",
                           geometry.kernel.dilated_height, geometry.kernel.dilated_width);
  }
  FeatureMap ifm2 = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm2,
                                               Extent{1, geometry.ofm.depth, geometry.ifm.depth});
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm2, u85::ifm2_storage(registers)));
  WeightLayout layout = {};
  layout.generation = NpuProduct::kEthosU85;
  layout.ofm_depth = geometry.ofm.depth;
  layout.ifm_depth = geometry.ifm.depth;
  layout.kernel_height = 1;
  layout.kernel_width = 1;
  PTE_ASSIGN_OR_RETURN(int16_t * ohwi, context.scratch.allocate_array<int16_t>(layout.dense_size(), "weights"));
  PTE_ASSIGN_OR_RETURN(ChannelScale * scales, context.scratch.allocate_array<ChannelScale>(layout.ofm_depth, "scales"));
  for (int o = 0; o < layout.ofm_depth; ++o) {
    for (int i = 0; i < layout.ifm_depth; ++i) {
      ohwi[static_cast<size_t>(o) * layout.ifm_depth + i] = static_cast<int16_t>(ifm2.read(0, o, i) - ifm2.zero_point());
    }
    scales[o] = ChannelScale{0, scale};
  }
  return KernelWeights{layout, ohwi, scales};
}

}  // namespace

Status run_u85_convolution(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const bool weights_in_ifm2 = bit_field(context.command.param, 0, 1) != 0;
  if (u85::acc_format(registers).input != u85::AccumulatorInput::kReset) {
    return Status::failure(Error::kNotSupported, "accumulators that do not start from the bias are not modelled");
  }
  const KernelGeometry geometry = kernel_geometry(registers, registers.get(u85::Cmd0::NPU_SET_IFM_DEPTH_M1) + 1);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm, u85::ifm_storage(registers)));
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  PTE_RETURN_IF_ERROR(output.bind(context));
  auto store = [&](const KernelWeights& weights) {
    return [&](int oy, int ox, int o, int64_t accumulator) {
      output.store(oy, ox, o, accumulator, output.global_scale() ? output.scale().scale : weights.scales[o].scale);
    };
  };
  if (weights_in_ifm2) {
    PTE_ASSIGN_OR_RETURN(const KernelWeights weights, weights_from_ifm2(context, geometry, output.scale().scale));
    return with_ifm_volume(ifm, geometry.upscale, context.scratch,
                           [&](const auto& volume) { convolve(geometry, volume, weights, store(weights)); });
  }

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.ofm_depth = geometry.ofm.depth;
  layout.ifm_depth = geometry.ifm.depth;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.stride_x = kernel.stride_x;
  layout.stride_y = kernel.stride_y;
  layout.ifm_bits = ifm.precision().bits;
  WeightEncoding encoding;
  PTE_RETURN_IF_ERROR(u85_weight_layout(
      context, kernel.part_kernel_first ? WeightTraversal::kPartKernelFirst : WeightTraversal::kDepthFirst, &layout,
      &encoding));
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights, load_weights(context, layout, encoding));
  return with_ifm_volume(ifm, geometry.upscale, context.scratch,
                         [&](const auto& volume) { convolve(geometry, volume, weights, store(weights)); });
}

}  // namespace npu_model
}  // namespace pte
