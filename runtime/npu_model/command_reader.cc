#include "runtime/npu_model/command_reader.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

// Bits 14-15 of a command word.
constexpr uint32_t kControlCmd0 = 0;
constexpr uint32_t kControlCmd1 = 1;

uint32_t read_word(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

Result<Command> CommandReader::next() {
  Command command = {};
  command.offset = base_offset_ + position_;
  if (words_.size() - position_ < 4) {
    return Status::failure(Error::kInvalidDelegateBlob, "the command stream ends inside a word at byte %lu",
                           as_ulong(command.offset));
  }
  const uint32_t word = read_word(words_.data() + position_);
  position_ += 4;
  command.opcode = static_cast<uint16_t>(word & 0x3ff);
  command.param = static_cast<uint16_t>(word >> 16);
  const uint32_t reserved = (word >> 10) & 0xf;
  const uint32_t control = (word >> 14) & 0x3;
  if (control != kControlCmd0 && control != kControlCmd1) {
    return Status::failure(Error::kInvalidDelegateBlob, "malformed command word 0x%08lx at byte %lu: control field %lu",
                           static_cast<unsigned long>(word), as_ulong(command.offset),
                           static_cast<unsigned long>(control));
  }
  command.is_cmd1 = control == kControlCmd1;
  command.name = command.is_cmd1 ? commands_.cmd1_name(command.opcode) : commands_.cmd0_name(command.opcode);
  if (command.name == nullptr) {
    return Status::failure(Error::kInvalidDelegateBlob, "unknown %s opcode 0x%03lx (word 0x%08lx) at byte %lu",
                           command.is_cmd1 ? "cmd1" : "cmd0", static_cast<unsigned long>(command.opcode),
                           static_cast<unsigned long>(word), as_ulong(command.offset));
  }
  if (reserved != 0) {
    return Status::failure(Error::kInvalidDelegateBlob, "%s at byte %lu has reserved bits set (word 0x%08lx)",
                           command.name, as_ulong(command.offset), static_cast<unsigned long>(word));
  }
  if (command.is_cmd1) {
    if (words_.size() - position_ < 4) {
      return Status::failure(Error::kInvalidDelegateBlob,
                             "%s at byte %lu is missing its payload word: the stream ends after the first word",
                             command.name, as_ulong(command.offset));
    }
    command.data = read_word(words_.data() + position_);
    position_ += 4;
  }
  return command;
}

}  // namespace npu_model
}  // namespace pte
