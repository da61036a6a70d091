// Reset and exception handling for Corstone-300 (Cortex-M55): the vector table, FPU/MVE enable, stack
// limit, .data/.bss set-up, C/C++ constructors, then main(). Memory layout: corstone300.ld.
//
// main's return value is handed to exit(), and an unhandled exception exits with 128 + its number
// (HardFault: 131), so a test run under an emulator ends with a status instead of hanging.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "toolchains/corstone300/startup.h"

extern uint32_t __data_load_start[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[], __ddr_bss_start[], __ddr_bss_end[];
extern uint32_t __stack_top[], __stack_limit[];

extern void __libc_init_array(void);
extern int main(int argc, char** argv);

// newlib's __libc_init_array calls _init (from crti.o, which -nostartfiles leaves out); .init_array does
// the work. __dso_handle (from crtbegin.o) identifies this image to __cxa_atexit.
void _init(void) {}
void _fini(void) {}
void* __dso_handle = &__dso_handle;

__attribute__((weak)) char** corstone300_arguments(int* argc) {
  static char* no_arguments[] = {0};
  *argc = 0;
  return no_arguments;
}

__attribute__((noreturn, used)) static void corstone300_start(void) {
  // Copied unless already in place: a debugger or QEMU may have loaded .data at its run address.
  if (__data_start != __data_load_start) {
    memcpy(__data_start, __data_load_start, (size_t)((uintptr_t)__data_end - (uintptr_t)__data_start));
  }
  memset(__bss_start, 0, (size_t)((uintptr_t)__bss_end - (uintptr_t)__bss_start));
  memset(__ddr_bss_start, 0, (size_t)((uintptr_t)__ddr_bss_end - (uintptr_t)__ddr_bss_start));
  __libc_init_array();
  int argc = 0;
  char** argv = corstone300_arguments(&argc);
  exit(main(argc, argv));
}

// Naked and in assembly up to the FPU enable: compiled C may use FP/MVE registers (memcpy, vectorised
// loops), which fault until CPACR grants coprocessors 10 and 11.
__attribute__((naked, noreturn)) void Reset_Handler(void) {
  __asm__ volatile(
      "ldr r0, =0xE000ED88\n"  // CPACR
      "ldr r1, [r0]\n"
      "orr r1, r1, #(0xF << 20)\n"  // CP10 and CP11: full access
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
      "ldr r0, =__stack_limit\n"
      "msr msplim, r0\n"
      "b corstone300_start\n");
}

static void unhandled_exception(void) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  static const char message[] = "corstone300: unhandled exception, exiting with 128 + its number\n";
  write(STDERR_FILENO, message, sizeof(message) - 1);
  _exit(128 + (int)(ipsr & 0x1FF));
}

#define WEAK_HANDLER(name) void name(void) __attribute__((weak, alias("unhandled_exception")))
WEAK_HANDLER(NMI_Handler);
WEAK_HANDLER(HardFault_Handler);
WEAK_HANDLER(MemManage_Handler);
WEAK_HANDLER(BusFault_Handler);
WEAK_HANDLER(UsageFault_Handler);
WEAK_HANDLER(SecureFault_Handler);
WEAK_HANDLER(SVC_Handler);
WEAK_HANDLER(DebugMon_Handler);
WEAK_HANDLER(PendSV_Handler);
WEAK_HANDLER(SysTick_Handler);
WEAK_HANDLER(NPU0_IRQHandler);

typedef void (*Handler)(void);

// 16 system exceptions + the SSE-300's 96 interrupts; the Ethos-U55 raises interrupt 56.
enum { kSystemExceptions = 16, kInterrupts = 96, kNpuInterrupt = 56 };

__attribute__((section(".vectors"), used)) static const Handler vector_table[kSystemExceptions + kInterrupts] = {
    [0] = (Handler)(uintptr_t)__stack_top,
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
    [7] = SecureFault_Handler,
    [11] = SVC_Handler,
    [12] = DebugMon_Handler,
    [14] = PendSV_Handler,
    [15] = SysTick_Handler,
    [kSystemExceptions ... kSystemExceptions + kInterrupts - 1] = unhandled_exception,
    [kSystemExceptions + kNpuInterrupt] = NPU0_IRQHandler,
};
