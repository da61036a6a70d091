// Trace mode: one line per command as the model executes it — its byte offset and name, a register's
// value, or an operation with its operands (feature maps, kernel, weights, scaling).
#pragma once

#include <cstddef>

#include "runtime/core/status.h"
#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/command_set.h"
#include "runtime/npu_model/operation_registers.h"
#include "runtime/npu_model/register_file.h"

namespace pte {
namespace npu_model {

// Receives trace lines (without a trailing newline).
struct TraceSink {
  void (*write)(void* context, const char* line);
  void* context;
};

// Formats `command` (after its registers are applied, for an operation) into `line`.
void describe_command(const Command& command, const RegisterFile& registers, const CommandSet& commands, char* line,
                      size_t capacity);

// The U55's and U85's operand descriptions (CommandSet::describe_operation).
void describe_u55_operation(const Command& command, const RegisterFile& registers, char* line, size_t capacity);
void describe_u85_operation(const Command& command, const RegisterFile& registers, char* line, size_t capacity);

// Short names for trace lines: "s8", "NHCWB16", "natural".
const char* precision_text(const Precision& precision);
const char* format_text(const Precision& precision);
const char* round_text(RoundMode mode);

// Appends printf-formatted text to a fixed buffer, truncating when it is full.
class LineWriter {
 public:
  LineWriter(char* line, size_t capacity);
  void add(const char* format, ...) PTE_PRINTF_FORMAT(2, 3);

 private:
  char* line_;
  size_t capacity_;
  size_t length_ = 0;
};

}  // namespace npu_model
}  // namespace pte
