#include "runtime/npu_model/architecture.h"

namespace pte {
namespace npu_model {
namespace {

constexpr size_t kShramBank = 1024;
constexpr size_t kLutSlotBytes = 256;

// Vela's U55 accelerator table: MACs, micro-block depths, SHRAM banks (of 1 KiB), banks kept for LUTs.
constexpr NpuArchitecture kEthosU55[] = {
    {"Ethos-U55-32", NpuProduct::kEthosU55, 32, 4, 8, 16 * kShramBank, 0},
    {"Ethos-U55-64", NpuProduct::kEthosU55, 64, 8, 8, 16 * kShramBank, 0},
    {"Ethos-U55-128", NpuProduct::kEthosU55, 128, 8, 8, 24 * kShramBank, 2 * kShramBank},
    {"Ethos-U55-256", NpuProduct::kEthosU55, 256, 8, 8, 48 * kShramBank, 2 * kShramBank},
};

}  // namespace

const NpuArchitecture* ethos_u55(uint32_t macs_per_cycle) {
  for (const NpuArchitecture& architecture : kEthosU55) {
    if (architecture.macs_per_cycle == macs_per_cycle) return &architecture;
  }
  return nullptr;
}

size_t lut_offset(const NpuArchitecture& architecture, size_t table_bytes, uint32_t slot) {
  const size_t table_banks = (table_bytes + kShramBank - 1) / kShramBank * kShramBank;
  const size_t lut_bytes = table_banks > architecture.lut_reserved_bytes ? table_banks : architecture.lut_reserved_bytes;
  return architecture.shram_bytes - lut_bytes + slot * kLutSlotBytes;
}

}  // namespace npu_model
}  // namespace pte
