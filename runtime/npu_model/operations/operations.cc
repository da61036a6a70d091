#include "runtime/npu_model/operations/operations.h"

#include "runtime/npu_model/u55_commands.h"

namespace pte {
namespace npu_model {
namespace {

Status run_nothing(const OperationContext&) { return Status(); }

struct OperationEntry {
  Cmd0 opcode;
  OperationFn run;
};

constexpr OperationEntry kOperations[] = {
    {Cmd0::NPU_OP_CONV, run_convolution},
    {Cmd0::NPU_OP_DEPTHWISE, run_depthwise},
    {Cmd0::NPU_OP_POOL, run_pooling},
    {Cmd0::NPU_OP_ELEMENTWISE, run_elementwise},
    {Cmd0::NPU_OP_DMA_START, run_dma},
    {Cmd0::NPU_OP_DMA_WAIT, run_nothing},
    {Cmd0::NPU_OP_KERNEL_WAIT, run_nothing},
    {Cmd0::NPU_OP_IRQ, run_nothing},
    {Cmd0::NPU_OP_PMU_MASK, run_nothing},
};

}  // namespace

OperationFn find_u55_operation(const Command& command) {
  for (const OperationEntry& entry : kOperations) {
    if (static_cast<uint16_t>(entry.opcode) == command.opcode) return entry.run;
  }
  return nullptr;
}

}  // namespace npu_model
}  // namespace pte
