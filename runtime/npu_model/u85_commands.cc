#include "runtime/npu_model/u85_commands.h"

namespace pte {
namespace npu_model {
namespace u85 {

#define PTE_NPU_NAME_CASE(name, opcode) \
  case opcode:                          \
    return #name;

const char* cmd0_name(uint16_t opcode) {
  switch (opcode) {
    PTE_NPU_U85_CMD0_OPERATIONS(PTE_NPU_NAME_CASE)
    PTE_NPU_U85_CMD0_REGISTERS(PTE_NPU_NAME_CASE)
    default:
      return nullptr;
  }
}

const char* cmd1_name(uint16_t opcode) {
  switch (opcode) {
    PTE_NPU_U85_CMD1_OPERATIONS(PTE_NPU_NAME_CASE)
    PTE_NPU_U85_CMD1_REGISTERS(PTE_NPU_NAME_CASE)
    default:
      return nullptr;
  }
}

#undef PTE_NPU_NAME_CASE

}  // namespace u85
}  // namespace npu_model
}  // namespace pte
