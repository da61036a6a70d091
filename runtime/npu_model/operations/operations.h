// The Ethos-U55 operations (NPU_OP_* commands), one file each, found by opcode in one table.
#pragma once

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/command_set.h"
#include "runtime/npu_model/operation_context.h"

namespace pte {
namespace npu_model {

Status run_convolution(const OperationContext& context);  // NPU_OP_CONV
Status run_depthwise(const OperationContext& context);    // NPU_OP_DEPTHWISE
Status run_pooling(const OperationContext& context);      // NPU_OP_POOL
Status run_elementwise(const OperationContext& context);  // NPU_OP_ELEMENTWISE
// NPU_OP_DMA_START (the U85's 1D transfers use the same registers).
Status run_dma(const OperationContext& context);

// The handler of `command`, or nullptr for NPU_OP_STOP. Commands that only order work or signal the
// host (waits, IRQ, PMU mask) have a handler that does nothing: the model runs every operation to
// completion in stream order.
OperationFn find_u55_operation(const Command& command);

}  // namespace npu_model
}  // namespace pte
