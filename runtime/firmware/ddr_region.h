// The fixed block of DDR a firmware run plans all of its memory in (program, input files, planned
// buffers, runtime arena). It sits in .ddr_bss: zeroed at start-up, and reachable by the Ethos-U, which
// reads the program's weights and command streams and uses the arena for its scratch.
#pragma once

#include <cstdint>

#include "runtime/core/span.h"

// Override with --copt=-DPTE_FIRMWARE_REGION_BYTES=... for models larger than the default allows.
#ifndef PTE_FIRMWARE_REGION_BYTES
#define PTE_FIRMWARE_REGION_BYTES (32u << 20)
#endif

namespace pte {
namespace firmware {

Span<uint8_t> ddr_region();

}  // namespace firmware
}  // namespace pte
