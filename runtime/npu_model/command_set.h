// CommandSet: what tells one NPU generation's command streams from another's — the commands it defines
// (by name) and what its NPU_OP_* commands do. The architecture of the modelled NPU picks one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"

namespace pte {
namespace npu_model {

struct Command;
struct OperationContext;
class RegisterFile;

using OperationFn = Status (*)(const OperationContext& context);

struct CommandSet {
  // The command's name, or nullptr for an opcode the NPU does not define.
  const char* (*cmd0_name)(uint16_t opcode);
  const char* (*cmd1_name)(uint16_t opcode);
  // The operation's handler; nullptr for NPU_OP_STOP.
  OperationFn (*find_operation)(const Command& command);
  // Writes an operation's operands (as its registers hold them) to `line` for the trace.
  void (*describe_operation)(const Command& command, const RegisterFile& registers, char* line, size_t capacity);
};

// The Ethos-U55/U65 and Ethos-U85 command sets.
extern const CommandSet kU55Commands;
extern const CommandSet kU85Commands;

}  // namespace npu_model
}  // namespace pte
