#include "runtime/npu_model/u55_commands.h"

namespace pte {
namespace npu_model {

#define PTE_NPU_NAME_CASE(name, opcode) \
  case opcode:                          \
    return #name;

const char* cmd0_name(uint16_t opcode) {
  switch (opcode) {
    PTE_NPU_U55_CMD0_OPERATIONS(PTE_NPU_NAME_CASE)
    PTE_NPU_U55_CMD0_REGISTERS(PTE_NPU_NAME_CASE)
    default:
      return nullptr;
  }
}

const char* cmd1_name(uint16_t opcode) {
  switch (opcode) {
    PTE_NPU_U55_CMD1_REGISTERS(PTE_NPU_NAME_CASE)
    default:
      return nullptr;
  }
}

#undef PTE_NPU_NAME_CASE

}  // namespace npu_model
}  // namespace pte
