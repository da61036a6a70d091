// Splits a register command stream into commands, checking each word as the NPU's command parser does.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/npu_model/command_set.h"

namespace pte {
namespace npu_model {

struct Command {
  // Byte offset of the command's first word (counted from the start of the driver payload).
  size_t offset;
  bool is_cmd1;
  uint16_t opcode;
  // cmd0: the 16-bit payload. cmd1: the parameter field of the first word (an address's bits 32-39,
  // or a scale's shift).
  uint16_t param;
  // cmd1: the 32-bit payload word.
  uint32_t data;
  // "NPU_OP_CONV", "NPU_SET_IFM_BASE0", ...
  const char* name;

  // Opcode bit 8 is clear for cmd0 operations and set for cmd1 ones (NPU_OP_BRANCH).
  bool is_operation() const { return is_cmd1 ? (opcode & 0x100) != 0 : (opcode & 0x100) == 0; }
};

class CommandReader {
 public:
  // `words` is the register command stream; `base_offset` is its byte offset in the payload; `commands`
  // names the opcodes the NPU defines.
  CommandReader(Span<const uint8_t> words, size_t base_offset, const CommandSet& commands)
      : words_(words), base_offset_(base_offset), commands_(commands) {}

  bool at_end() const { return position_ >= words_.size(); }

  // The next command. kInvalidDelegateBlob naming the byte offset for an unknown opcode, a word
  // whose reserved bits are set, or a cmd1 cut off by the end of the stream.
  Result<Command> next();

 private:
  Span<const uint8_t> words_;
  size_t base_offset_;
  const CommandSet& commands_;
  size_t position_ = 0;
};

}  // namespace npu_model
}  // namespace pte
