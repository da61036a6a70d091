// newlib's system calls over Arm semihosting: stdio and files on the host, main's arguments, the exit
// status, and a heap in DDR (corstone300.ld). Replaces libgloss' rdimon, whose start-up moves the stack
// to the top of ITCM and whose _sbrk then refuses any heap above the stack.

#include "toolchains/corstone300/semihosting.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toolchains/corstone300/startup.h"

intptr_t semihosting_call(enum SemihostingOperation operation, void* argument) {
  register intptr_t r0 __asm__("r0") = operation;
  register void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihosting_exit(int status) {
  enum { kApplicationExit = 0x20026 };  // ADP_Stopped_ApplicationExit
  intptr_t block[2] = {kApplicationExit, status};
  for (;;) semihosting_call(kSemihostingExitExtended, block);
}

// File descriptors map to host handles; 0-2 are the host's console (":tt"), opened on first use.
enum { kMaxFiles = 16, kClosed = -1 };

typedef struct {
  intptr_t handle;
  off_t position;  // Semihosting seeks are absolute; SEEK_CUR needs the position.
} OpenFile;

static OpenFile files[kMaxFiles] = {[0 ... kMaxFiles - 1] = {kClosed, 0}};

static int fail_with(int error) {
  errno = error;
  return -1;
}

static intptr_t host_open(const char* path, int semihosting_mode) {
  intptr_t block[3] = {(intptr_t)path, semihosting_mode, (intptr_t)strlen(path)};
  return semihosting_call(kSemihostingOpen, block);
}

static OpenFile* file_of(int fd) {
  if (fd < 0 || fd >= kMaxFiles) return NULL;
  if (files[fd].handle == kClosed && fd <= STDERR_FILENO) {
    // ":tt" opened for reading is stdin, for writing stdout, for appending stderr.
    static const int kConsoleModes[] = {0, 4, 8};
    files[fd].handle = host_open(":tt", kConsoleModes[fd]);
  }
  return files[fd].handle == kClosed ? NULL : &files[fd];
}

// Semihosting's fopen()-style modes: r=0, r+=2, w=4, w+=6, a=8, a+=10; +1 for binary.
static int semihosting_mode_of(int flags) {
  int mode = 0;
  if (flags & O_APPEND) {
    mode = 8;
  } else if (flags & O_TRUNC) {
    mode = 4;
  }
  if ((flags & O_ACCMODE) == O_RDWR) mode += 2;
  if ((flags & O_ACCMODE) == O_WRONLY && mode == 0) mode = 4;
  return mode + 1;
}

int _open(const char* path, int flags, ...) {
  int fd = STDERR_FILENO + 1;
  while (fd < kMaxFiles && files[fd].handle != kClosed) ++fd;
  if (fd == kMaxFiles) return fail_with(EMFILE);
  intptr_t handle = host_open(path, semihosting_mode_of(flags));
  if (handle == -1) return fail_with(ENOENT);
  files[fd] = (OpenFile){handle, 0};
  return fd;
}

int _close(int fd) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  intptr_t handle = file->handle;
  file->handle = kClosed;
  return semihosting_call(kSemihostingClose, &handle) == 0 ? 0 : fail_with(EIO);
}

int _write(int fd, const void* data, size_t size) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  intptr_t block[3] = {file->handle, (intptr_t)data, (intptr_t)size};
  intptr_t not_written = semihosting_call(kSemihostingWrite, block);
  if (not_written < 0 || (size_t)not_written > size) return fail_with(EIO);
  file->position += (off_t)(size - (size_t)not_written);
  return (int)(size - (size_t)not_written);
}

int _read(int fd, void* data, size_t size) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  intptr_t block[3] = {file->handle, (intptr_t)data, (intptr_t)size};
  intptr_t not_read = semihosting_call(kSemihostingRead, block);
  if (not_read < 0 || (size_t)not_read > size) return fail_with(EIO);
  file->position += (off_t)(size - (size_t)not_read);
  return (int)(size - (size_t)not_read);
}

static off_t length_of(OpenFile* file) {
  return (off_t)semihosting_call(kSemihostingFileLength, &file->handle);
}

off_t _lseek(int fd, off_t offset, int whence) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  off_t target = offset;
  if (whence == SEEK_CUR) target += file->position;
  if (whence == SEEK_END) target += length_of(file);
  if (target < 0) return fail_with(EINVAL);
  intptr_t block[2] = {file->handle, (intptr_t)target};
  if (semihosting_call(kSemihostingSeek, block) != 0) return fail_with(EIO);
  file->position = target;
  return target;
}

int _isatty(int fd) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  return semihosting_call(kSemihostingIsTty, &file->handle) == 1;
}

int _fstat(int fd, struct stat* status) {
  OpenFile* file = file_of(fd);
  if (file == NULL) return fail_with(EBADF);
  memset(status, 0, sizeof(*status));
  if (_isatty(fd)) {
    status->st_mode = S_IFCHR;
  } else {
    status->st_mode = S_IFREG;
    status->st_size = length_of(file);
  }
  return 0;
}

void* _sbrk(ptrdiff_t increment) {
  extern char __heap_start[], __heap_end[];
  static char* heap_top = __heap_start;
  if (increment > __heap_end - heap_top || increment < __heap_start - heap_top) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* previous = heap_top;
  heap_top += increment;
  return previous;
}

void _exit(int status) { semihosting_exit(status); }

int _kill(int pid, int signal) {
  (void)pid;
  semihosting_exit(128 + signal);  // abort() lands here: exit like a shell reports a signal.
}

int _getpid(void) { return 1; }

// The host's command line, "<program> <arguments...>", split at spaces into main's argv.
char** corstone300_arguments(int* argc) {
  enum { kMaxCommandLine = 1024, kMaxArguments = 32 };
  static char command_line[kMaxCommandLine];
  static char* argv[kMaxArguments + 1];
  intptr_t block[2] = {(intptr_t)command_line, kMaxCommandLine - 1};
  *argc = 0;
  if (semihosting_call(kSemihostingGetCommandLine, block) != 0) {
    argv[0] = NULL;
    return argv;
  }
  command_line[block[1]] = '\0';
  for (char* cursor = command_line; *cursor != '\0' && *argc < kMaxArguments;) {
    while (*cursor == ' ') *cursor++ = '\0';
    if (*cursor == '\0') break;
    argv[(*argc)++] = cursor;
    while (*cursor != '\0' && *cursor != ' ') ++cursor;
  }
  argv[*argc] = NULL;
  return argv;
}
