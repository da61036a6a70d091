// NpuDriver: runs one Ethos-U command stream. Implemented by a functional NPU model (host tests) and by
// the register-level driver (firmware); the Ethos-U backend only talks to this interface.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/status.h"

namespace pte {
namespace ethosu {

// The NPU has eight base-pointer registers; the command stream addresses memory relative to them.
constexpr size_t kNpuRegionCount = 8;

// What one base pointer points at (address 0 and size 0 for an unused region).
struct NpuRegion {
  uintptr_t address;
  size_t size;
};

class NpuDriver {
 public:
  // Runs `command_stream` to completion with base pointer i set to regions[i].
  virtual Status run(Span<const uint8_t> command_stream, Span<const NpuRegion> regions) = 0;

 protected:
  // Owned by the application, never deleted through this interface.
  ~NpuDriver() = default;
};

}  // namespace ethosu
}  // namespace pte
