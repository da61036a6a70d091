// RegisterFile: the NPU's command-stream registers, written by NPU_SET_* commands and read, decoded into
// typed fields, when an operation starts. Field layouts follow Arm's U55/U65 interface definitions.
#pragma once

#include <cstdint>

#include "runtime/npu_model/command_reader.h"
#include "runtime/npu_model/u55_commands.h"

namespace pte {
namespace npu_model {

// A 40-bit two's complement number.
int64_t sign_extend_40(uint64_t raw);

// Bits [lsb, lsb + width) of `value`.
constexpr uint32_t bit_field(uint32_t value, int lsb, int width) {
  return (value >> lsb) & ((width >= 32) ? 0xffffffffu : ((1u << width) - 1));
}

class RegisterFile {
 public:
  RegisterFile() { reset(); }

  // Every register back to 0, as after an NPU reset.
  void reset();
  // Stores a NPU_SET_* command's payload.
  void write(const Command& command);

  // Registers are named by a generation's opcode enums (Cmd0/Cmd1, u85::Cmd0/u85::Cmd1).
  template <typename Cmd0Register>
  uint16_t get(Cmd0Register reg) const {
    return cmd0_[static_cast<uint16_t>(reg)];
  }
  // A cmd0 payload read as a two's complement 16-bit number (zero points, clip bounds).
  template <typename Cmd0Register>
  int32_t get_signed(Cmd0Register reg) const {
    return static_cast<int16_t>(get(reg));
  }
  template <typename Cmd1Register>
  uint32_t data(Cmd1Register reg) const {
    return cmd1_data_[static_cast<uint16_t>(reg)];
  }
  template <typename Cmd1Register>
  uint16_t param(Cmd1Register reg) const {
    return cmd1_param_[static_cast<uint16_t>(reg)];
  }
  // A 40-bit byte address or length: the parameter's low byte holds bits 32-39.
  template <typename Cmd1Register>
  uint64_t address(Cmd1Register reg) const {
    return static_cast<uint64_t>(param(reg) & 0xff) << 32 | data(reg);
  }
  // A 40-bit two's complement stride (negative for a reversed axis).
  template <typename Cmd1Register>
  int64_t stride(Cmd1Register reg) const {
    return sign_extend_40(address(reg));
  }

 private:
  uint16_t cmd0_[kOpcodeCount];
  uint16_t cmd1_param_[kOpcodeCount];
  uint32_t cmd1_data_[kOpcodeCount];
};

}  // namespace npu_model
}  // namespace pte
