// The "eh00" extended header that ExecuTorch writes into a .pte right after the flatbuffer's root offset
// and file identifier: how long the flatbuffer is and where the data segments that follow it start.
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

struct ExtendedHeader {
  // False for a bare flatbuffer (no segments); then program_size is the whole buffer.
  bool present = false;
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  // Zero when the writer did not record it.
  uint64_t segment_data_size = 0;
};

// Reads the header and checks it against the size of `pte` (kInvalidProgram on any inconsistency).
Result<ExtendedHeader> read_extended_header(Span<const uint8_t> pte);

}  // namespace pte
