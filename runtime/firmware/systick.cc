#include "runtime/firmware/systick.h"

namespace pte {
namespace firmware {
namespace {

struct SysTickRegisters {
  volatile uint32_t control;
  volatile uint32_t reload;
  volatile uint32_t current;
};

SysTickRegisters& systick() { return *reinterpret_cast<SysTickRegisters*>(0xE000E010u); }

constexpr uint32_t kEnable = 1u << 0;
constexpr uint32_t kInterrupt = 1u << 1;
constexpr uint32_t kProcessorClock = 1u << 2;
constexpr uint32_t kReload = 0x00FFFFFFu;

volatile uint32_t wraps = 0;

}  // namespace

void start_systick() {
  systick().control = 0;
  systick().reload = kReload;
  systick().current = 0;  // Any write clears it; counting restarts from the reload value.
  wraps = 0;
  systick().control = kEnable | kInterrupt | kProcessorClock;
}

uint64_t systick_ticks() {
  // The counter counts down; a wrap between the two reads shows as a changed wrap count.
  uint32_t before;
  uint32_t current;
  do {
    before = wraps;
    current = systick().current;
  } while (before != wraps);
  return static_cast<uint64_t>(before) * (kReload + 1) + (kReload - current);
}

}  // namespace firmware
}  // namespace pte

extern "C" void SysTick_Handler(void) { pte::firmware::wraps = pte::firmware::wraps + 1; }
