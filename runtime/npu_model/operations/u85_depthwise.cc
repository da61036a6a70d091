// NPU_OP_DEPTHWISE on the U85: like its convolution, but OFM channel c only sees IFM channel c.
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operations/kernel_engines.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/operations/u85_output.h"

namespace pte {
namespace npu_model {

Status run_u85_depthwise(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  if (u85::acc_format(registers).input != u85::AccumulatorInput::kReset) {
    return Status::failure(Error::kNotSupported, "accumulators that do not start from the bias are not modelled");
  }
  const int depth = registers.get(u85::Cmd0::NPU_SET_OFM_DEPTH_M1) + 1;
  const KernelGeometry geometry = kernel_geometry(registers, depth);
  FeatureMap ifm = FeatureMap::from_registers(registers, FeatureMapSlot::kIfm, geometry.ifm);
  PTE_RETURN_IF_ERROR(bind_u85_input(context, ifm, u85::ifm_storage(registers)));
  U85Output output;
  PTE_RETURN_IF_ERROR(U85Output::create(context, &output));
  PTE_RETURN_IF_ERROR(output.bind(context));

  const Kernel& kernel = geometry.kernel;
  WeightLayout layout = {};
  layout.ofm_depth = depth;
  layout.ifm_depth = 1;
  layout.kernel_height = kernel.height();
  layout.kernel_width = kernel.width();
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.stride_x = kernel.stride_x;
  layout.stride_y = kernel.stride_y;
  layout.ifm_bits = ifm.precision().bits;
  WeightEncoding encoding;
  PTE_RETURN_IF_ERROR(u85_weight_layout(context, WeightTraversal::kDepthwise, &layout, &encoding));
  PTE_ASSIGN_OR_RETURN(const KernelWeights weights, load_weights(context, layout, encoding));
  PTE_ASSIGN_OR_RETURN(const int16_t* by_position, weights_by_position(weights, context.scratch));
  PTE_ASSIGN_OR_RETURN(int64_t * accumulators, context.scratch.allocate_array<int64_t>(depth, "accumulators"));
  auto store = [&](int oy, int ox, int c, int64_t accumulator) {
    output.store(oy, ox, c, accumulator, output.global_scale() ? output.scale().scale : weights.scales[c].scale);
  };
  return with_ifm_volume(ifm, geometry.upscale, context.scratch, [&](const auto& volume) {
    depthwise_convolve(geometry, volume, weights, by_position, accumulators, store);
  });
}

}  // namespace npu_model
}  // namespace pte
