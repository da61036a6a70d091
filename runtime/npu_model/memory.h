// What the NPU can address: the eight base-pointer regions the driver sets up, and its internal shared
// buffer (SHRAM), where DMA places lookup tables. Every access is checked against the region it names.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/delegate/ethosu/npu_driver.h"

namespace pte {
namespace npu_model {

class NpuMemory {
 public:
  NpuMemory(Span<const ethosu::NpuRegion> regions, Span<uint8_t> shram) : regions_(regions), shram_(shram) {}

  // The `size` bytes at `offset` in base-pointer region `region`; kDelegateFailed naming `what`, the
  // region and the bytes asked for when they are not all inside it (the NPU would raise a bus fault).
  Result<uint8_t*> region_bytes(uint32_t region, uint64_t offset, uint64_t size, const char* what) const;
  // The same inside SHRAM.
  Result<uint8_t*> shram_bytes(uint64_t offset, uint64_t size, const char* what) const;

 private:
  Span<const ethosu::NpuRegion> regions_;
  Span<uint8_t> shram_;
};

}  // namespace npu_model
}  // namespace pte
