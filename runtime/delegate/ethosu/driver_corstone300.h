// Where Arm Corstone-300 (SSE-300 with an Ethos-U55 or U65) puts its NPU. QEMU's mps3-an547 models the
// SSE-300 without it: the registers there read 0.
#pragma once

#include <cstdint>

namespace pte {
namespace ethosu {
namespace corstone300 {

// The NPU's register block in the secure and non-secure peripheral aliases.
constexpr uintptr_t kNpuSecureBase = 0x58102000;
constexpr uintptr_t kNpuNonSecureBase = 0x48102000;
// Its interrupt line (exception number 16 + 56).
constexpr uint32_t kNpuInterrupt = 56;

}  // namespace corstone300
}  // namespace ethosu
}  // namespace pte
