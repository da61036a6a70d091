// The NPU configurations the model can be: the constants of each that change what a command stream
// means (the MAC array's micro-block depths order the weight stream; SHRAM holds lookup tables).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/npu_model/command_set.h"
#include "runtime/npu_model/driver_payload.h"

namespace pte {
namespace npu_model {

struct NpuArchitecture {
  const char* name;  // "Ethos-U55-128"
  NpuProduct product;
  uint32_t macs_per_cycle;
  const CommandSet* commands;
  int ofm_ublock_depth;
  int ifm_ublock_depth;
  size_t shram_bytes;
  // SHRAM bytes at the top kept for lookup tables (0: tables share SHRAM with the accumulators and
  // Vela reloads them before each use). The U85 has a separate LUT RAM of shram_bytes instead.
  size_t lut_reserved_bytes;
  // Weight decoder cores (U85: each reads its own interleaved share of a weight stream).
  int weight_cores;
};

// The NPU `product` with `macs_per_cycle` MACs (Ethos-U55: 32, 64, 128, 256; Ethos-U85: 128, 256, 512,
// 1024, 2048); nullptr for a configuration the model does not know.
const NpuArchitecture* find_architecture(NpuProduct product, uint32_t macs_per_cycle);
// By name, case-insensitively: "ethos-u55-128", "Ethos-U85-256".
const NpuArchitecture* find_architecture(const char* name);
inline const NpuArchitecture* ethos_u55(uint32_t macs_per_cycle) {
  return find_architecture(NpuProduct::kEthosU55, macs_per_cycle);
}
inline const NpuArchitecture* ethos_u85(uint32_t macs_per_cycle) {
  return find_architecture(NpuProduct::kEthosU85, macs_per_cycle);
}

// SHRAM byte offset of lookup table slot `slot` for a table of `table_bytes` (256 for 8-bit values,
// 2048 for 16-bit ones). Tables sit at the top of SHRAM in 256-byte slots; Vela's DMA writes them to
// the same place.
size_t lut_offset(const NpuArchitecture& architecture, size_t table_bytes, uint32_t slot);

}  // namespace npu_model
}  // namespace pte
