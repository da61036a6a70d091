#include "runtime/npu_model/operations/u85_operations.h"

#include "runtime/npu_model/operations/operations.h"

namespace pte {
namespace npu_model {
namespace {

Status run_nothing(const OperationContext&) { return Status(); }

Status not_modelled(const OperationContext& context) {
  return Status::failure(Error::kNotSupported, "%s is not modelled on the Ethos-U85", context.command.name);
}

struct OperationEntry {
  u85::Cmd0 opcode;
  OperationFn run;
};

constexpr OperationEntry kOperations[] = {
    {u85::Cmd0::NPU_OP_CONV, run_u85_convolution},
    {u85::Cmd0::NPU_OP_DEPTHWISE, run_u85_depthwise},
    {u85::Cmd0::NPU_OP_POOL, run_u85_pooling},
    {u85::Cmd0::NPU_OP_ELEMENTWISE, run_u85_elementwise},
    {u85::Cmd0::NPU_OP_RESIZE, run_u85_resize},
    // The U85's 1D DMA registers are the U55's.
    {u85::Cmd0::NPU_OP_DMA_START, run_dma},
    {u85::Cmd0::NPU_OP_DMA_WAIT, run_nothing},
    {u85::Cmd0::NPU_OP_KERNEL_WAIT, run_nothing},
    {u85::Cmd0::NPU_OP_IRQ, run_nothing},
    {u85::Cmd0::NPU_OP_PMU_MASK, run_nothing},
};

// IFM block depths of U85 convolutions (Vela's block configuration rules, which the NPU shares). 2:4
// sparse weights never take the small arrays' 32-channel blocks, and take 128 channels for 8-bit IFMs.
int ifm_block_depth(const NpuArchitecture& architecture, const WeightLayout& layout) {
  if (layout.traversal == WeightTraversal::kPartKernelFirst) return 16;
  const bool small_array = architecture.macs_per_cycle == 128 || architecture.macs_per_cycle == 256;
  if (layout.ifm_bits == 32 || (small_array && layout.ofm_ublock_depth == 16 && !layout.sparse)) return 32;
  if (layout.sparse && layout.ifm_bits == 8) return 128;
  return 64;
}

}  // namespace

OperationFn find_u85_operation(const Command& command) {
  if (command.is_cmd1) return not_modelled;  // NPU_OP_BRANCH
  for (const OperationEntry& entry : kOperations) {
    if (static_cast<uint16_t>(entry.opcode) == command.opcode) return entry.run;
  }
  return nullptr;
}

Status bind_u85_input(const OperationContext& context, FeatureMap& map, u85::Storage storage) {
  if (storage != u85::Storage::kChained) return map.bind(context.memory);
  const Extent& extent = map.extent();
  PTE_ASSIGN_OR_RETURN(const int64_t* values,
                       context.chains.read(map.region(), extent.height, extent.width, extent.depth));
  map.bind_chained(values);
  return Status();
}

Status u85_weight_layout(const OperationContext& context, WeightTraversal traversal, WeightLayout* layout,
                         WeightEncoding* encoding) {
  const NpuArchitecture& architecture = context.architecture;
  if (architecture.weight_cores != 1) {
    return Status::failure(Error::kNotSupported, "%s reads weights with %d decoder cores; the model decodes one",
                           architecture.name, architecture.weight_cores);
  }
  const u85::WeightFormat format = u85::weight_format(context.registers);
  if (format.sparse && traversal == WeightTraversal::kDepthwise) {
    return Status::failure(Error::kNotSupported, "2:4 sparse weights for a depthwise convolution are not modelled");
  }
  const u85::AccFormat acc = u85::acc_format(context.registers);
  layout->generation = NpuProduct::kEthosU85;
  layout->traversal = traversal;
  layout->sparse = format.sparse;
  layout->ofm_ublock_depth =
      static_cast<int>(architecture.macs_per_cycle) / (8 * acc.ublock_height * acc.ublock_width);
  layout->ifm_block_depth = ifm_block_depth(architecture, *layout);
  layout->macs_per_cycle = static_cast<int>(architecture.macs_per_cycle);
  *encoding = WeightEncoding{format.fast, acc.wide ? ScaleEntryFormat::kU85Bias48 : ScaleEntryFormat::kU85Bias32};
  return Status();
}

}  // namespace npu_model
}  // namespace pte
