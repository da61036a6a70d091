// The NPU driver an image with its program linked in runs its Ethos-U delegates on, chosen at link time
// (pte_firmware_image's `npu`): the Corstone-300's Ethos-U55 (embedded_npu_hardware.cc) or the
// functional NPU model on the Cortex-M55 itself (embedded_npu_model.cc), for QEMU, which has no NPU.
#pragma once

#include "runtime/delegate/ethosu/npu_driver.h"

namespace pte {
namespace firmware {

// Null when the chosen NPU cannot be attached (said why on stdout).
ethosu::NpuDriver* embedded_npu();

}  // namespace firmware
}  // namespace pte
