// Trace mode: one line per command as the model executes it — its byte offset and name, a register's
// value, or an operation with its operands (feature maps, kernel, weights, scaling).
#pragma once

#include <cstddef>

#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/register_file.h"

namespace pte {
namespace npu_model {

// Receives trace lines (without a trailing newline).
struct TraceSink {
  void (*write)(void* context, const char* line);
  void* context;
};

// Formats `command` (after its registers are applied, for an operation) into `line`.
void describe_command(const Command& command, const RegisterFile& registers, char* line, size_t capacity);

}  // namespace npu_model
}  // namespace pte
