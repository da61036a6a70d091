// The Ethos-U85 operations (NPU_OP_* commands), one file each, found by opcode in one table.
#pragma once

#include "runtime/core/status.h"
#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/command_set.h"
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operation_context.h"
#include "runtime/npu_model/operations/weights.h"
#include "runtime/npu_model/u85_registers.h"

namespace pte {
namespace npu_model {

Status run_u85_convolution(const OperationContext& context);  // NPU_OP_CONV
Status run_u85_depthwise(const OperationContext& context);    // NPU_OP_DEPTHWISE
Status run_u85_pooling(const OperationContext& context);      // NPU_OP_POOL
Status run_u85_elementwise(const OperationContext& context);  // NPU_OP_ELEMENTWISE
Status run_u85_resize(const OperationContext& context);       // NPU_OP_RESIZE

OperationFn find_u85_operation(const Command& command);

// Binds an input feature map (IFM or IFM2) to memory, or to the chaining buffer its REGION names when
// its storage is chained.
Status bind_u85_input(const OperationContext& context, FeatureMap& map, u85::Storage storage);

// The weight layout and encoding a U85 convolution or depthwise operation's registers describe.
// kNotSupported for what the model does not decode (several weight decoder cores, 2:4 sparse depthwise
// weights).
Status u85_weight_layout(const OperationContext& context, WeightTraversal traversal, WeightLayout* layout,
                         WeightEncoding* encoding);

}  // namespace npu_model
}  // namespace pte
