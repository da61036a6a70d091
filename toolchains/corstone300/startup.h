// Hooks of the Corstone-300 startup code (startup.c) that other libraries may provide.
#ifndef TOOLCHAINS_CORSTONE300_STARTUP_H_
#define TOOLCHAINS_CORSTONE300_STARTUP_H_

#ifdef __cplusplus
extern "C" {
#endif

// main's argc/argv. The startup code's weak default has none; the semihosting library asks the host.
char** corstone300_arguments(int* argc);

#ifdef __cplusplus
}
#endif

#endif  // TOOLCHAINS_CORSTONE300_STARTUP_H_
