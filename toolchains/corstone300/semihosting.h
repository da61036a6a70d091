// Arm semihosting: the running program asks the debugger or emulator attached to it (QEMU with
// -semihosting-config enable=on,target=native) to do I/O on the host for it.
#ifndef TOOLCHAINS_CORSTONE300_SEMIHOSTING_H_
#define TOOLCHAINS_CORSTONE300_SEMIHOSTING_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Operation numbers of the Arm semihosting specification (v2.0) that this library uses.
enum SemihostingOperation {
  kSemihostingOpen = 0x01,
  kSemihostingClose = 0x02,
  kSemihostingWrite = 0x05,
  kSemihostingRead = 0x06,
  kSemihostingIsTty = 0x09,
  kSemihostingSeek = 0x0A,
  kSemihostingFileLength = 0x0C,
  kSemihostingErrno = 0x13,
  kSemihostingGetCommandLine = 0x15,
  kSemihostingExitExtended = 0x20,
};

// One semihosting call: `operation` in r0, `argument` (usually a parameter block) in r1.
intptr_t semihosting_call(enum SemihostingOperation operation, void* argument);

// Ends the emulation; the host process exits with `status`.
__attribute__((noreturn)) void semihosting_exit(int status);

#ifdef __cplusplus
}
#endif

#endif  // TOOLCHAINS_CORSTONE300_SEMIHOSTING_H_
