// Error codes of the .pte runtime. Every failing call returns one of these with a message (see status.h).
#pragma once

#include <cstdint>

namespace pte {

enum class Error : uint8_t {
  kOk = 0,
  // A caller passed an argument that cannot be used (wrong size, index out of range, misaligned buffer).
  kInvalidArgument,
  // The .pte bytes are malformed: bad header, flatbuffer, segment bounds or value references.
  kInvalidProgram,
  // A delegate's blob inside the .pte is malformed for its backend.
  kInvalidDelegateBlob,
  // The program names an operator that has no registered kernel.
  kOperatorMissing,
  // The program names a delegate backend that is not registered.
  kBackendMissing,
  // A method, input or output asked for by name or index does not exist.
  kNotFound,
  // Well-formed, but outside what this runtime implements (dynamic shapes, external data, ...).
  kNotSupported,
  // A caller-provided arena (runtime or planned memory) is smaller than the program needs.
  kArenaTooSmall,
  // A call came in the wrong order (e.g. execute before inputs are bound).
  kInvalidState,
  // A kernel rejected its arguments at run time (shape or dtype mismatch).
  kKernelFailed,
  // A delegate backend or the hardware behind it failed while running.
  kDelegateFailed,
  // Reading or writing a file failed (host tools only).
  kIoError,
};

// The enumerator's name without the leading 'k', e.g. "InvalidProgram".
const char* error_name(Error error);

}  // namespace pte
