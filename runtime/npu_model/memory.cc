#include "runtime/npu_model/memory.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {

Result<uint8_t*> NpuMemory::region_bytes(uint32_t region, uint64_t offset, uint64_t size, const char* what) const {
  if (region >= regions_.size()) {
    return Status::failure(Error::kDelegateFailed, "%s uses region %lu, but the driver set up %lu base pointers", what,
                           static_cast<unsigned long>(region), as_ulong(regions_.size()));
  }
  const ethosu::NpuRegion& bounds = regions_[region];
  if (offset > bounds.size || size > bounds.size - offset || (bounds.address == 0 && size > 0)) {
    return Status::failure(Error::kDelegateFailed, "%s reads or writes bytes [%s, +%s) of region %lu, which holds %lu bytes",
                           what, DecimalText(offset).c_str(), DecimalText(size).c_str(),
                           static_cast<unsigned long>(region), as_ulong(bounds.size));
  }
  return reinterpret_cast<uint8_t*>(bounds.address) + offset;
}

Result<uint8_t*> NpuMemory::shram_bytes(uint64_t offset, uint64_t size, const char* what) const {
  if (offset > shram_.size() || size > shram_.size() - offset) {
    return Status::failure(Error::kDelegateFailed, "%s reads or writes bytes [%s, +%s) of the %lu-byte SHRAM", what,
                           DecimalText(offset).c_str(), DecimalText(size).c_str(), as_ulong(shram_.size()));
  }
  return shram_.data() + offset;
}

}  // namespace npu_model
}  // namespace pte
