// NPU_OP_DMA_START: copies DMA0_LEN bytes from DMA0_SRC to DMA0_DST. Each side is a base-pointer region
// (external mode) or, for the destination, SHRAM (internal mode, where lookup tables go). Only the
// contiguous (1D) mode Vela emits is modelled.
#include <cstring>

#include "runtime/npu_model/operations/operations.h"

namespace pte {
namespace npu_model {
namespace {

struct DmaEndpoint {
  uint32_t region;
  bool internal;
  uint32_t stride_mode;
};

DmaEndpoint endpoint(uint16_t payload) {
  return DmaEndpoint{bit_field(payload, 0, 3), bit_field(payload, 8, 1) != 0, bit_field(payload, 9, 2)};
}

Result<uint8_t*> endpoint_bytes(const OperationContext& context, const DmaEndpoint& side, uint64_t address,
                                uint64_t length, const char* what) {
  return side.internal ? context.memory.shram_bytes(address, length, what)
                       : context.memory.region_bytes(side.region, address, length, what);
}

}  // namespace

Status run_dma(const OperationContext& context) {
  const RegisterFile& registers = context.registers;
  const DmaEndpoint source = endpoint(registers.get(Cmd0::NPU_SET_DMA0_SRC_REGION));
  const DmaEndpoint destination = endpoint(registers.get(Cmd0::NPU_SET_DMA0_DST_REGION));
  if (source.stride_mode != 0 || destination.stride_mode != 0) {
    return Status::failure(Error::kNotSupported, "2D/3D DMA transfers (stride modes %lu/%lu) are not modelled",
                           static_cast<unsigned long>(source.stride_mode),
                           static_cast<unsigned long>(destination.stride_mode));
  }
  const uint64_t length = registers.address(Cmd1::NPU_SET_DMA0_LEN);
  PTE_ASSIGN_OR_RETURN(const uint8_t* from, endpoint_bytes(context, source, registers.address(Cmd1::NPU_SET_DMA0_SRC),
                                                           length, "the DMA source"));
  PTE_ASSIGN_OR_RETURN(uint8_t * to, endpoint_bytes(context, destination, registers.address(Cmd1::NPU_SET_DMA0_DST),
                                                    length, "the DMA destination"));
  std::memmove(to, from, static_cast<size_t>(length));
  return Status();
}

}  // namespace npu_model
}  // namespace pte
