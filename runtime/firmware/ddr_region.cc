#include "runtime/firmware/ddr_region.h"

#include "runtime/core/program.h"

namespace pte {
namespace firmware {
namespace {

alignas(kBufferAlignment) __attribute__((section(".ddr_bss"))) uint8_t region[PTE_FIRMWARE_REGION_BYTES];

}  // namespace

Span<uint8_t> ddr_region() { return Span<uint8_t>(region, sizeof(region)); }

}  // namespace firmware
}  // namespace pte
