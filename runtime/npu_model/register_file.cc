#include "runtime/npu_model/register_file.h"

#include <cstring>

namespace pte {
namespace npu_model {

void RegisterFile::reset() {
  std::memset(cmd0_, 0, sizeof(cmd0_));
  std::memset(cmd1_param_, 0, sizeof(cmd1_param_));
  std::memset(cmd1_data_, 0, sizeof(cmd1_data_));
}

void RegisterFile::write(const Command& command) {
  if (command.is_cmd1) {
    cmd1_param_[command.opcode] = command.param;
    cmd1_data_[command.opcode] = command.data;
  } else {
    cmd0_[command.opcode] = command.param;
  }
}

int64_t sign_extend_40(uint64_t raw) {
  constexpr uint64_t kSignBit = uint64_t{1} << 39;
  return (raw & kSignBit) != 0 ? static_cast<int64_t>(raw) - static_cast<int64_t>(kSignBit << 1)
                               : static_cast<int64_t>(raw);
}

}  // namespace npu_model
}  // namespace pte
