// The NPU configurations the model can be: the constants of each that change what a command stream
// means (the MAC array's micro-block depths order the weight stream; SHRAM holds lookup tables).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/npu_model/driver_payload.h"

namespace pte {
namespace npu_model {

struct NpuArchitecture {
  const char* name;  // "Ethos-U55-128"
  NpuProduct product;
  uint32_t macs_per_cycle;
  int ofm_ublock_depth;
  int ifm_ublock_depth;
  size_t shram_bytes;
  // SHRAM bytes at the top kept for lookup tables (0: tables share SHRAM with the accumulators and
  // Vela reloads them before each use).
  size_t lut_reserved_bytes;
};

// The Ethos-U55 with 32, 64, 128 or 256 MACs per cycle; nullptr for any other count.
const NpuArchitecture* ethos_u55(uint32_t macs_per_cycle);

// SHRAM byte offset of lookup table slot `slot` for a table of `table_bytes` (256 for 8-bit values,
// 2048 for 16-bit ones). Tables sit at the top of SHRAM in 256-byte slots; Vela's DMA writes them to
// the same place.
size_t lut_offset(const NpuArchitecture& architecture, size_t table_bytes, uint32_t slot);

}  // namespace npu_model
}  // namespace pte
