// NPU_OP_CONV on the U85: the convolution's accumulators, scaled by each channel's multiplier and
// shift with OFM_SCALE's rounding. Accumulators that start from IFM2 or a previous operation, and
// weights read from IFM2, are not modelled.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"

namespace pte {
namespace npu_model {

Status run_u85_convolution(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  if (context.command.param != 0) {
    return Status::failure(Error::kNotSupported, "convolutions with weights from IFM2 are not modelled");
  }
  if (u85::acc_format(registers).input != u85::AccumulatorInput::kReset) {
    return Status::failure(Error::kNotSupported, "accumulators that do not start from the bias are not modelled");
  }
  const KernelGeometry geometry = kernel_geometry(registers, registers.get(u85::Cmd0::NPU_SET_IFM_DEPTH_M1) + 1);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm, u85::ifm_storage(registers)));
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  PTE_RETURN_IF_ERROR(output.bind(context));

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
  auto store = [&](int oy, int ox, int o, int64_t accumulator) {
    output.store(oy, ox, o, accumulator, output.global_scale() ? output.scale().scale : weights.scales[o].scale);
  };
  return with_ifm_volume(ifm, geometry.upscale, context.scratch,
                         [&](const auto& volume) { convolve(geometry, volume, weights, store); });
}

}  // namespace npu_model
}  // namespace pte
