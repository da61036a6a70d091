// Cortex-M SysTick as a 64-bit count of processor clock ticks (the 24-bit counter's wraps are counted in
// its interrupt). DWT's cycle counter would be the usual choice, but QEMU does not model it (it reads 0);
// SysTick runs in QEMU too, and with `-icount shift=0` QEMU's clock advances one nanosecond per
// instruction, so on mps3-an547 (SysTick at 32 MHz) instructions = ticks * 31.25.
#pragma once

#include <cstdint>

namespace pte {
namespace firmware {

// The processor clock SysTick counts on QEMU's mps3-an547 (measured: a 5M-instruction loop takes 160,000
// ticks under -icount shift=0).
constexpr uint32_t kSysTickHz = 32000000;

// Starts counting from 0; enables the SysTick interrupt.
void start_systick();
uint64_t systick_ticks();

}  // namespace firmware
}  // namespace pte

// Counts the wraps; overrides the startup code's weak handler.
extern "C" void SysTick_Handler(void);
