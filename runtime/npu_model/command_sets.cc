// The command sets of the NPU generations the model knows (command_set.h).
#include "runtime/npu_model/command_set.h"

#include "runtime/npu_model/operations/operations.h"
#include "runtime/npu_model/operations/u85_operations.h"
#include "runtime/npu_model/trace.h"
#include "runtime/npu_model/u55_commands.h"
#include "runtime/npu_model/u85_commands.h"

namespace pte {
namespace npu_model {

const CommandSet kU55Commands = {cmd0_name, cmd1_name, find_u55_operation, describe_u55_operation};
const CommandSet kU85Commands = {u85::cmd0_name, u85::cmd1_name, find_u85_operation, describe_u85_operation};

}  // namespace npu_model
}  // namespace pte
