#include "runtime/npu_model/architecture.h"

#include <cctype>

namespace pte {
namespace npu_model {
namespace {

constexpr size_t kShramBank = 1024;
constexpr size_t kLutSlotBytes = 256;

constexpr size_t kU85LutBytes = 2048;

// Vela's accelerator tables: MACs, micro-block depths (the U85's OFM one follows from ACC_FORMAT),
// SHRAM banks (of 1 KiB), banks kept for LUTs, weight decoder cores.
constexpr NpuArchitecture kArchitectures[] = {
    {"Ethos-U55-32", NpuProduct::kEthosU55, 32, &kU55Commands, 4, 8, 16 * kShramBank, 0, 1},
    {"Ethos-U55-64", NpuProduct::kEthosU55, 64, &kU55Commands, 8, 8, 16 * kShramBank, 0, 1},
    {"Ethos-U55-128", NpuProduct::kEthosU55, 128, &kU55Commands, 8, 8, 24 * kShramBank, 2 * kShramBank, 1},
    {"Ethos-U55-256", NpuProduct::kEthosU55, 256, &kU55Commands, 8, 8, 48 * kShramBank, 2 * kShramBank, 1},
    {"Ethos-U85-128", NpuProduct::kEthosU85, 128, &kU85Commands, 0, 0, kU85LutBytes, 0, 1},
    {"Ethos-U85-256", NpuProduct::kEthosU85, 256, &kU85Commands, 0, 0, kU85LutBytes, 0, 1},
    {"Ethos-U85-512", NpuProduct::kEthosU85, 512, &kU85Commands, 0, 0, kU85LutBytes, 0, 2},
    {"Ethos-U85-1024", NpuProduct::kEthosU85, 1024, &kU85Commands, 0, 0, kU85LutBytes, 0, 4},
    {"Ethos-U85-2048", NpuProduct::kEthosU85, 2048, &kU85Commands, 0, 0, kU85LutBytes, 0, 4},
};

}  // namespace

const NpuArchitecture* find_architecture(NpuProduct product, uint32_t macs_per_cycle) {
  for (const NpuArchitecture& architecture : kArchitectures) {
    if (architecture.product == product && architecture.macs_per_cycle == macs_per_cycle) return &architecture;
  }
  return nullptr;
}

const NpuArchitecture* find_architecture(const char* name) {
  for (const NpuArchitecture& architecture : kArchitectures) {
    const char* a = architecture.name;
    const char* b = name;
    while (*a != '\0' && std::tolower(static_cast<unsigned char>(*a)) == std::tolower(static_cast<unsigned char>(*b))) {
      ++a;
      ++b;
    }
    if (*a == '\0' && *b == '\0') return &architecture;
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
